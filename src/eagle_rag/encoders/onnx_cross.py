"""Cross-encoder reranker on ONNX Runtime (ms-marco-MiniLM-L-12-v2 INT8 by default).

Pairs are built as the model's tokenizer template says (``[CLS] query [SEP] passage [SEP]`` for
BERT), truncating only the passage ("only_second"): to ``max_length`` in total, and optionally to
``max_passage_tokens`` passage tokens for speed. Scores are the raw logits. Like
:mod:`eagle_rag.encoders.onnx_text`, dynamically quantized models run one pair per ONNX call by
default so that a pair's score never depends on the other pairs of the request.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from eagle_rag.encoders.errors import EncoderLoadError
from eagle_rag.encoders.onnx_text import (
    OnnxModel,
    default_minilm_reranker_dir,
    feeds_for,
    is_dynamically_quantized,
    load_onnx_model,
    load_tokenizer,
    run_rows,
)


class OnnxCrossEncoder:
    """A :class:`~eagle_rag.protocols.CrossEncoder` over an ONNX sequence-classification model.

    ``score_pairs(query, passages)`` returns one raw logit per passage (higher = more relevant), in
    input order. Loads lazily and thread-safely on first use; sessions are cached per process.
    """

    semantic = True

    def __init__(
        self,
        model_dir: str | Path,
        name: str = "minilm-rerank",
        max_length: int = 512,
        batch_size: int = 32,
        max_passage_tokens: int | None = None,
        threads: int | None = None,
        *,
        batch_invariant: bool | None = None,
    ) -> None:
        if max_length < 8 or batch_size < 1:
            raise ValueError("max_length must be >= 8 and batch_size >= 1")
        if max_passage_tokens is not None and max_passage_tokens < 1:
            raise ValueError("max_passage_tokens must be positive or None")
        self.model_dir = Path(model_dir)
        self.name = name
        self.max_length = max_length
        self.batch_size = batch_size
        self.max_passage_tokens = max_passage_tokens
        self.threads = threads
        self.batch_invariant = batch_invariant
        self.model_info = f"onnx-cross:{self.model_dir}"
        self._model: OnnxModel | None = None
        self._tokenizer: Any = None
        self._pad_id = 0
        self._specials = 0
        self._per_text = False
        self._out_index = 0
        self._lock = threading.Lock()

    def load(self) -> OnnxCrossEncoder:
        """Load the model now (idempotent); raises :class:`EncoderLoadError` on any failure."""
        if self._model is not None:
            return self
        with self._lock:
            if self._model is not None:
                return self
            if not self.model_dir.is_dir():
                raise EncoderLoadError(f"cross-encoder {self.name!r}: directory {self.model_dir} does not exist")
            onnx_path = self.model_dir / "model.onnx"
            per_text = self.batch_invariant
            if per_text is None:
                per_text = onnx_path.is_file() and is_dynamically_quantized(onnx_path)
            model = load_onnx_model(self.model_dir, self.threads, per_text)
            tokenizer, pad_id = load_tokenizer(self.model_dir, None)
            self._out_index = model.output_index(("logits", "scores"))
            self._tokenizer, self._pad_id = tokenizer, pad_id
            self._specials = int(tokenizer.num_special_tokens_to_add(True))
            self._per_text = per_text
            self.model_info = (
                f"onnx-cross:{model.path} (max_length={self.max_length}, "
                f"max_passage_tokens={self.max_passage_tokens}, {'per-pair' if per_text else 'batched'})"
            )
            self._model = model
        return self

    def _infer(self, encodings: Sequence[Any]) -> np.ndarray:
        model = self._model
        assert model is not None
        feeds = feeds_for(encodings, self._pad_id, model.input_names)
        logits = np.asarray(model.session.run([model.output_names[self._out_index]], feeds)[0], dtype=np.float32)
        if logits.ndim == 2:
            logits = logits[:, 0] if logits.shape[1] == 1 else logits[:, -1]
        return logits.reshape(-1)

    def encode_pairs(self, query: str, passages: Sequence[str]) -> list[Any]:
        """Tokenize (query, passage) pairs with passage-only truncation."""
        self.load()
        tok = self._tokenizer
        q = tok.encode(query, add_special_tokens=False)
        q_cap = max(1, (self.max_length - self._specials) // 2)
        if len(q.ids) > q_cap:  # a pathological query must still leave room for the passage
            q.truncate(q_cap)
        budget = self.max_length - self._specials - len(q.ids)
        if self.max_passage_tokens is not None:
            budget = min(budget, self.max_passage_tokens)
        pairs = []
        for p in tok.encode_batch(list(passages), add_special_tokens=False):
            if len(p.ids) > budget:
                p.truncate(budget)
            pairs.append(tok.post_process(q, p, True))
        return pairs

    def score_pairs(self, query: str, passages: Sequence[str]) -> list[float]:
        """Raw relevance logits for each passage, in input order."""
        if not passages:
            return []
        pairs = self.encode_pairs(query, passages)
        model = self._model
        assert model is not None
        scores = run_rows(
            pairs, self._infer, per_text=self._per_text, workers=model.workers, batch_size=self.batch_size
        )
        return [float(s) for s in scores]


def bundled_minilm_reranker(
    name: str = "minilm-rerank", threads: int | None = None, max_passage_tokens: int | None = None
) -> OnnxCrossEncoder:
    """The bundled ms-marco-MiniLM-L-12-v2 INT8 cross-encoder."""
    return OnnxCrossEncoder(default_minilm_reranker_dir(), name, max_passage_tokens=max_passage_tokens, threads=threads)

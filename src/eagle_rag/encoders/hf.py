"""Any Hugging Face checkpoint (hub id or local folder) through ``transformers`` (optional extra).

Install with ``pip install 'eagle-rag[transformers]'``. ``torch`` and ``transformers`` are imported
inside the functions, so importing this module never needs them. Models are loaded lazily (first
encode or :meth:`load`), once per instance, thread-safely; inference runs under
``torch.inference_mode`` on ``device`` (``"cpu"`` unless given, e.g. ``"cuda"``).

Hub ids need network access on first use (or a filled HF cache); on machines without it, loading
raises :class:`EncoderLoadError` with the reason. Without network, huggingface_hub retries for about
45 s before giving up: set ``HF_HUB_OFFLINE=1`` on air-gapped machines (or pass
``local_files_only=True``) to fail, or load from the cache, at once.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from eagle_rag.encoders.errors import EncoderLoadError
from eagle_rag.protocols import Vector

TRANSFORMERS_HINT = "install the optional extra: pip install 'eagle-rag[transformers]'"


def _import_torch_transformers() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise EncoderLoadError(f"transformers/torch are not installed ({exc}); {TRANSFORMERS_HINT}") from exc
    return torch, transformers


def fit_to_dim(matrix: np.ndarray, dim: int) -> np.ndarray:
    """Truncate or zero-pad the columns of ``matrix`` to ``dim``, then L2-normalise each row."""
    width = matrix.shape[1]
    if width > dim:
        matrix = matrix[:, :dim]
    elif width < dim:
        matrix = np.concatenate([matrix, np.zeros((matrix.shape[0], dim - width), dtype=matrix.dtype)], axis=1)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.asarray(matrix / np.maximum(norms, 1e-12), dtype=np.float32)


class _HFBase:
    """Shared lazy loading for the two HF wrappers."""

    def __init__(
        self,
        model_ref: str,
        name: str | None,
        max_length: int,
        batch_size: int,
        device: str | None,
        local_files_only: bool | None,
    ) -> None:
        self.model_ref = str(model_ref)
        self.name = name or self.model_ref
        self.max_length = max_length
        self.batch_size = batch_size
        self.device = device or "cpu"
        self.local_files_only = local_files_only
        self.model_info = f"hf:{self.model_ref}"
        self._tokenizer: Any = None
        self._model: Any = None
        self._lock = threading.Lock()

    def _auto_model_class(self, transformers: Any) -> Any:
        raise NotImplementedError

    def _load(self) -> None:
        if self._model is not None:
            return
        with self._lock:
            if self._model is not None:
                return
            torch, transformers = _import_torch_transformers()
            try:
                kwargs: dict[str, Any] = {}
                if self.local_files_only is not None:
                    kwargs["local_files_only"] = self.local_files_only
                tokenizer = transformers.AutoTokenizer.from_pretrained(self.model_ref, **kwargs)
                model = self._auto_model_class(transformers).from_pretrained(self.model_ref, **kwargs)
            except Exception as exc:
                raise EncoderLoadError(
                    f"transformers could not load {self.model_ref!r} for encoder {self.name!r}: "
                    f"{type(exc).__name__}: {str(exc)[:500]} (a hub id needs network access or a filled "
                    "HF cache; a local path needs config.json, the weights and the tokenizer files)"
                ) from exc
            model.eval()
            try:
                model.to(torch.device(self.device))
            except Exception as exc:
                raise EncoderLoadError(f"cannot move {self.model_ref!r} to device {self.device!r}: {exc}") from exc
            self.model_info = f"hf:{self.model_ref} ({type(model).__name__}, device={self.device})"
            self._tokenizer = tokenizer
            self._model = model


class HFTextEncoder(_HFBase):
    """A :class:`~eagle_rag.protocols.TextEncoder` over ``AutoModel``: mean pooling over the mask.

    Texts are truncated to ``max_length`` (512) tokens; vectors are fitted to ``dim`` (truncated or
    zero-padded) and L2-normalised. ``query_prefix``/``passage_prefix`` are prepended when set (e.g.
    ``"query: "``/``"passage: "`` for e5 models).
    """

    semantic = True

    def __init__(
        self,
        model_ref: str,
        dim: int,
        name: str | None = None,
        max_length: int = 512,
        batch_size: int = 32,
        device: str | None = None,
        query_prefix: str = "",
        passage_prefix: str = "",
        local_files_only: bool | None = None,
    ) -> None:
        if dim <= 0:
            raise ValueError(f"dim must be positive, got {dim}")
        super().__init__(model_ref, name, max_length, batch_size, device, local_files_only)
        self.dim = dim
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix

    def _auto_model_class(self, transformers: Any) -> Any:
        return transformers.AutoModel

    def load(self) -> HFTextEncoder:
        """Load tokenizer and model now (idempotent); raises :class:`EncoderLoadError` on failure."""
        self._load()
        return self

    def embed(self, texts: Sequence[str], prefix: str = "") -> np.ndarray:
        """Embed ``texts`` as a ``(len(texts), dim)`` float32 array of unit vectors."""
        self.load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        import torch

        items = [prefix + t for t in texts]
        order = sorted(range(len(items)), key=lambda i: len(items[i]))
        rows: list[np.ndarray | None] = [None] * len(items)
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                idx = order[start : start + self.batch_size]
                batch = self._tokenizer(
                    [items[i] for i in idx],
                    padding=True,
                    truncation=True,
                    max_length=self.max_length,
                    return_tensors="pt",
                ).to(self._model.device)
                hidden = self._model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
                out = pooled.float().cpu().numpy()
                for r, i in enumerate(idx):
                    rows[i] = out[r]
        matrix = np.stack([r for r in rows if r is not None], axis=0)
        return fit_to_dim(matrix, self.dim)

    def encode_queries(self, texts: Sequence[str]) -> list[Vector]:
        """Embed queries (with ``query_prefix``)."""
        return self.embed(texts, self.query_prefix).tolist()  # type: ignore[no-any-return]

    def encode_passages(self, texts: Sequence[str]) -> list[Vector]:
        """Embed passages (with ``passage_prefix``)."""
        return self.embed(texts, self.passage_prefix).tolist()  # type: ignore[no-any-return]


class HFCrossEncoder(_HFBase):
    """A :class:`~eagle_rag.protocols.CrossEncoder` over ``AutoModelForSequenceClassification``.

    Returns raw logits: the only column for one-label heads, the last column for multi-label heads.
    Pairs are truncated to ``max_length`` tokens (longest sequence first).
    """

    semantic = True

    def __init__(
        self,
        model_ref: str,
        name: str | None = None,
        max_length: int = 512,
        batch_size: int = 32,
        device: str | None = None,
        local_files_only: bool | None = None,
    ) -> None:
        super().__init__(model_ref, name, max_length, batch_size, device, local_files_only)

    def _auto_model_class(self, transformers: Any) -> Any:
        return transformers.AutoModelForSequenceClassification

    def load(self) -> HFCrossEncoder:
        """Load tokenizer and model now (idempotent); raises :class:`EncoderLoadError` on failure."""
        self._load()
        return self

    def score_pairs(self, query: str, passages: Sequence[str]) -> list[float]:
        """Raw relevance logits for each passage, in input order."""
        self.load()
        if not passages:
            return []
        import torch

        scores: list[float] = []
        with torch.inference_mode():
            for start in range(0, len(passages), self.batch_size):
                chunk = list(passages[start : start + self.batch_size])
                batch = self._tokenizer(
                    [query] * len(chunk),
                    chunk,
                    padding=True,
                    truncation=True,
                    max_length=self.max_length,
                    return_tensors="pt",
                ).to(self._model.device)
                logits = self._model(**batch).logits.float()
                if logits.dim() == 2:
                    logits = logits[:, 0] if logits.shape[1] == 1 else logits[:, -1]
                scores.extend(float(x) for x in logits.reshape(-1).cpu().tolist())
        return scores

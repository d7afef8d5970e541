"""The MedCPT-style cross-encoder of the ``medcpt-rerank`` label, loaded lazily, with its fall-back rules.

Resolution on first :meth:`MedCPTReranker.score_pairs` (or :meth:`load`):

1. encoder mode ``deterministic``: SHA-256 token-overlap scores (not semantic);
2. a configured checkpoint (``EAGLE_BIOMED_MEDCPT_RERANK_MODEL`` or the ``models`` option): a local ONNX
   folder, or ``AutoModelForSequenceClassification`` through transformers (pairs truncated to 512
   tokens, the logit column squeezed: the only one, or the last of two);
3. no checkpoint configured: the bundled ms-marco-MiniLM-L-12-v2 cross-encoder;
4. when loading fails: ``require_native`` raises :class:`EncoderLoadError`; ``auto`` falls back to the
   deterministic scores only when ``EAGLE_BIOMED_ALLOW_DETERMINISTIC`` is on, else raises.

An empty passage list scores to ``[]`` without loading anything.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from eagle_rag.plugin_api import CrossEncoder, EncoderLoadError, EncoderMode
from eagle_rag.plugin_api.encoders import BUNDLED_MINILM_RERANKER, DeterministicCrossEncoder, load_native_cross_encoder
from eagle_rag_biomed.options import ALLOW_DETERMINISTIC_ENV

log = logging.getLogger(__name__)
MAX_LENGTH = 512


class MedCPTReranker:
    """A :class:`~eagle_rag.protocols.CrossEncoder` that resolves its model on first use."""

    def __init__(self, label: str, model_ref: str | None, mode: EncoderMode, allow_deterministic: bool,
                 *, threads: int | None = None, max_passage_tokens: int | None = None) -> None:
        self.name = label
        self.model_ref = model_ref or BUNDLED_MINILM_RERANKER
        self.configured = model_ref is not None
        self.mode = mode
        self.allow_deterministic = allow_deterministic
        self.threads = threads
        self.max_passage_tokens = max_passage_tokens
        self.model_info = f"{self.model_ref} (not loaded yet)"
        self.semantic = mode is not EncoderMode.DETERMINISTIC
        self._inner: CrossEncoder | None = None
        self._lock = threading.Lock()

    def load(self) -> MedCPTReranker:
        """Resolve the model now (idempotent). Raises EncoderLoadError per the module's rules."""
        if self._inner is not None:
            return self
        with self._lock:
            if self._inner is None:
                self._inner = self._resolve()
                self.model_info = f"{self.model_ref} -> {getattr(self._inner, 'model_info', self._inner.name)}"
                self.semantic = bool(getattr(self._inner, "semantic", True))
        return self

    def _resolve(self) -> CrossEncoder:
        if self.mode is EncoderMode.DETERMINISTIC:
            return DeterministicCrossEncoder(name=self.name)
        try:
            inner = load_native_cross_encoder(self.name, self.model_ref, threads=self.threads,
                                              max_passage_tokens=self.max_passage_tokens)
        except EncoderLoadError as exc:
            if self.mode is EncoderMode.REQUIRE_NATIVE or not self.allow_deterministic:
                hint = "" if self.mode is EncoderMode.REQUIRE_NATIVE else (
                    f" (encoder mode auto: set {ALLOW_DETERMINISTIC_ENV}=1 to allow non-semantic scores)")
                raise EncoderLoadError(f"{exc}{hint}") from exc
            log.warning("ENCODER FALLBACK: cross-encoder %r (model %r) could not be loaded: %s. Using "
                        "deterministic token-overlap scores because %s=1: NOT semantic.",
                        self.name, self.model_ref, exc, ALLOW_DETERMINISTIC_ENV)
            return DeterministicCrossEncoder(name=self.name)
        max_length = getattr(inner, "max_length", MAX_LENGTH)
        if isinstance(max_length, int) and max_length > MAX_LENGTH:
            inner.max_length = MAX_LENGTH  # type: ignore[attr-defined]
        return inner

    def score_pairs(self, query: str, passages: Sequence[str]) -> list[float]:
        """Raw relevance scores of ``(query, passage)`` pairs, in input order (higher = more relevant)."""
        if not passages:
            return []
        inner = self.load()._inner
        if inner is None:  # load() always sets it; kept for the type checker
            raise EncoderLoadError(f"cross-encoder {self.name!r} is not loaded")
        return list(inner.score_pairs(query, passages))

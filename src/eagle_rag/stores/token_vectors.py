"""Token vectors of chunks, precomputed at ingest for late-interaction (ColBERT MaxSim) scoring.

A late-interaction model scores a (query, passage) pair from one vector per token of each side. The
passage side does not depend on the query, so the ingest computes it once per chunk (the
``eagle_embed_tokens`` hook, for the collections of ``ingest.token_vector_collections``) and a query
encodes only itself. One SQLite file (``<data_dir>/token_vectors.sqlite``) holds one row per chunk
id: its document id, a ``key`` naming the model, passage cut and exact text the vectors were computed
from (the reader recomputes a row whose key differs), and the ``(tokens, dim)`` array as float16
bytes (768 bytes a token for a 384-d model).

The rows follow their chunks: written in the same batch as the vectors, deleted with a document,
with an old version's chunks and in a rollback (:mod:`eagle_rag.ingest.writer`), and checked and
repaired by ``eagle-rag doctor`` (:mod:`eagle_rag.doctor`).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FILE_NAME = "token_vectors.sqlite"
_BATCH = 500
_SCHEMA = """
CREATE TABLE IF NOT EXISTS token_vectors (
    chunk_id TEXT PRIMARY KEY, document_id TEXT NOT NULL, key TEXT NOT NULL,
    tokens INTEGER NOT NULL, dim INTEGER NOT NULL, data BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS token_vectors_document ON token_vectors (document_id);
"""


@dataclass(frozen=True)
class TokenVectors:
    """The token vectors of one chunk: ``vectors`` is ``(tokens, dim)``; ``key`` names what they encode."""

    chunk_id: str
    document_id: str
    key: str
    vectors: np.ndarray


def _chunks(items: Sequence[str]) -> Iterable[Sequence[str]]:
    for start in range(0, len(items), _BATCH):
        yield items[start:start + _BATCH]


class TokenVectorStore:
    """The token vectors of every chunk that has them, in one SQLite file (thread-safe, opened lazily)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._db: sqlite3.Connection | None = None
        self._lock = threading.RLock()

    @property
    def db(self) -> sqlite3.Connection:
        with self._lock:
            if self._db is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, check_same_thread=False)
                db.execute("PRAGMA journal_mode=WAL")
                db.executescript(_SCHEMA)
                self._db = db
            return self._db

    def put(self, rows: Sequence[TokenVectors]) -> int:
        """Write (or replace) the rows; returns how many were written."""
        values = []
        for row in rows:
            array = np.ascontiguousarray(row.vectors, dtype=np.float16)
            if array.ndim != 2:
                raise ValueError(f"token vectors of {row.chunk_id!r} must be 2-d, got shape {array.shape}")
            values.append((row.chunk_id, row.document_id, row.key, array.shape[0], array.shape[1], array.tobytes()))
        with self._lock, self.db:
            self.db.executemany("INSERT OR REPLACE INTO token_vectors VALUES (?, ?, ?, ?, ?, ?)", values)
        return len(values)

    def get(self, chunk_ids: Sequence[str]) -> dict[str, TokenVectors]:
        """The stored rows of ``chunk_ids`` (ids without a row are absent), vectors as float32."""
        out: dict[str, TokenVectors] = {}
        with self._lock:
            for part in _chunks(list(dict.fromkeys(chunk_ids))):
                marks = ",".join("?" * len(part))
                for chunk_id, doc_id, key, tokens, dim, data in self.db.execute(
                        f"SELECT * FROM token_vectors WHERE chunk_id IN ({marks})", part):  # noqa: S608 - only ?s
                    vectors = np.frombuffer(data, dtype=np.float16).reshape(tokens, dim).astype(np.float32)
                    out[chunk_id] = TokenVectors(chunk_id, doc_id, key, vectors)
        return out

    def chunk_refs(self, document_ids: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """``(chunk id, document id)`` of every row, or of the rows of ``document_ids``."""
        with self._lock:
            if document_ids is None:
                return list(self.db.execute("SELECT chunk_id, document_id FROM token_vectors"))
            out: list[tuple[str, str]] = []
            for part in _chunks(list(document_ids)):
                marks = ",".join("?" * len(part))
                out.extend(self.db.execute(  # noqa: S608 - only ?s
                    f"SELECT chunk_id, document_id FROM token_vectors WHERE document_id IN ({marks})", part))
            return out

    def delete_chunks(self, chunk_ids: Iterable[str]) -> int:
        """Delete the rows of ``chunk_ids``; returns how many there were."""
        deleted = 0
        with self._lock, self.db:
            for part in _chunks(list(chunk_ids)):
                marks = ",".join("?" * len(part))
                deleted += self.db.execute(  # noqa: S608 - only ?s
                    f"DELETE FROM token_vectors WHERE chunk_id IN ({marks})", part).rowcount
        return deleted

    def delete_document(self, document_id: str) -> int:
        """Delete every row of ``document_id``; returns how many there were."""
        with self._lock, self.db:
            return self.db.execute("DELETE FROM token_vectors WHERE document_id = ?", (document_id,)).rowcount

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

"""Token vectors of chunks, precomputed at ingest for late-interaction (ColBERT MaxSim) scoring.

A late-interaction model scores a (query, passage) pair from one vector per token of each side. The
passage side does not depend on the query, so the ingest computes it once per chunk (the
``eagle_embed_tokens`` hook, for the collections of ``ingest.token_vector_collections``) and a query
encodes only itself. One table ``token_vectors`` holds one row per chunk id: its document id, a ``key``
naming the model, passage cut and exact text the vectors were computed from (the reader recomputes a
row whose key differs), and the ``(tokens, dim)`` array as float16 bytes (768 bytes a token for a 384-d
model).

Where the table lives follows the registry (:func:`token_vectors_url`): with the embedded SQLite registry
it is the file ``<data_dir>/token_vectors.sqlite``; with a shared registry (PostgreSQL, ``registry.url``)
it is a table of that database, so every ``serve`` replica reads the vectors that any of them wrote.

The rows follow their chunks: written in the same batch as the vectors, deleted with a document,
with an old version's chunks and in a rollback (:mod:`eagle_rag.ingest.writer`), and checked and
repaired by ``eagle-rag doctor`` (:mod:`eagle_rag.ops.doctor`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from sqlalchemy import Column, Integer, LargeBinary, MetaData, String, Table, delete, event, insert, select
from sqlalchemy.engine import Engine, make_url

from eagle_rag.stores.registry import sql_engine

if TYPE_CHECKING:
    from eagle_rag.settings import Settings

FILE_NAME = "token_vectors.sqlite"
_BATCH = 500
_metadata = MetaData()
token_vectors = Table(
    "token_vectors", _metadata,
    Column("chunk_id", String, primary_key=True),
    Column("document_id", String, nullable=False, index=True),
    Column("key", String, nullable=False),
    Column("tokens", Integer, nullable=False),
    Column("dim", Integer, nullable=False),
    Column("data", LargeBinary, nullable=False),
)


def token_vectors_url(settings: Settings) -> str:
    """Where the token vectors of ``settings`` live: the shared registry's database when ``registry.url``
    names one (PostgreSQL), else ``<data_dir>/token_vectors.sqlite``."""
    if settings.registry.url and make_url(settings.registry.url).get_backend_name() != "sqlite":
        return settings.registry.url
    return f"sqlite:///{settings.data_path / FILE_NAME}"


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


def _wal(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()


class TokenVectorStore:
    """The token vectors of every chunk that has them, in one table of a SQLAlchemy database (``url``:
    a SQLite file or PostgreSQL; a plain path means that SQLite file). Thread-safe; nothing connects
    until first use, when the table is created. A database that cannot be reached raises
    :class:`~eagle_rag.errors.StoreUnavailable`."""

    def __init__(self, url: str | Path) -> None:
        self.url = url if isinstance(url, str) and "://" in url else f"sqlite:///{Path(url)}"
        self._engine: Engine | None = None
        self._lock = threading.RLock()

    @property
    def db(self) -> Engine:
        with self._lock:
            if self._engine is None:
                engine = sql_engine(self.url, "token vector store")
                if engine.dialect.name == "sqlite":
                    event.listen(engine, "connect", _wal)
                _metadata.create_all(engine)
                self._engine = engine
            return self._engine

    def put(self, rows: Sequence[TokenVectors]) -> int:
        """Write (or replace) the rows in one transaction; returns how many were written."""
        values: dict[str, dict[str, Any]] = {}
        for row in rows:
            array = np.ascontiguousarray(row.vectors, dtype=np.float16)
            if array.ndim != 2:
                raise ValueError(f"token vectors of {row.chunk_id!r} must be 2-d, got shape {array.shape}")
            values[row.chunk_id] = {"chunk_id": row.chunk_id, "document_id": row.document_id, "key": row.key,
                                    "tokens": array.shape[0], "dim": array.shape[1], "data": array.tobytes()}
        if values:
            with self.db.begin() as conn:
                for part in _chunks(list(values)):
                    conn.execute(delete(token_vectors).where(token_vectors.c.chunk_id.in_(part)))
                    conn.execute(insert(token_vectors), [values[chunk_id] for chunk_id in part])
        return len(rows)

    def get(self, chunk_ids: Sequence[str]) -> dict[str, TokenVectors]:
        """The stored rows of ``chunk_ids`` (ids without a row are absent), vectors as float32."""
        out: dict[str, TokenVectors] = {}
        with self.db.connect() as conn:
            for part in _chunks(list(dict.fromkeys(chunk_ids))):
                for chunk_id, doc_id, key, tokens, dim, data in conn.execute(
                        select(token_vectors).where(token_vectors.c.chunk_id.in_(part))):
                    vectors = np.frombuffer(data, dtype=np.float16).reshape(tokens, dim).astype(np.float32)
                    out[chunk_id] = TokenVectors(chunk_id, doc_id, key, vectors)
        return out

    def chunk_refs(self, document_ids: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """``(chunk id, document id)`` of every row, or of the rows of ``document_ids``."""
        columns = select(token_vectors.c.chunk_id, token_vectors.c.document_id)
        with self.db.connect() as conn:
            if document_ids is None:
                return [(c, d) for c, d in conn.execute(columns)]
            out: list[tuple[str, str]] = []
            for part in _chunks(list(document_ids)):
                out.extend((c, d) for c, d in conn.execute(columns.where(token_vectors.c.document_id.in_(part))))
            return out

    def delete_chunks(self, chunk_ids: Iterable[str]) -> int:
        """Delete the rows of ``chunk_ids``; returns how many there were."""
        deleted = 0
        with self.db.begin() as conn:
            for part in _chunks(list(chunk_ids)):
                deleted += conn.execute(delete(token_vectors).where(token_vectors.c.chunk_id.in_(part))).rowcount
        return deleted

    def delete_document(self, document_id: str) -> int:
        """Delete every row of ``document_id``; returns how many there were."""
        with self.db.begin() as conn:
            return int(conn.execute(delete(token_vectors).where(token_vectors.c.document_id == document_id)).rowcount)

    def close(self) -> None:
        with self._lock:
            if self._engine is not None:
                self._engine.dispose()
                self._engine = None

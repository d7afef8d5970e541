"""The document registry on SQLAlchemy 2 Core: SQLite by default, PostgreSQL at scale.

Tags live in a ``document_tags`` table (one row per document and tag, indexed by tag), so
``document_ids_with_tags`` is one indexed query. Every value is a bound parameter. Timestamps
are stored and returned as timezone-aware UTC. Name look-ups match lower-cased copies of the name
and of the source file name, so they are case-insensitive on every backend.
"""

from __future__ import annotations

import builtins
import posixpath
import threading
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from sqlalchemy import (
    Column,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    delete,
    event,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.pool import StaticPool
from sqlalchemy.types import TypeDecorator

from eagle_rag.protocols import DocumentRecord
from eagle_rag.stores.availability import is_unavailable, unavailable
from eagle_rag.stores.filters import validate_kb_name
from eagle_rag.types import DocumentStatus


class UtcDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend (SQLite stores it naive, as UTC)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"{value!r} is a naive datetime: pass a timezone-aware one")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


metadata = MetaData()
documents = Table(
    "documents", metadata,
    Column("id", String(256), primary_key=True),
    Column("kb_name", String(64), nullable=False, index=True),
    Column("namespace", String(128), nullable=False, default=""),
    Column("name", Text, nullable=False),
    Column("source_uri", Text, nullable=False),
    Column("name_key", Text, nullable=False),
    Column("source_file_key", Text, nullable=False),
    Column("content_hash", String(128), nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("chunk_count", Integer, nullable=False, default=0),
    Column("error", Text, nullable=False, default=""),
    Column("created_at", UtcDateTime, nullable=False),
    Column("updated_at", UtcDateTime, nullable=False),
)
document_tags = Table(
    "document_tags", metadata,
    Column("document_id", String(256), ForeignKey("documents.id", ondelete="CASCADE"),
           primary_key=True),
    Column("tag", String(256), primary_key=True),
    Column("position", Integer, nullable=False, default=0),
    Index("ix_document_tags_tag", "tag"),
)

index_state = Table(
    "index_state", metadata,
    Column("key", String(256), primary_key=True),
    Column("value", Text, nullable=False),
)
"""Small JSON documents about the index as a whole, shared by every process of the registry: the encoder
versions of :mod:`eagle_rag.ops.reindex` (key ``reindex/<label>``)."""


def source_file_name(source_uri: str) -> str:
    """Return the file name of a path or URI (``file:///a/My%20Doc.pdf`` -> ``My Doc.pdf``)."""
    path = unquote(urlparse(source_uri).path) if "://" in source_uri else source_uri
    return posixpath.basename(path.replace("\\", "/").rstrip("/"))


def escape_like(term: str) -> str:
    """Escape the LIKE wildcards ``%`` and ``_`` and the escape character ``\\`` itself."""
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _upsert_statement(conn: Connection, values: dict[str, Any]) -> Any:
    """A native insert-or-update for SQLite and PostgreSQL; None for other dialects."""
    if conn.dialect.name == "sqlite":
        stmt: Any = sqlite.insert(documents).values(**values)
    elif conn.dialect.name == "postgresql":
        stmt = postgresql.insert(documents).values(**values)
    else:
        return None
    changed = {k: stmt.excluded[k] for k in values if k not in ("id", "created_at")}
    return stmt.on_conflict_do_update(index_elements=["id"], set_=changed)


class SqlDocumentRegistry:
    """A :class:`~eagle_rag.protocols.DocumentRegistry` in any SQLAlchemy database.

    ``url`` is e.g. ``sqlite:///path/registry.db`` or ``postgresql+psycopg://user@host/db``;
    ``connect_args`` go to the DB-API driver (e.g. ``{"options": "-csearch_path=s"}``). Nothing
    connects until first use, when missing tables are created. PostgreSQL connections time out
    after ``connect_timeout_s`` (unless ``connect_args`` set ``connect_timeout``); a database that
    cannot be reached raises :class:`~eagle_rag.errors.StoreUnavailable` from any method.
    """

    def __init__(self, url: str, *, connect_args: Mapping[str, Any] | None = None,
                 connect_timeout_s: int = 10) -> None:
        self._engine: Engine = sql_engine(url, "document registry", connect_args=connect_args,
                                          connect_timeout_s=connect_timeout_s)
        self._schema_ready = False
        self._schema_lock = threading.Lock()

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (tables created on first access)."""
        return self._db()

    def _db(self) -> Engine:
        if not self._schema_ready:
            with self._schema_lock:
                if not self._schema_ready:
                    metadata.create_all(self._engine)
                    self._schema_ready = True
        return self._engine

    def upsert(self, record: DocumentRecord) -> None:
        """Insert ``record`` or replace the stored one (keeping its ``created_at``) and its tags.

        Tags keep their order; empty and duplicate tags are dropped.

        Raises:
            ValueError: for an empty id, an invalid kb name or a naive timestamp.
        """
        self.upsert_many([record])

    def upsert_many(self, records: Sequence[DocumentRecord]) -> None:
        """:meth:`upsert` every record in one transaction: all are stored, or none.

        Raises:
            ValueError: for an empty id, an invalid kb name or a naive timestamp (nothing stored).
        """
        rows = [_values(record) for record in records]
        with self._db().begin() as conn:
            for record, values in zip(records, rows, strict=True):
                stmt = _upsert_statement(conn, values)
                if stmt is not None:
                    conn.execute(stmt)
                elif conn.execute(select(documents.c.id).where(documents.c.id == record.id)).first():
                    changed = {k: v for k, v in values.items() if k not in ("id", "created_at")}
                    conn.execute(update(documents).where(documents.c.id == record.id).values(changed))
                else:
                    conn.execute(insert(documents).values(values))
                conn.execute(delete(document_tags).where(document_tags.c.document_id == record.id))
                tags = list(dict.fromkeys(t for t in record.tags if t))
                if tags:
                    conn.execute(insert(document_tags), [{"document_id": record.id, "tag": t, "position": i}
                                                         for i, t in enumerate(tags)])

    def get(self, document_id: str) -> DocumentRecord | None:
        """Return the record of ``document_id``, or None when unknown."""
        records = self._records(select(documents).where(documents.c.id == document_id))
        return records[0] if records else None

    def complete_ids(self, document_ids: Sequence[str]) -> set[str]:
        """The subset of ``document_ids`` whose status is complete (one query per 500 ids)."""
        wanted = list(dict.fromkeys(document_ids))
        found: set[str] = set()
        with self._db().connect() as conn:
            for start in range(0, len(wanted), 500):
                part = wanted[start:start + 500]
                rows = conn.execute(select(documents.c.id).where(
                    documents.c.id.in_(part), documents.c.status == DocumentStatus.COMPLETE.value))
                found.update(str(row[0]) for row in rows)
        return found

    def complete_versions(self, document_ids: Sequence[str]) -> dict[str, str]:
        """``{id: content_hash}`` of the documents among ``document_ids`` whose status is complete."""
        wanted = list(dict.fromkeys(document_ids))
        found: dict[str, str] = {}
        with self._db().connect() as conn:
            for start in range(0, len(wanted), 500):
                rows = conn.execute(select(documents.c.id, documents.c.content_hash).where(
                    documents.c.id.in_(wanted[start:start + 500]),
                    documents.c.status == DocumentStatus.COMPLETE.value))
                found.update((str(row[0]), str(row[1])) for row in rows)
        return found

    def set_status(self, document_id: str, status: DocumentStatus, chunk_count: int | None = None,
                   error: str = "") -> None:
        """Set status and error (and chunk count when given); bumps ``updated_at``.

        Raises:
            KeyError: when ``document_id`` is unknown.
        """
        values: dict[str, Any] = {"status": DocumentStatus(status).value, "error": error,
                                  "updated_at": datetime.now(UTC)}
        if chunk_count is not None:
            values["chunk_count"] = int(chunk_count)
        with self._db().begin() as conn:
            result = conn.execute(
                update(documents).where(documents.c.id == document_id).values(values))
            if result.rowcount == 0:
                raise KeyError(f"unknown document {document_id!r}")

    def delete(self, document_id: str) -> bool:
        """Delete the document and its tags; returns whether it existed."""
        with self._db().begin() as conn:
            conn.execute(delete(document_tags).where(document_tags.c.document_id == document_id))
            result = conn.execute(delete(documents).where(documents.c.id == document_id))
            return bool(result.rowcount)

    def _where(self, stmt: Any, kb_name: str | None, status: DocumentStatus | None) -> Any:
        if kb_name is not None:
            stmt = stmt.where(documents.c.kb_name == kb_name)
        if status is not None:
            stmt = stmt.where(documents.c.status == DocumentStatus(status).value)
        return stmt

    def list(self, kb_name: str | None = None, status: DocumentStatus | None = None,
             limit: int = 1000, offset: int = 0) -> builtins.list[DocumentRecord]:
        """Return records ordered by id, optionally of one kb and/or status, paginated."""
        if limit < 0 or offset < 0:
            raise ValueError("limit and offset must not be negative")
        stmt = self._where(select(documents), kb_name, status)
        return self._records(stmt.order_by(documents.c.id).limit(limit).offset(offset))

    def kb_names(self) -> set[str]:
        """Return the kb names that have at least one document."""
        with self._db().connect() as conn:
            return {r[0] for r in conn.execute(select(documents.c.kb_name).distinct())}

    def count(self, kb_name: str | None = None, status: DocumentStatus | None = None) -> int:
        """Return the number of documents, optionally of one kb and/or status."""
        stmt = self._where(select(func.count()).select_from(documents), kb_name, status)
        with self._db().connect() as conn:
            return int(conn.execute(stmt).scalar_one())

    def lookup_document_ids_by_name_terms(self, terms: Sequence[str], kb_name: str | None = None,
                                          namespace: str | None = None) -> builtins.list[str]:
        """Return ids (sorted) of documents whose name or source file name contains any term.

        Matching is a case-insensitive substring test; ``%``, ``_`` and ``\\`` in terms are
        literal. Blank terms are ignored; no usable term gives [].
        """
        cleaned = [t.strip().lower() for t in terms if t and t.strip()]
        if not cleaned:
            return []
        conditions = []
        for term in dict.fromkeys(cleaned):
            pattern = f"%{escape_like(term)}%"
            conditions.append(documents.c.name_key.like(pattern, escape="\\"))
            conditions.append(documents.c.source_file_key.like(pattern, escape="\\"))
        stmt = select(documents.c.id).where(or_(*conditions))
        if kb_name is not None:
            stmt = stmt.where(documents.c.kb_name == kb_name)
        if namespace is not None:
            stmt = stmt.where(documents.c.namespace == namespace)
        with self._db().connect() as conn:
            return [r[0] for r in conn.execute(stmt.order_by(documents.c.id))]

    def document_ids_with_tags(self, tags: Sequence[str]) -> set[str]:
        """Return ids of documents that carry any of ``tags`` (exact match); empty tags -> set()."""
        wanted = sorted({t for t in tags if t})
        if not wanted:
            return set()
        stmt = select(document_tags.c.document_id).where(document_tags.c.tag.in_(wanted)).distinct()
        with self._db().connect() as conn:
            return {r[0] for r in conn.execute(stmt)}

    def _records(self, stmt: Any) -> builtins.list[DocumentRecord]:
        with self._db().connect() as conn:
            rows = conn.execute(stmt).mappings().all()
            ids = [row["id"] for row in rows]
            tags: dict[str, builtins.list[str]] = {i: [] for i in ids}
            if ids:
                tag_rows = conn.execute(select(document_tags.c.document_id, document_tags.c.tag)
                                        .where(document_tags.c.document_id.in_(ids))
                                        .order_by(document_tags.c.position))
                for doc_id, tag in tag_rows:
                    tags[doc_id].append(tag)
        return [
            DocumentRecord(
                id=row["id"], kb_name=row["kb_name"], name=row["name"],
                source_uri=row["source_uri"], content_hash=row["content_hash"],
                status=DocumentStatus(row["status"]), chunk_count=row["chunk_count"],
                tags=tuple(tags[row["id"]]), namespace=row["namespace"],
                created_at=row["created_at"], updated_at=row["updated_at"], error=row["error"],
            )
            for row in rows
        ]

    def get_state(self, key: str) -> str | None:
        """The value stored under ``key`` in ``index_state``, or None."""
        with self._db().connect() as conn:
            value = conn.execute(select(index_state.c.value).where(index_state.c.key == key)).scalar_one_or_none()
        return None if value is None else str(value)

    def put_state(self, key: str, value: str) -> None:
        """Store ``value`` under ``key`` (replacing it), in one transaction."""
        with self._db().begin() as conn:
            conn.execute(delete(index_state).where(index_state.c.key == key))
            conn.execute(insert(index_state).values(key=key, value=value))

    def delete_state(self, key: str) -> None:
        with self._db().begin() as conn:
            conn.execute(delete(index_state).where(index_state.c.key == key))

    def state_keys(self, prefix: str) -> builtins.list[str]:
        """The keys of ``index_state`` that start with ``prefix``, sorted."""
        with self._db().connect() as conn:
            keys = conn.execute(select(index_state.c.key).where(index_state.c.key.startswith(prefix, autoescape=True)))
            return sorted(str(k) for k in keys.scalars())

    def close(self) -> None:
        """Dispose of the engine's connections."""
        self._engine.dispose()


def _values(record: DocumentRecord) -> dict[str, Any]:
    """The ``documents`` row of ``record``. Raises ValueError for an invalid record."""
    if not record.id:
        raise ValueError("document id must not be empty")
    validate_kb_name(record.kb_name)
    for field in ("created_at", "updated_at"):
        value = getattr(record, field)
        if not isinstance(value, datetime) or value.utcoffset() is None:
            raise ValueError(f"{field} {value!r} is a naive datetime: pass a timezone-aware one")
    return {
        "id": record.id, "kb_name": record.kb_name, "namespace": record.namespace,
        "name": record.name, "source_uri": record.source_uri, "name_key": record.name.lower(),
        "source_file_key": source_file_name(record.source_uri).lower(),
        "content_hash": record.content_hash, "status": DocumentStatus(record.status).value,
        "chunk_count": int(record.chunk_count), "error": record.error,
        "created_at": record.created_at, "updated_at": record.updated_at,
    }


def sql_engine(url: str, store: str, *, connect_args: Mapping[str, Any] | None = None,
               connect_timeout_s: int = 10) -> Engine:
    """A SQLAlchemy engine on ``url`` for the store named ``store``: PostgreSQL connections time out after
    ``connect_timeout_s`` (unless the URL sets ``connect_timeout``), a SQLite file's folder is created and
    its foreign keys are on, an in-memory SQLite is one shared connection, and a database that cannot be
    reached raises :class:`~eagle_rag.errors.StoreUnavailable` naming ``store``. Nothing connects yet."""
    parsed = make_url(url)
    kwargs: dict[str, Any] = {"connect_args": dict(connect_args or {})}
    if parsed.get_backend_name() == "postgresql" and "connect_timeout" not in parsed.query:
        kwargs["connect_args"].setdefault("connect_timeout", connect_timeout_s)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database in ("", ":memory:"):
            kwargs["poolclass"] = StaticPool
            kwargs["connect_args"].setdefault("check_same_thread", False)
        else:
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    event.listen(engine, "handle_error", _unavailable_handler(url, store))
    return engine


def _unavailable_handler(url: str, store: str) -> Any:
    """A ``handle_error`` listener that turns "cannot reach the database" into StoreUnavailable."""

    def handle(context: Any) -> None:
        original = context.original_exception
        if context.is_disconnect or (context.connection is None and is_unavailable(context.sqlalchemy_exception)):
            raise unavailable(store, url, original) from original

    return handle


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()

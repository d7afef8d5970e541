"""Vector collections in Milvus (Milvus Lite file or a Milvus server) through ``MilvusClient``.

A logical collection name is an alias of a physical collection ``<name>__v<n>``, so a schema
migration on Milvus Lite (which lacks ``add_collection_field``) can copy the rows into a new
physical collection and swap the alias. Chunk metadata is stored as a JSON string in the
``metadata`` field (exact round trip); ``extra_fields`` are nullable VARCHAR copies of chosen
metadata keys, for filtering.
"""

from __future__ import annotations

import math
import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pymilvus import MilvusClient
from pymilvus.exceptions import MilvusException

from eagle_rag.errors import StoreUnavailable
from eagle_rag.protocols import ScoredId, StoreFilter, Vector
from eagle_rag.stores import milvus_schema as ms
from eagle_rag.stores.filters import build_milvus_filter, milvus_string_literal
from eagle_rag.stores.milvus_capabilities import Capabilities, Feature, read_capabilities
from eagle_rag.types import Chunk

_T = TypeVar("_T")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,199}")
_SERVER_SCHEMES = ("http://", "https://", "tcp://", "unix:")
MAX_TOP_K = 16384
GRPC_OPTIONS = {"grpc.keepalive_time_ms": 300_000, "grpc.keepalive_permit_without_calls": False}
"""gRPC channel options of every client. pymilvus pings every 10 s, also on an idle channel; the gRPC server
of milvus-lite (the one a ``.db`` file starts, and ``python -m milvus_lite server``) accepts one ping per
5 minutes without data and after the third closes the connection (GOAWAY ``too_many_pings``): a call that
meets that close fails with "Fail connecting to server". So: ping only while a call is open, every 5 minutes.

The store's connection is its own (``dedicated``): pymilvus otherwise shares one connection among all the
clients of a process that name the same address, with the options and connect timeout of whichever client
came first, and re-connects it with that timeout after 30 s idle."""


_AUTH_CODES = frozenset({1800, 1801})
_AUTH_WORDS = ("auth", "password", "credential", "unauthenticated", "permission denied", "token")


def is_login_refused(exc: Exception) -> bool:
    """True when a Milvus server refused the credentials (auth error codes, or an error that says so)."""
    code = getattr(exc, "code", None)
    message = str(getattr(exc, "message", "") or exc).lower()
    return code in _AUTH_CODES or any(word in message for word in _AUTH_WORDS)


def login_refused(uri: str, had_token: bool) -> StoreUnavailable:
    """The one-line error of a refused Milvus login; names the settings to check, never the secret."""
    what = "the credentials it was given" if had_token else "a connection without credentials"
    return StoreUnavailable(f"the Milvus server at {uri} refused {what}: set milvus.token (or milvus.user and "
                            "milvus.password; env EAGLE_RAG_MILVUS__TOKEN) to an account it accepts",
                            {"store": "vectors", "reason": "login_refused"})


def is_released(exc: BaseException) -> bool:
    """True for a search on a collection the server does not hold in memory (code 101): a restarted
    Milvus Lite server starts with every collection released."""
    text = str(exc)
    return isinstance(exc, MilvusException) and (getattr(exc, "code", None) == 101 or "'released'" in text
                                                 or "not loaded" in text.lower())


class CollectionNotFoundError(LookupError):
    """The named collection (or alias) does not exist."""


@dataclass(frozen=True)
class _Info:
    physical: str
    dim: int
    metric: str
    fields: frozenset[str]
    extra_fields: tuple[str, ...]
    document_id_bytes: int = ms.ID_LIMITS["document_id"]
    """The byte limit of the collection's ``document_id`` column (64 in collections created before
    document keys held the kb)."""

    @property
    def output_fields(self) -> list[str]:
        return [f for f in ms.OUTPUT_FIELDS if f in self.fields]


def _max_length(field: Any, default: int) -> int:
    """The ``max_length`` of a VARCHAR field as ``describe_collection`` gives it (``default`` if absent)."""
    try:
        return int(field["params"]["max_length"])
    except (KeyError, TypeError, ValueError):
        return default


def _check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise ValueError(
            f"invalid collection name {name!r}: use 1-200 letters, digits or '_', not starting "
            "with a digit"
        )
    return name


class MilvusVectorStore:
    """A :class:`~eagle_rag.protocols.VectorStore` on Milvus; connects lazily on first use.

    ``uri`` is a local ``.db`` file (Milvus Lite) or ``http://host:19530`` (a server). On a
    server ``db_name`` selects a database, created when missing; Milvus Lite ignores it (one
    file is one store; Lite would otherwise need the database created first). All client calls
    are serialised by one lock, so an instance can be shared between threads.
    """

    def __init__(self, uri: str | Path, *, db_name: str = "", token: str = "",
                 timeout: float | None = None, ef_search: int = 64, batch_size: int = 512) -> None:
        """Store the settings only; nothing connects until first use.

        Raises:
            ValueError: when ``uri`` is neither a ``.db`` file nor a server address.
        """
        self._uri = str(uri)
        if self._uri.endswith(".db"):
            self._uri = str(Path(self._uri).expanduser())
        elif not self._uri.startswith(_SERVER_SCHEMES):
            raise ValueError(
                f"invalid Milvus uri {self._uri!r}: use a Milvus Lite file ending in '.db' or a "
                "server address (http://host:19530, https://, tcp://, unix:)"
            )
        self._db_name = db_name
        self._token = token
        self._timeout = timeout
        self._ef_search = ef_search
        self._batch_size = batch_size
        self._lock = threading.RLock()
        self._client: MilvusClient | None = None
        self._capabilities: Capabilities | None = None
        self._infos: dict[str, _Info] = {}

    @property
    def is_lite(self) -> bool:
        """True when ``uri`` is a local Milvus Lite file rather than a server address."""
        return self._uri.endswith(".db")

    @property
    def client(self) -> MilvusClient:
        """The ``MilvusClient``, connected on first access (for admin and tests: calls made
        directly on it are not serialised by the store's lock)."""
        with self._lock:
            if self._client is None:
                if self.is_lite:
                    Path(self._uri).parent.mkdir(parents=True, exist_ok=True)
                try:
                    client = MilvusClient(uri=self._uri, token=self._token, timeout=self._timeout,
                                          grpc_options=GRPC_OPTIONS, dedicated=True)
                    if self._db_name and not self.is_lite:
                        if self._db_name not in client.list_databases():
                            client.create_database(self._db_name)
                        # a new client on the database: use_database calls DescribeDatabase (2.4+), and
                        # Milvus 2.3 answers UNIMPLEMENTED
                        client.close()
                        client = MilvusClient(uri=self._uri, token=self._token, timeout=self._timeout,
                                              db_name=self._db_name, grpc_options=GRPC_OPTIONS,
                                              dedicated=True)
                    capabilities = read_capabilities(client)
                except MilvusException as exc:
                    if is_login_refused(exc):
                        raise login_refused(self._uri, bool(self._token)) from exc
                    raise
                self._client, self._capabilities = client, capabilities
                if self.is_lite:
                    _lite_users(self._uri, +1)
            return self._client

    @property
    def uri(self) -> str:
        return self._uri

    @property
    def capabilities(self) -> Capabilities:
        """What the server supports, read from its version when the client connected (connects)."""
        with self._lock:
            self.client  # noqa: B018 - connect
            assert self._capabilities is not None
            return self._capabilities

    def require(self, feature: Feature, setting: str = "") -> None:
        """Raise :class:`~eagle_rag.errors.ServerUnsupported` unless the server has ``feature``."""
        self.capabilities.require(feature, self._uri, setting)

    # ------------------------------------------------------------------ collections

    def has_collection(self, name: str) -> bool:
        """Return True when ``name`` exists as a collection or an alias."""
        with self._lock:
            return bool(self.client.has_collection(_check_name(name)))

    def physical_name(self, name: str) -> str:
        """Return the physical collection behind the logical ``name``.

        Raises:
            CollectionNotFoundError: when ``name`` does not exist.
        """
        return self._info(name).physical

    def ensure_collection(self, name: str, dim: int, extra_fields: Sequence[str] = (),
                          metric: str = "COSINE") -> None:
        """Create ``name`` if missing, or add the missing ``extra_fields`` to it (online).

        Raises:
            ValueError: for an invalid name, field, metric or dimension, or when an existing
                collection has another dimension or metric.
        """
        _check_name(name)
        metric = ms.check_metric(metric)
        extras = ms.check_extra_fields(extra_fields)
        if dim <= 0:
            raise ValueError(f"dimension must be positive, got {dim}")
        with self._lock:
            client = self.client
            if not client.has_collection(name):
                physical = f"{name}__v1"
                if not client.has_collection(physical):
                    ms.create_physical(client, physical, dim, metric, extras, self.capabilities.scalar_index)
                client.create_alias(physical, name)
                self._infos.pop(name, None)
                return
            info = self._info(name)
            if info.dim != dim or info.metric != metric:
                raise ValueError(
                    f"collection {name!r} has dim {info.dim} and metric {info.metric}; "
                    f"asked for dim {dim} and metric {metric}"
                )
            missing = [f for f in extras if f not in info.fields]
            if missing:
                self._add_fields(name, info, missing)

    def drop_collection(self, name: str) -> None:
        """Drop the alias ``name`` and its physical collection (no-op when missing)."""
        with self._lock:
            client = self.client
            if not client.has_collection(_check_name(name)):
                return
            physical = self._info(name).physical
            if physical != name:
                client.drop_alias(name)
            client.drop_collection(physical)
            self._infos.pop(name, None)

    def new_version(self, name: str, dim: int) -> str:
        """Create an empty physical collection ``<name>__v<n>`` (n one above every version there is) with the
        metric and extra fields of ``name`` and ``dim``-d vectors, next to the one ``name`` points at; returns
        its name. Searches of ``name`` are not affected until :meth:`point_alias`."""
        info = self._info(name)
        with self._lock:
            pattern = re.compile(rf"{re.escape(name)}__v(\d+)")
            versions = [int(m.group(1)) for c in self.client.list_collections() if (m := pattern.fullmatch(c))]
            physical = f"{name}__v{max(versions, default=1) + 1}"
            ms.create_physical(self.client, physical, dim, info.metric, info.extra_fields,
                               self.capabilities.scalar_index)
            return physical

    def point_alias(self, name: str, physical: str) -> None:
        """Point the logical ``name`` at the physical collection ``physical`` (one alias change: a search
        sees either the old collection or the new one)."""
        with self._lock:
            self.client.alter_alias(_check_name(physical), _check_name(name))
            self._infos.pop(name, None)

    def drop_physical(self, physical: str) -> None:
        """Drop one physical collection that no alias points at (no-op when missing)."""
        with self._lock:
            if self.client.has_collection(_check_name(physical)):
                self.client.drop_collection(physical)
            self._infos.pop(physical, None)

    def _info(self, name: str) -> _Info:
        with self._lock:
            cached = self._infos.get(name)
            if cached is not None:
                return cached
            client = self.client
            if not client.has_collection(_check_name(name)):
                raise CollectionNotFoundError(
                    f"collection {name!r} does not exist; call ensure_collection first"
                )
            desc = client.describe_collection(name)
            physical = str(desc["collection_name"])
            fields = {str(f["name"]): f for f in desc["fields"]}
            index = client.describe_index(physical, "vector")
            dim = int(fields["vector"]["params"]["dim"])
            state = client.get_load_state(physical)["state"]
            if "Loaded" not in str(state):
                client.load_collection(physical)
            info = _Info(
                physical=physical, dim=dim, metric=str(index.get("metric_type", "COSINE")).upper(),
                fields=frozenset(fields),
                extra_fields=tuple(f for f in fields if f not in ms.BASE_FIELDS),
                document_id_bytes=_max_length(fields.get("document_id"), ms.ID_LIMITS["document_id"]),
            )
            self._infos[name] = info
            return info

    def _add_fields(self, name: str, info: _Info, missing: list[str]) -> None:
        """Add nullable VARCHAR ``missing`` fields, filled from each row's metadata JSON.

        A server gets ``add_collection_field`` plus an in-place backfill; Milvus Lite (whose
        ``add_collection_field`` is UNIMPLEMENTED) and servers without it get a copy migration
        into ``<name>__v<n+1>`` and an alias swap (pause ingestion meanwhile).
        """
        self._infos.pop(name, None)
        if not self.is_lite and ms.add_fields_online(self.client, name, missing,
                                                     self._batch_size):
            return
        ms.migrate_by_copy(self.client, name, info.physical, info.dim, info.metric,
                           (*info.extra_fields, *missing), missing, self._batch_size,
                           self.capabilities.scalar_index)

    # ------------------------------------------------------------------ data

    def upsert(self, collection: str, chunks: Sequence[Chunk], vectors: Sequence[Vector]) -> int:
        """Insert or replace ``chunks`` (by id) with their ``vectors``; returns rows written.

        Duplicate ids in one call keep the last occurrence.

        Raises:
            ValueError: on a length mismatch, a wrong vector dimension, a non-finite value, an
                identifier field over its limit or metadata that is not JSON-serialisable.
            CollectionNotFoundError: when the collection does not exist.
        """
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        if not chunks:
            return 0
        with self._lock:
            info = self._info(collection)
            rows: dict[str, dict[str, Any]] = {}
            for chunk, vector in zip(chunks, vectors, strict=True):
                if len(vector) != info.dim:
                    raise ValueError(
                        f"chunk {chunk.id!r}: vector has dim {len(vector)}, collection "
                        f"{collection!r} expects {info.dim}"
                    )
                if len(chunk.document_id.encode("utf-8")) > info.document_id_bytes:
                    raise ValueError(f"chunk {chunk.id!r}: the document key {chunk.document_id!r} is longer than the "
                                     f"{info.document_id_bytes} bytes collection {collection!r} was created with "
                                     "(before document keys held the kb name); use a shorter kb name")
                values = [float(x) for x in vector]
                if not all(math.isfinite(x) for x in values):
                    raise ValueError(f"chunk {chunk.id!r}: vector has a NaN or infinite value")
                rows[chunk.id] = ms.chunk_to_row(chunk, values, info.extra_fields, info.fields)
            batch = list(rows.values())
            for start in range(0, len(batch), self._batch_size):
                self.client.upsert(collection, batch[start : start + self._batch_size])
            return len(batch)

    def search(self, collection: str, vector: Vector, top_k: int,
               flt: StoreFilter | None = None) -> list[ScoredId]:
        """Return up to ``top_k`` nearest chunks, best first.

        The score is the similarity (COSINE: cosine similarity, IP: inner product) or, for L2,
        the negated squared distance, so higher is always better.

        Raises:
            ValueError: for a wrong dimension or ``top_k`` above 16384.
            InvalidFilterError: for an unusable filter value.
            CollectionNotFoundError: when the collection does not exist.
        """
        if top_k <= 0:
            return []
        if top_k > MAX_TOP_K:
            raise ValueError(f"top_k {top_k} is above the Milvus limit {MAX_TOP_K}")
        expr = build_milvus_filter(flt)
        with self._lock:
            info = self._info(collection)
            if len(vector) != info.dim:
                raise ValueError(f"query vector has dim {len(vector)}, expected {info.dim}")
            result = self._loaded(collection, lambda: self.client.search(
                collection, data=[[float(x) for x in vector]], filter=expr, limit=top_k,
                output_fields=info.output_fields, anns_field="vector",
                search_params={"metric_type": info.metric,
                               "params": {"ef": max(top_k, self._ef_search)}},
            ))
        sign = -1.0 if info.metric == "L2" else 1.0
        return [
            ScoredId(id=str(hit["id"]), score=sign * float(hit["distance"]),
                     chunk=ms.row_to_chunk({**hit["entity"], "id": hit["id"]}))
            for hit in result[0]
        ]

    def _loaded(self, collection: str, call: Callable[[], _T]) -> _T:
        """``call()``; run once more after loading ``collection`` when the server had released it."""
        try:
            return call()
        except MilvusException as exc:
            if not is_released(exc):
                raise
            self._infos.pop(collection, None)
            self._info(collection)  # loads what is not loaded
            return call()

    def flush(self, collection: str) -> None:
        """Seal the collection's in-memory rows into indexed segments (call after a bulk ingest:
        on Milvus Lite, unflushed rows are searched by a slow brute-force snapshot)."""
        with self._lock:
            self._info(collection)
            self.client.flush(collection)

    def delete_document(self, collection: str, document_id: str) -> int:
        """Delete every chunk of ``document_id``; returns how many were deleted."""
        with self._lock:
            ids = sorted(self.chunk_ids_for_document(collection, document_id))
            for start in range(0, len(ids), self._batch_size):
                self.client.delete(collection, ids=ids[start : start + self._batch_size])
            return len(ids)

    def count(self, collection: str, flt: StoreFilter | None = None) -> int:
        """Return the number of chunks in ``collection`` that pass ``flt``."""
        expr = build_milvus_filter(flt)
        with self._lock:
            self._info(collection)
            return self._loaded(collection, lambda: ms.count_rows(self.client, collection, expr))

    def has_rows(self, collection: str, flt: StoreFilter | None = None) -> bool:
        """Return True when some chunk of ``collection`` passes ``flt`` (stops at the first one)."""
        expr = build_milvus_filter(flt)
        with self._lock:
            self._info(collection)
            return ms.any_row(self.client, collection, expr)

    def chunk_ids_for_document(self, collection: str, document_id: str) -> set[str]:
        """Return the ids of every chunk of ``document_id`` (empty set when none)."""
        expr = f"document_id == {milvus_string_literal(document_id)}"
        with self._lock:
            self._info(collection)
            return {str(row["id"]) for row in ms.iterate(self.client, collection, expr, ["id"])}

    def delete_chunks(self, collection: str, chunk_ids: Sequence[str]) -> int:
        """Delete the chunks with these ids from ``collection``; returns how many ids were given."""
        ids = sorted({i for i in chunk_ids if i})
        with self._lock:
            self._info(collection)
            for start in range(0, len(ids), self._batch_size):
                self.client.delete(collection, ids=ids[start : start + self._batch_size])
        return len(ids)

    def chunk_refs(self, collection: str, flt: StoreFilter | None = None) -> Iterator[tuple[str, str]]:
        """Yield ``(chunk id, document id)`` of every chunk in ``collection`` that passes ``flt``."""
        expr = build_milvus_filter(flt)
        with self._lock:
            self._info(collection)
            rows = [(str(r["id"]), str(r["document_id"]))
                    for r in ms.iterate(self.client, collection, expr, ["id", "document_id"])]
        yield from rows

    def get_chunks(self, collection: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        """The stored chunks with these ids, in the order of ``chunk_ids`` (unknown ids are left out)."""
        return [ms.row_to_chunk(row) for row in self._rows(collection, chunk_ids, with_vector=False)]

    def get_rows(self, collection: str, chunk_ids: Sequence[str]) -> list[tuple[Chunk, Vector]]:
        """The stored chunks with these ids and their vectors, in the order of ``chunk_ids`` (unknown
        ids are left out): what a copy under new ids needs without embedding again."""
        return [(ms.row_to_chunk(row), [float(x) for x in row["vector"]])
                for row in self._rows(collection, chunk_ids, with_vector=True)]

    def _rows(self, collection: str, chunk_ids: Sequence[str], *, with_vector: bool) -> list[dict[str, Any]]:
        ids = list(dict.fromkeys(i for i in chunk_ids if i))
        if not ids:
            return []
        with self._lock:
            info = self._info(collection)
            fields = [*info.output_fields, "vector"] if with_vector else info.output_fields
            rows = [row for start in range(0, len(ids), self._batch_size)
                    for row in self.client.get(collection, ids=ids[start:start + self._batch_size],
                                               output_fields=fields)]
        found = {str(row["id"]): row for row in rows}
        return [found[i] for i in ids if i in found]

    def close(self) -> None:
        """Close the client; a later call reconnects."""
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None
                if self.is_lite and _lite_users(self._uri, -1) == 0:
                    _release_lite_server(self._uri)
            self._infos.clear()


_LITE_USERS: dict[str, int] = {}
_LITE_USERS_LOCK = threading.Lock()


def _lite_users(path: str, delta: int) -> int:
    """Count the open stores of one Milvus Lite file in this process; returns the new count."""
    key = os.path.abspath(path)
    with _LITE_USERS_LOCK:
        count = max(0, _LITE_USERS.get(key, 0) + delta)
        _LITE_USERS[key] = count
        return count


def _release_lite_server(path: str) -> None:
    """Stop the embedded Milvus Lite server of ``path`` so that another process may open the file."""
    try:
        from milvus_lite.server_manager import server_manager_instance
    except ImportError:  # pragma: no cover - Lite is a dependency of the embedded default
        return
    server_manager_instance.release_server(os.path.abspath(path))

"""Schema, row codec, bulk helpers and migrations of :mod:`eagle_rag.stores.milvus`.

Field limits are in UTF-8 bytes (a Milvus server counts bytes, Milvus Lite characters; bytes
are safe for both). Long ``text`` and ``path`` are truncated at a character boundary;
identifier fields over their limit are rejected.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pymilvus import DataType, MilvusClient

from eagle_rag.stores.filters import validate_kb_name
from eagle_rag.types import Chunk

TEXT_MAX_BYTES = 65535
PATH_MAX_BYTES = 2048
METADATA_MAX_BYTES = 65535
EXTRA_MAX_BYTES = 2048
HNSW_PARAMS = {"M": 16, "efConstruction": 256}
METRICS = ("COSINE", "IP", "L2")

#: identifier fields and their byte limits: a longer value is an error, never truncated. ``document_id``
#: holds the storage key ``<kb>/<id>`` (up to 64 + 1 + 64 bytes; collections created before keys were
#: scoped by kb have 64)
ID_LIMITS = {"id": 64, "document_id": 160, "kb_name": 64, "chunk_type": 32, "source_type": 64,
             "source_chunk_id": 128}
SCALAR_INDEXED = ("document_id", "kb_name", "chunk_type", "source_type")
OUTPUT_FIELDS = ("id", "text", "document_id", "kb_name", "path", "chunk_type", "source_type",
                 "source_chunk_id", "ordinal", "metadata")
BASE_FIELDS = frozenset({*OUTPUT_FIELDS, "vector"})
_FIELD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def check_metric(metric: str) -> str:
    """Return the upper-cased metric. Raises ValueError unless it is COSINE, IP or L2."""
    upper = str(metric).upper()
    if upper not in METRICS:
        raise ValueError(f"unsupported metric {metric!r}; valid: {', '.join(METRICS)}")
    return upper


def check_extra_fields(fields: Sequence[str]) -> tuple[str, ...]:
    """Return the distinct extra field names in order.

    Raises:
        ValueError: for a name that is not an identifier or that is a built-in field.
    """
    if isinstance(fields, str):
        raise ValueError("extra_fields must be a sequence of names, not one string")
    for field in fields:
        if not isinstance(field, str) or not _FIELD_RE.fullmatch(field) or field.startswith("$"):
            raise ValueError(f"invalid extra field name {field!r}")
        if field in BASE_FIELDS:
            raise ValueError(f"extra field {field!r} clashes with a built-in field")
    return tuple(dict.fromkeys(fields))


def create_physical(client: MilvusClient, name: str, dim: int, metric: str,
                    extra_fields: Sequence[str], scalar_index: str = "INVERTED") -> None:
    """Create a physical collection with the text schema, its indexes, and load it. ``scalar_index`` is
    the filter fields' index type: ``INVERTED`` (Milvus 2.4+, Lite), ``Trie`` on 2.3
    (:attr:`~eagle_rag.stores.milvus_capabilities.Capabilities.scalar_index`)."""
    schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=True)
    schema.add_field("id", DataType.VARCHAR, max_length=ID_LIMITS["id"], is_primary=True)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=dim)
    schema.add_field("text", DataType.VARCHAR, max_length=TEXT_MAX_BYTES)
    schema.add_field("document_id", DataType.VARCHAR, max_length=ID_LIMITS["document_id"])
    schema.add_field("kb_name", DataType.VARCHAR, max_length=ID_LIMITS["kb_name"],
                     default_value="default")
    schema.add_field("path", DataType.VARCHAR, max_length=PATH_MAX_BYTES)
    for field in ("chunk_type", "source_type", "source_chunk_id"):
        schema.add_field(field, DataType.VARCHAR, max_length=ID_LIMITS[field])
    schema.add_field("ordinal", DataType.INT64, default_value=0)
    schema.add_field("metadata", DataType.VARCHAR, max_length=METADATA_MAX_BYTES,
                     default_value="{}")
    for field in extra_fields:
        schema.add_field(field, DataType.VARCHAR, max_length=EXTRA_MAX_BYTES, nullable=True)
    index_params = client.prepare_index_params()
    # with pymilvus 3.0.2 the HNSW parameters must be nested, or they are silently dropped
    index_params.add_index(field_name="vector", index_type="HNSW", metric_type=metric,
                           params={"params": dict(HNSW_PARAMS)})
    for field in SCALAR_INDEXED:
        index_params.add_index(field_name=field, index_type=scalar_index)
    # Strong: a search through any replica sees every write acknowledged before it (a server's default,
    # Bounded, hides writes for a few seconds; Milvus Lite is always strong)
    client.create_collection(name, schema=schema, consistency_level="Strong")
    # sync=False: the collection is empty, and waiting polls every 0.5 s per index on Lite
    client.create_index(name, index_params, sync=False)
    client.load_collection(name)


def truncate_utf8(text: str, max_bytes: int) -> str:
    """Return ``text`` cut to at most ``max_bytes`` UTF-8 bytes, never inside a character."""
    data = text.encode("utf-8", errors="surrogatepass")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", errors="ignore")


def _identifier(chunk: Chunk, field: str, value: str) -> str:
    if len(value.encode("utf-8")) > ID_LIMITS[field]:
        raise ValueError(
            f"chunk {chunk.id!r}: {field} is longer than {ID_LIMITS[field]} bytes: {value!r}"
        )
    return value


def _extra_value(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return truncate_utf8(text, EXTRA_MAX_BYTES)


def chunk_to_row(chunk: Chunk, vector: list[float], extra_fields: Sequence[str],
                 fields: frozenset[str]) -> dict[str, Any]:
    """Return the Milvus row for ``chunk`` (only the fields the collection has).

    Raises:
        ValueError: for an empty id, an identifier over its byte limit, an invalid kb name or
            metadata that is not JSON-serialisable or longer than 65535 bytes as JSON.
    """
    if not chunk.id:
        raise ValueError("chunk id must not be empty")
    validate_kb_name(chunk.kb_name)
    try:
        metadata = json.dumps(dict(chunk.metadata), ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"chunk {chunk.id!r}: metadata is not JSON-serialisable: {exc}") from exc
    if len(metadata.encode("utf-8")) > METADATA_MAX_BYTES:
        raise ValueError(f"chunk {chunk.id!r}: metadata is over {METADATA_MAX_BYTES} bytes as JSON")
    row: dict[str, Any] = {
        "id": _identifier(chunk, "id", chunk.id),
        "vector": vector,
        "text": truncate_utf8(chunk.text, TEXT_MAX_BYTES),
        "document_id": _identifier(chunk, "document_id", chunk.document_id),
        "kb_name": chunk.kb_name,
        "path": truncate_utf8(chunk.path, PATH_MAX_BYTES),
        "chunk_type": _identifier(chunk, "chunk_type", chunk.chunk_type),
        "source_type": _identifier(chunk, "source_type", chunk.source_type),
        "source_chunk_id": _identifier(chunk, "source_chunk_id", chunk.source_chunk_id),
        "ordinal": int(chunk.ordinal),
        "metadata": metadata,
    }
    row = {k: v for k, v in row.items() if k in fields}
    for field in extra_fields:
        row[field] = _extra_value(chunk.metadata.get(field))
    return row


def _text(row: Mapping[str, Any], key: str, default: str) -> str:
    value = row.get(key)
    return default if value is None else str(value)


def row_to_chunk(row: Mapping[str, Any]) -> Chunk:
    """Rebuild a :class:`Chunk` from a row returned by search or query."""
    return Chunk(
        id=str(row["id"]),
        text=_text(row, "text", ""),
        document_id=_text(row, "document_id", ""),
        kb_name=_text(row, "kb_name", "default"),
        path=_text(row, "path", ""),
        chunk_type=_text(row, "chunk_type", "text"),
        source_type=_text(row, "source_type", "text"),
        source_chunk_id=_text(row, "source_chunk_id", ""),
        ordinal=int(row.get("ordinal") or 0),
        metadata=json.loads(_text(row, "metadata", "{}")),
    )


def iterate(client: MilvusClient, collection: str, expr: str, output_fields: list[str],
            batch_size: int = 1000) -> Iterator[dict[str, Any]]:
    """Yield every row of ``collection`` matching ``expr`` (no 16384-row query window)."""
    iterator = client.query_iterator(collection, batch_size=batch_size, filter=expr,
                                     output_fields=output_fields)
    try:
        while True:
            batch = iterator.next()
            if not batch:
                return
            yield from batch
    finally:
        iterator.close()


def count_rows(client: MilvusClient, collection: str, expr: str) -> int:
    """Return the number of rows of ``collection`` matching ``expr`` ("" = all)."""
    result = client.query(collection, filter=expr, output_fields=["count(*)"])
    return int(result[0]["count(*)"])


def any_row(client: MilvusClient, collection: str, expr: str) -> bool:
    """True when some row of ``collection`` matches ``expr`` ("" = any row); stops at the first match.

    Cheaper than :func:`count_rows`: Milvus ends a limit-1 query at the first matching row, where
    ``count(*)`` scans every row of the collection.
    """
    return bool(client.query(collection, filter=expr, output_fields=["id"], limit=1))


def backfill(row: dict[str, Any], fields: Sequence[str]) -> bool:
    """Fill empty extra ``fields`` of ``row`` from its metadata JSON; returns True if any changed."""
    metadata = json.loads(row.get("metadata") or "{}")
    changed = False
    for field in fields:
        if row.get(field) is None and metadata.get(field) is not None:
            row[field] = _extra_value(metadata[field])
            changed = True
    return changed


def copy_rows(client: MilvusClient, source: str, target: str, batch_size: int,
              new_fields: Sequence[str] = ()) -> int:
    """Copy every row (vectors and dynamic fields included) from ``source`` into ``target``.

    ``new_fields`` are filled from each row's metadata JSON. ``target`` may equal ``source``
    (an in-place backfill on a server: only changed rows are upserted, which is safe while
    iterating because the query iterator reads one MVCC snapshot). Returns the rows written.
    """
    written = 0
    batch: list[dict[str, Any]] = []
    in_place = source == target
    for row in iterate(client, source, "", ["*"], batch_size):
        changed = backfill(row, new_fields)
        if in_place and not changed:
            continue
        batch.append(row)
        if len(batch) >= batch_size:
            written += _write(client, target, batch, in_place)
            batch = []
    if batch:
        written += _write(client, target, batch, in_place)
    return written


def _write(client: MilvusClient, target: str, batch: list[dict[str, Any]], upsert: bool) -> int:
    if upsert:
        client.upsert(target, batch)
    else:
        client.insert(target, batch)
    return len(batch)


def add_fields_online(client: MilvusClient, name: str, fields: Sequence[str],
                      batch_size: int) -> bool:
    """Add ``fields`` with ``add_collection_field`` and backfill them from the metadata JSON.

    Returns False (nothing changed) when the server does not implement the call.
    """
    try:
        for field in fields:
            client.add_collection_field(name, field, DataType.VARCHAR,
                                        max_length=EXTRA_MAX_BYTES, nullable=True)
    except Exception as exc:
        text = repr(exc).upper()
        if "UNIMPLEMENTED" in text or "NOT IMPLEMENTED" in text:
            return False
        raise
    copy_rows(client, name, name, batch_size, fields)
    return True


def migrate_by_copy(client: MilvusClient, name: str, physical: str, dim: int, metric: str,
                    extra_fields: Sequence[str], new_fields: Sequence[str],
                    batch_size: int, scalar_index: str = "INVERTED") -> str:
    """Copy ``physical`` into ``<name>__v<n+1>`` with ``extra_fields``, then point ``name`` at it.

    ``new_fields`` are filled from each row's metadata JSON; the old physical collection is
    dropped. Returns the new physical name.

    Raises:
        RuntimeError: when the copy has fewer rows than the source (the source is kept).
    """
    match = re.fullmatch(rf"{re.escape(name)}__v(\d+)", physical)
    target = f"{name}__v{int(match.group(1)) + 1 if match else 2}"
    if client.has_collection(target):  # left over by an interrupted migration
        client.drop_collection(target)
    create_physical(client, target, dim, metric, extra_fields, scalar_index)
    copy_rows(client, physical, target, batch_size, new_fields)
    expected, got = count_rows(client, physical, ""), count_rows(client, target, "")
    if got != expected:
        client.drop_collection(target)
        raise RuntimeError(f"migration of {name!r} copied {got} of {expected} rows; kept the old one")
    if physical == name:  # a plain collection, not yet behind an alias
        client.drop_collection(name)
        client.create_alias(target, name)
    else:
        client.alter_alias(target, name)
        client.drop_collection(physical)
    return target

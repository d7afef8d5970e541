"""Moving documents written before identity was (kb, id) to their kb-scoped storage keys.

An index written before this change names a document by its own id alone (``abs-008``): the registry
row, ``document_id`` of every chunk (vector collections, their sentence rows, the lexical indexes)
and of its token vectors. Such a legacy document is still found by search and by id, and an ingest
of the same id into the same kb replaces it; :func:`migrate` moves it to its key
(:func:`eagle_rag.types.document_key`, ``demo/abs-008``) without embedding anything again:

1. every row of a batch of documents is read back with its vector (:meth:`MilvusVectorStore.get_rows`) and
   written under a new chunk id (:func:`migrated_chunk_id`: a hash of the key and the old id, with
   the old content version kept) and the new ``document_id``; sentence rows follow their chunk;
   the lexical indexes get the same chunks, token vectors the same arrays;
2. the registry gets the records under their keys (same content hash, status and timestamps), then
   the legacy records go, then every legacy row.

The biomed compound index keeps the entries it wrote under the old ids; its search finds their
documents under the new keys (``eagle_rag_biomed.chem.store.migrated_record``).

A crash midway leaves both copies; running the migration again finishes it (a legacy record whose
key the registry already holds is simply removed). ``eagle-rag doctor`` reports legacy documents
(finding ``legacy``) and ``eagle-rag doctor --repair`` runs this.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from eagle_rag.ingest.chunker import chunk_version
from eagle_rag.ingest.sentences import PARENT_KEY, parent_chunk_id
from eagle_rag.ingest.writer import collection_names, vector_collections
from eagle_rag.protocols import DocumentRecord, StoreFilter
from eagle_rag.stores.token_vectors import TokenVectors
from eagle_rag.types import Chunk, document_key, is_legacy_key

if TYPE_CHECKING:
    from eagle_rag.kernel.runtime import Runtime as Engine

PAGE = 5000
BATCH = 500
"""Documents (and rows per store call) moved at a time."""


def legacy_records(engine: Engine) -> Iterator[DocumentRecord]:
    """Every registry record stored under an unscoped id (before identity was (kb, id))."""
    offset = 0
    while True:
        page = engine.registry.list(limit=PAGE, offset=offset)
        yield from (r for r in page if is_legacy_key(r.id))
        if len(page) < PAGE:
            return
        offset += PAGE


def migrated_chunk_id(old_id: str, key: str) -> str:
    """The id of a legacy chunk once its document is named by ``key``: 32 hex digits of the key and
    the old id, with the old content version (``-<12 hex>``) and sentence ordinal (``~s<n>``) kept,
    so that searches and ``eagle-rag doctor`` read it as they read the old one."""
    parent = parent_chunk_id(old_id)
    sentence = old_id[len(parent):]
    version = chunk_version(parent)
    base = hashlib.sha256(f"{key}\x1f{parent}".encode()).hexdigest()[:32]
    return f"{base}-{version}{sentence}" if version else f"{base}{sentence}"


def _moved(chunk: Chunk, key: str) -> Chunk:
    metadata = dict(chunk.metadata)
    if PARENT_KEY in metadata:
        metadata[PARENT_KEY] = migrated_chunk_id(str(metadata[PARENT_KEY]), key)
    source = chunk.source_chunk_id
    if source and (source == chunk.id or source == parent_chunk_id(chunk.id)):
        source = migrated_chunk_id(source, key)
    return dataclasses.replace(chunk, id=migrated_chunk_id(chunk.id, key), document_id=key,
                               source_chunk_id=source, metadata=metadata)


def _parts(items: list[str], size: int = BATCH) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def migrate_batch(engine: Engine, records: list[DocumentRecord]) -> int:
    """Move a batch of legacy documents to their keys (module docstring); returns the rows written.

    A legacy document whose key the registry already holds (a re-run after a crash) is only removed.
    """
    ctx = engine.ctx
    todo = {r.id: document_key(r.kb_name, r.id) for r in records
            if engine.registry.get(document_key(r.kb_name, r.id)) is None}
    flt = StoreFilter(document_ids=tuple(r.id for r in records))
    written = 0
    old_rows: dict[str, list[str]] = {}
    read: dict[str, list[Chunk]] = {}
    for collection in vector_collections(ctx):
        if not engine.vectors.has_collection(collection):
            continue
        refs = list(engine.vectors.chunk_refs(collection, flt))
        old_rows[collection] = [chunk_id for chunk_id, _ in refs]
        for part in _parts([chunk_id for chunk_id, doc in refs if doc in todo]):
            rows = engine.vectors.get_rows(collection, part)
            moved = [_moved(chunk, todo[chunk.document_id]) for chunk, _ in rows]
            written += engine.vectors.upsert(collection, moved, [vector for _, vector in rows])
            read.setdefault(collection, []).extend(chunk for chunk, _ in rows)
    for collection in collection_names(ctx):
        if not engine.has_lexical_index(collection):
            continue
        lexical = engine.lexical_for(collection)
        held = {chunk_id for chunk_id, _ in lexical.chunk_refs(flt)}
        chunks = [_moved(c, todo[c.document_id]) for c in read.get(collection, []) if c.id in held]
        written += lexical.add(chunks) if chunks else 0
        if held:
            lexical.delete_chunks(sorted(held))
        lexical.commit()
    token_refs = engine.tokens.chunk_refs(list(flt.document_ids))
    moving = [chunk_id for chunk_id, doc in token_refs if doc in todo]
    for part in _parts(moving):
        engine.tokens.put([TokenVectors(migrated_chunk_id(t.chunk_id, todo[t.document_id]), todo[t.document_id],
                                        t.key, t.vectors) for t in engine.tokens.get(part).values()])
    engine.registry.upsert_many([dataclasses.replace(r, id=todo[r.id]) for r in records if r.id in todo])
    for record in records:
        engine.registry.delete(record.id)
    for collection, chunk_ids in old_rows.items():
        for part in _parts(chunk_ids):
            engine.vectors.delete_chunks(collection, part)
    engine.tokens.delete_chunks(chunk_id for chunk_id, _ in token_refs)
    return written


def migrate(engine: Engine) -> list[str]:
    """Move every legacy document to its key, :data:`BATCH` documents at a time; returns one action
    line (empty when there was none)."""
    records = list(legacy_records(engine))
    if not records:
        return []
    rows = sum(migrate_batch(engine, records[start:start + BATCH]) for start in range(0, len(records), BATCH))
    engine.flush()
    return [f"moved {len(records)} documents to kb-scoped keys ({rows} rows copied, nothing embedded again)"]

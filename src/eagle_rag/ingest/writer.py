"""The write phase of ingest: new version first, then the registry flip, then the old version goes.

For one batch of prepared documents:

1. documents that no search serves yet (new, or left ``pending``/``failed`` by an earlier run) are
   recorded ``pending``, all in one transaction, so an interrupted run is visible to ``eagle-rag
   doctor`` and is redone by the next ingest;
2. the chunks are embedded and written to the vector store and the lexical index (committed), with
   their sentence rows and late-interaction token vectors where the settings ask for them. Chunk
   ids carry the document's content version (:func:`eagle_rag.ingest.chunker.content_version`),
   so the new version of a changed document lands next to the old one, which searches keep
   serving meanwhile (they only show chunks of the version the registry names);
3. the registry flips every document of the batch to ``complete`` with its new content hash, in one
   transaction: searches switch from the whole old version to the whole new one;
4. chunks of other versions are deleted (:meth:`BatchWriter.remove_stale`), with their sentence rows
   and token vectors. A crash before this step leaves invisible stale chunks that ``eagle-rag doctor
   --repair`` removes.

A failure in steps 1-3 rolls the batch back: a document whose old version is still served keeps it
(only the new chunks are removed); any other document is removed from the stores and marked failed.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from eagle_rag.context import HookContext
from eagle_rag.ingest.dispatch import embed
from eagle_rag.ingest.sentences import SENTENCE_SUFFIX, parent_chunk_id, sentence_chunks, sentence_collection
from eagle_rag.protocols import DocumentRecord, StoreFilter
from eagle_rag.retrieve.safe_hooks import call_hook
from eagle_rag.stores.token_vectors import TokenVectors
from eagle_rag.types import Chunk, ChunkClassification, DocumentStatus, ParsedDocument

log = logging.getLogger(__name__)
ProgressFn = Callable[[int, int], None]


@dataclass
class Prepared:
    """One document ready to write: its content hash, the registry record it replaces, its chunks."""

    doc: ParsedDocument
    digest: str
    old: DocumentRecord | None
    items: list[tuple[Chunk, ChunkClassification]]

    @property
    def served(self) -> bool:
        """True when searches serve an older version of the document (its record is complete)."""
        return self.old is not None and self.old.status is DocumentStatus.COMPLETE

    @property
    def chunk_ids(self) -> set[str]:
        return {chunk.id for chunk, _ in self.items}

    def record(self, status: DocumentStatus, namespace: str, now: datetime) -> DocumentRecord:
        doc = self.doc
        return DocumentRecord(id=doc.document_id, kb_name=doc.kb_name, name=doc.name, source_uri=doc.source_uri,
                              content_hash=self.digest, status=status, chunk_count=len(self.chunk_ids),
                              tags=doc.tags, namespace=namespace, created_at=now, updated_at=now)


@dataclass
class Embedded:
    """The vectors of one batch: per collection its chunks and their vectors, the sentence rows and
    theirs, and the late-interaction token vectors (:meth:`BatchWriter.embed`)."""

    chunks: list[tuple[str, list[Chunk], list[list[float]]]] = field(default_factory=list)
    sentences: list[tuple[str, list[Chunk], list[list[float]]]] = field(default_factory=list)
    tokens: list[TokenVectors] = field(default_factory=list)

    def only(self, document_ids: set[str]) -> Embedded:
        """The rows of the documents ``document_ids`` alone (a batch less the documents left out)."""
        def keep(rows: list[tuple[str, list[Chunk], list[list[float]]]]) -> list[tuple[str, list[Chunk],
                                                                                       list[list[float]]]]:
            out = []
            for collection, chunks, vecs in rows:
                kept = [(c, v) for c, v in zip(chunks, vecs, strict=True) if c.document_id in document_ids]
                if kept:
                    out.append((collection, [c for c, _ in kept], [v for _, v in kept]))
            return out
        return Embedded(keep(self.chunks), keep(self.sentences),
                        [t for t in self.tokens if t.document_id in document_ids])


def collection_names(ctx: HookContext) -> list[str]:
    """Every collection the encoder registry knows (core and plugins)."""
    return [profile.name for profile in ctx.services.encoders.collections()]


def vector_collections(ctx: HookContext) -> list[str]:
    """The collections of the vector store that hold rows of documents: every registry collection
    and, where sentence rows are kept, its companion (:mod:`eagle_rag.ingest.sentences`)."""
    names = collection_names(ctx)
    return names + [sentence_collection(c) for c in names if c in ctx.settings.ingest.sentence_collections]


def embed_sentence_rows(ctx: HookContext, pm: Any, encoder: str,
                        chunks: Sequence[Chunk]) -> tuple[list[Chunk], list[list[float]]]:
    """The sentence rows of ``chunks`` (:func:`eagle_rag.ingest.sentences.sentence_chunks`) and their
    vectors, embedded with ``encoder`` in batches of ``encoders.batch_size``."""
    rows = sentence_chunks(chunks)
    step = ctx.settings.encoders.batch_size
    return rows, [v for i in range(0, len(rows), step) for v in embed(ctx, pm, encoder, rows[i:i + step])]


def embed_token_rows(ctx: HookContext, pm: Any, collection: str, chunks: Sequence[Chunk]) -> list[TokenVectors]:
    """The late-interaction token vectors of ``chunks`` (``eagle_embed_tokens``, in batches of
    ``encoders.batch_size``) when ``collection`` is one of ``ingest.token_vector_collections`` and the
    token store is there; else none."""
    if collection not in ctx.settings.ingest.token_vector_collections or not ctx.services.has("tokens"):
        return []
    step = ctx.settings.encoders.batch_size
    rows: list[TokenVectors] = []
    for i in range(0, len(chunks), step):
        rows.extend(call_hook(ctx, pm.hook.eagle_embed_tokens, None, collection=collection,
                              chunks=chunks[i:i + step]) or [])
    return rows


def upsert_sentence_rows(ctx: HookContext, collection: str, rows: Sequence[Chunk],
                         vectors: Sequence[list[float]]) -> int:
    """Write sentence rows of ``collection`` to its companion collection (created with the
    collection's profile when missing); returns the rows written."""
    profile = ctx.services.encoders.collection(collection)
    companion = sentence_collection(collection)
    ctx.services.vectors.ensure_collection(companion, profile.dim, profile.extra_output_fields, profile.metric)
    return int(ctx.services.vectors.upsert(companion, rows, vectors))


class BatchWriter:
    """Writes batches of :class:`Prepared` documents through the UPSERT hook and the stores."""

    def __init__(self, pm: Any) -> None:
        self.pm = pm

    def write(self, ctx: HookContext, batch: Sequence[Prepared], done: int, total: int,
              progress: ProgressFn | None, *, embedded: Embedded | None = None) -> int:
        """Steps 1-3 of the module docstring, with the vectors of ``embedded`` when given (embedded
        elsewhere, e.g. by a Ray actor, from this very batch: :meth:`embed`), else embedded here.
        Returns the chunks embedded so far (for progress)."""
        services = ctx.services
        registry, vectors, encoders = services.registry, services.vectors, services.encoders
        now = datetime.now(UTC)
        registry.upsert_many([p.record(DocumentStatus.PENDING, ctx.namespace, now) for p in batch if not p.served])
        if embedded is None:
            embedded, done = self.embed(ctx, batch, done, total, progress)
        for collection, chunks, vecs in embedded.chunks:
            profile = encoders.collection(collection)
            vectors.ensure_collection(collection, profile.dim, profile.extra_output_fields, profile.metric)
            written = call_hook(ctx, self.pm.hook.eagle_upsert_vectors, None, collection=collection,
                                chunks=chunks, vectors=vecs)
            if written is None:
                vectors.upsert(collection, chunks, vecs)
            services.lexical_for(collection).add(chunks)
        for collection, rows, row_vecs in embedded.sentences:
            upsert_sentence_rows(ctx, collection, rows, row_vecs)
        if embedded.tokens:
            services.tokens.put(embedded.tokens)
        for collection in dict.fromkeys(c for c, _, _ in embedded.chunks):
            services.lexical_for(collection).commit()
        registry.upsert_many([p.record(DocumentStatus.COMPLETE, ctx.namespace, now) for p in batch])
        return done

    def embed(self, ctx: HookContext, batch: Sequence[Prepared], done: int = 0, total: int = 0,
              progress: ProgressFn | None = None) -> tuple[Embedded, int]:
        """The vectors of a batch (chunks grouped by collection and encoder, in batches of
        ``encoders.batch_size``), its sentence rows and token vectors; touches no store. Returns
        them and the chunks embedded so far. Each batch of chunks is embedded with its sentence rows
        and token vectors before ``progress`` counts it, so the count moves with the work (the biomed
        sample's sentence and token passes took twice as long as its chunk vectors)."""
        groups: dict[tuple[str, str], list[Chunk]] = defaultdict(list)
        for prepared in batch:
            for chunk, decision in prepared.items:
                groups[(decision.collection, decision.encoder)].append(chunk)
        out = Embedded()
        step = ctx.settings.encoders.batch_size
        for (collection, encoder), chunks in groups.items():
            vecs: list[list[float]] = []
            rows: list[Chunk] = []
            row_vecs: list[list[float]] = []
            sentences = collection in ctx.settings.ingest.sentence_collections
            for i in range(0, len(chunks), step):
                part = chunks[i:i + step]
                vecs.extend(embed(ctx, self.pm, encoder, part))
                if sentences:
                    part_rows, part_vecs = embed_sentence_rows(ctx, self.pm, encoder, part)
                    rows.extend(part_rows)
                    row_vecs.extend(part_vecs)
                out.tokens.extend(embed_token_rows(ctx, self.pm, collection, part))
                done += len(part)
                if progress:
                    progress(done, total)
            out.chunks.append((collection, chunks, vecs))
            if sentences:
                out.sentences.append((collection, rows, row_vecs))
        return out, done

    def remove_stale(self, ctx: HookContext, batch: Sequence[Prepared]) -> int:
        """Step 4: delete every chunk of the batch's documents that is not of their new version.

        Only documents that had a registry record can have such chunks. Returns the chunks deleted.
        """
        keep = {p.doc.document_id: p.chunk_ids for p in batch if p.old is not None}
        if not keep:
            return 0
        return self._delete_where(ctx, keep, lambda chunk_id, doc_id: chunk_id not in keep[doc_id])

    def rollback(self, ctx: HookContext, prepared: Prepared, error: str) -> None:
        """Undo a failed write of one document (never raises: the failure is already reported)."""
        doc_id = prepared.doc.document_id
        try:
            if prepared.served:  # the old version stays, whole; only the new chunks go
                new_ids = prepared.chunk_ids
                self._delete_where(ctx, {doc_id: new_ids}, lambda chunk_id, _doc: chunk_id in new_ids)
                return
            self._delete_where(ctx, {doc_id: set()}, lambda _chunk, _doc: True)
            ctx.services.registry.set_status(doc_id, DocumentStatus.FAILED, error=error[:1000])
        except Exception:  # noqa: BLE001 - the failure is already being reported
            log.exception("rollback of %s failed", doc_id)

    def _delete_where(self, ctx: HookContext, docs: dict[str, set[str]],
                      doomed: Callable[[str, str], bool]) -> int:
        """Delete the chunks of ``docs`` (ids) for which ``doomed(chunk_id, document_id)`` holds."""
        services = ctx.services
        flt = StoreFilter(document_ids=tuple(sorted(docs)))
        deleted = 0
        for collection in vector_collections(ctx):
            if services.vectors.has_collection(collection):
                refs = services.vectors.chunk_refs(collection, flt)
                ids = [c for c, d in refs if d in docs and doomed(parent_chunk_id(c), d)]
                if ids:
                    removed = services.vectors.delete_chunks(collection, ids)
                    deleted += 0 if collection.endswith(SENTENCE_SUFFIX) else removed
        for collection in collection_names(ctx):
            lexical = services.lexical_for(collection)
            ids = [c for c, d in lexical.chunk_refs(flt) if d in docs and doomed(c, d)]
            if ids:
                lexical.delete_chunks(ids)
                lexical.commit()
                deleted += len(ids)
        if services.has("tokens"):
            services.tokens.delete_chunks(c for c, d in services.tokens.chunk_refs(list(docs)) if doomed(c, d))
        return deleted

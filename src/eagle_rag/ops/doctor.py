"""Consistency check of one engine: the registry against the vector store and the lexical index.

A consistent engine has, for every ``complete`` document, exactly its chunks of its current
content version in every store: in each collection the vector store and the lexical index hold
the same chunk ids, and across collections there are ``chunk_count`` of them. Findings:

- ``orphan``: chunks of a document the registry does not know, or marked ``failed``;
- ``pending``: a document left ``pending`` by an interrupted ingest (its chunks are listed too);
- ``stale``: chunks of another content version of a complete document (a crash between the
  registry flip and the clean-up of a re-ingest);
- ``missing``: a complete document whose chunks are missing from a store, or differ between the
  two stores of a collection, or do not number ``chunk_count``;
- ``sentences``: current chunks of a complete document in a collection of
  ``ingest.sentence_collections`` that have sentences but no sentence rows (the setting was turned
  on after the document was ingested, or a crash came between the two writes);
- ``tokens``: current chunks of a complete document in a collection of
  ``ingest.token_vector_collections`` without late-interaction token vectors
  (:mod:`eagle_rag.stores.token_vectors`); token vectors of chunks that no vector collection holds
  are an ``orphan`` finding (``token_vectors/tokens``);
- ``legacy``: one finding that counts the documents stored under their own id alone, written before
  document identity was (kb, id) (:mod:`eagle_rag.ops.migrate`); they are served meanwhile.

``repair`` deletes orphan and stale chunks and turns pending and broken documents into ``failed``
(their chunks removed) with the reason, so that running ``eagle-rag ingest`` on their sources
again restores them (ingest redoes every document that is not complete). It writes the missing
sentence rows and token vectors from the stored chunks (embedding them), so no re-ingest is needed
for those; token vectors go with every chunk it deletes. Last, it moves legacy documents to
their kb-scoped keys (:func:`eagle_rag.ops.migrate.migrate`, no embedding). Run it while no ingest
is running: a document being ingested is ``pending`` too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from eagle_rag.ingest.chunker import chunk_version, content_version
from eagle_rag.ingest.sentences import (
    SENTENCE_SUFFIX,
    parent_chunk_id,
    sentence_collection,
    split_sentences,
)
from eagle_rag.ingest.writer import collection_names, embed_sentence_rows, embed_token_rows, upsert_sentence_rows
from eagle_rag.ops.migrate import migrate
from eagle_rag.protocols import DocumentRecord
from eagle_rag.types import DocumentStatus, is_legacy_key

if TYPE_CHECKING:
    from eagle_rag.kernel.runtime import Runtime as Engine

STORES = ("vectors", "lexical")
LEGACY = "legacy"
"""The finding that counts documents stored before identity was (kb, id)."""
TOKEN_ROWS = "token_vectors/tokens"
"""Where a finding names token vectors that belong to no collection's chunk."""
PAGE = 5000
Refs = dict[str, dict[str, dict[str, set[str]]]]  # collection -> store -> document id -> chunk ids


@dataclass(frozen=True)
class Finding:
    """One inconsistency: what, which document, where, and the chunk ids concerned."""

    kind: str
    document_id: str
    detail: str
    chunks: dict[str, list[str]] = field(default_factory=dict)  # "collection/store" -> chunk ids

    @property
    def chunk_count(self) -> int:
        return sum(len(ids) for ids in self.chunks.values())


@dataclass
class DoctorReport:
    documents: dict[str, int]
    chunks: dict[str, dict[str, int]]
    findings: list[Finding] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    repaired: bool = False

    @property
    def ok(self) -> bool:
        """True when nothing was found, or everything found was repaired."""
        return not self.findings or self.repaired

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = defaultdict(int)
        for finding in self.findings:
            out[finding.kind] += 1
        return dict(out)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "repaired": self.repaired, "documents": self.documents, "chunks": self.chunks,
                "finding_counts": self.counts(), "findings": [asdict(f) for f in self.findings],
                "actions": self.actions}


def _records(engine: Engine) -> Iterator[DocumentRecord]:
    offset = 0
    while True:
        page = engine.registry.list(limit=PAGE, offset=offset)
        yield from page
        if len(page) < PAGE:
            return
        offset += PAGE


def _refs(engine: Engine) -> Refs:
    refs: Refs = {}
    for collection in collection_names(engine.ctx):
        stores: dict[str, dict[str, set[str]]] = {s: defaultdict(set) for s in STORES}
        if engine.vectors.has_collection(collection):
            for chunk_id, doc_id in engine.vectors.chunk_refs(collection):
                stores["vectors"][doc_id].add(chunk_id)
        if engine.has_lexical_index(collection):
            for chunk_id, doc_id in engine.lexical_for(collection).chunk_refs():
                stores["lexical"][doc_id].add(chunk_id)
        refs[collection] = stores
    return refs


def _where(refs: Refs, doc_id: str, keep: Any = None) -> dict[str, list[str]]:
    """``collection/store -> sorted chunk ids`` of ``doc_id`` (only ids for which ``keep(id)`` holds)."""
    out = {}
    for collection, stores in refs.items():
        for store, docs in stores.items():
            ids = sorted(i for i in docs.get(doc_id, ()) if keep is None or keep(i))
            if ids:
                out[f"{collection}/{store}"] = ids
    return out


def _check_complete(record: DocumentRecord, refs: Refs) -> list[Finding]:
    version = content_version(record.content_hash)
    everything = _where(refs, record.id)
    found = {i for ids in everything.values() for i in ids}
    current = {i for i in found if chunk_version(i) == version} or {i for i in found if chunk_version(i) is None}
    out = []
    stale = _where(refs, record.id, lambda i: i not in current)
    if stale:
        out.append(Finding("stale", record.id, "chunks of another content version", stale))
    problems = []
    union: dict[str, set[str]] = {s: set() for s in STORES}
    for collection, stores in refs.items():
        ids = {s: stores[s].get(record.id, set()) & current for s in STORES}
        for store in STORES:
            union[store] |= ids[store]
        for store, other in (("vectors", "lexical"), ("lexical", "vectors")):
            lacking = ids[other] - ids[store]
            if lacking:
                problems.append(f"{len(lacking)} chunks missing from {collection}/{store}")
    for store in STORES:
        if len(union[store]) != record.chunk_count and not any(store in p for p in problems):
            problems.append(f"{store} holds {len(union[store])} chunks, the registry says {record.chunk_count}")
    if problems:
        out.append(Finding("missing", record.id, "; ".join(problems), _where(refs, record.id, current.__contains__)))
    return out


def check(engine: Engine) -> DoctorReport:
    """Compare the registry with every store; returns the report (nothing is changed)."""
    refs = _refs(engine)
    records = {r.id: r for r in _records(engine)}
    statuses: dict[str, int] = defaultdict(int)
    for record in records.values():
        statuses[record.status.value] += 1
    chunk_counts = {c: {s: sum(map(len, docs.values())) for s, docs in stores.items()} for c, stores in refs.items()}
    report = DoctorReport(dict(statuses), chunk_counts)
    stored_docs = {doc for stores in refs.values() for docs in stores.values() for doc in docs}
    covered = _sentence_parents(engine)
    for doc_id in sorted(stored_docs - set(records)):
        report.findings.append(Finding("orphan", doc_id, "chunks of a document the registry does not know",
                                       _where(refs, doc_id)))
    for doc_id, record in sorted(records.items()):
        if record.status is DocumentStatus.PENDING:
            report.findings.append(Finding("pending", doc_id, "left pending by an interrupted ingest",
                                           _where(refs, doc_id)))
        elif record.status is DocumentStatus.FAILED and doc_id in stored_docs:
            report.findings.append(Finding("orphan", doc_id, "chunks of a failed document", _where(refs, doc_id)))
        elif record.status is DocumentStatus.COMPLETE:
            found = _check_complete(record, refs)
            report.findings.extend(found or _check_sentences(engine, record, refs, covered))
    report.findings.extend(_check_tokens(engine, refs, records))
    legacy = sum(1 for doc_id in records if is_legacy_key(doc_id))
    if legacy:
        report.findings.append(Finding(LEGACY, f"{legacy} documents", f"{legacy} documents are stored under their "
                                       "own id alone (written before document identity was kb and id); "
                                       "--repair moves them to kb-scoped keys without embedding again"))
    return report


def _check_tokens(engine: Engine, refs: Refs, records: dict[str, DocumentRecord]) -> list[Finding]:
    """``orphan`` findings for token vectors of chunks no vector collection holds, and ``tokens``
    findings for current chunks of complete documents (collections of ``ingest.token_vector_collections``)
    without token vectors."""
    stored: dict[str, set[str]] = defaultdict(set)
    for chunk_id, doc_id in engine.tokens.chunk_refs():
        stored[doc_id].add(chunk_id)
    held: dict[str, set[str]] = defaultdict(set)
    for stores in refs.values():
        for doc_id, ids in stores["vectors"].items():
            held[doc_id] |= ids
    out = [Finding("orphan", doc_id, "token vectors of chunks no collection holds", {TOKEN_ROWS: sorted(gone)})
           for doc_id, ids in sorted(stored.items()) if (gone := ids - held[doc_id])]
    for doc_id, record in sorted(records.items()):
        if record.status is not DocumentStatus.COMPLETE:
            continue
        version = content_version(record.content_hash)
        for collection in engine.settings.ingest.token_vector_collections:
            ids = refs.get(collection, {}).get("vectors", {}).get(doc_id, set())
            lacking = sorted(i for i in ids - stored[doc_id] if chunk_version(i) in (version, None))
            if lacking:
                out.append(Finding("tokens", doc_id, f"{len(lacking)} chunks without token vectors",
                                   {f"{collection}/tokens": lacking}))
    return out


def _sentence_parents(engine: Engine) -> dict[str, set[str]]:
    """``collection -> ids of the chunks that have sentence rows``, for every sentence collection."""
    out: dict[str, set[str]] = {}
    for collection in engine.settings.ingest.sentence_collections:
        companion = sentence_collection(collection)
        rows = engine.vectors.chunk_refs(companion) if engine.vectors.has_collection(companion) else iter(())
        out[collection] = {parent_chunk_id(r) for r, _ in rows}
    return out


def _check_sentences(engine: Engine, record: DocumentRecord, refs: Refs,
                     covered: dict[str, set[str]]) -> list[Finding]:
    """A ``sentences`` finding per collection where current chunks with sentences have no rows."""
    out = []
    for collection, parents in covered.items():
        ids = refs.get(collection, {}).get("vectors", {}).get(record.id, set()) - parents
        if not ids:
            continue
        lacking = [c.id for c in engine.vectors.get_chunks(collection, sorted(ids)) if split_sentences(c.text)]
        if lacking:
            out.append(Finding("sentences", record.id, f"{len(lacking)} chunks without sentence rows",
                               {f"{sentence_collection(collection)}/vectors": lacking}))
    return out


def _write_sentence_rows(engine: Engine, companion: str, chunk_ids: list[str]) -> int:
    """Embed and write the sentence rows of the stored chunks ``chunk_ids``; returns the rows written."""
    collection = companion.removesuffix(SENTENCE_SUFFIX)
    encoder = engine.encoders.collection(collection).default_encoder
    chunks = engine.vectors.get_chunks(collection, chunk_ids)
    rows, vectors = embed_sentence_rows(engine.ctx, engine.pm, encoder, chunks)
    return upsert_sentence_rows(engine.ctx, collection, rows, vectors)


def _delete_sentence_rows(engine: Engine, collection: str, chunk_ids: set[str]) -> None:
    """Delete the sentence rows (:mod:`eagle_rag.ingest.sentences`) of the chunks ``chunk_ids``."""
    companion = sentence_collection(collection)
    if engine.vectors.has_collection(companion):
        rows = [r for r, _ in engine.vectors.chunk_refs(companion) if parent_chunk_id(r) in chunk_ids]
        engine.vectors.delete_chunks(companion, rows)


def repair(engine: Engine, report: DoctorReport) -> DoctorReport:
    """Fix what :func:`check` found (see the module docstring); records each action in the report."""
    doomed: dict[tuple[str, str], set[str]] = defaultdict(set)
    failed: dict[str, str] = {}
    backfill: dict[str, list[str]] = defaultdict(list)
    tokens: dict[str, list[str]] = defaultdict(list)
    for finding in report.findings:
        if finding.kind in ("sentences", "tokens"):
            for where, ids in finding.chunks.items():
                (backfill if finding.kind == "sentences" else tokens)[where.split("/")[0]].extend(ids)
            continue
        if finding.kind in ("pending", "missing"):
            failed[finding.document_id] = f"doctor: {finding.detail}; re-ingest the source to restore it"
        for where, ids in finding.chunks.items():
            collection, store = where.split("/")
            doomed[(collection, store)].update(ids)
    refs = _refs(engine) if failed else {}
    for doc_id in failed:  # a broken document loses all its chunks, of any version
        for where, ids in _where(refs, doc_id).items():
            collection, store = where.split("/")
            doomed[(collection, store)].update(ids)
    for (collection, store), chunk_ids in sorted(doomed.items()):
        if store == "tokens":
            engine.tokens.delete_chunks(chunk_ids)
        elif store == "vectors":
            engine.vectors.delete_chunks(collection, sorted(chunk_ids))
            _delete_sentence_rows(engine, collection, chunk_ids)
            engine.tokens.delete_chunks(chunk_ids)
        else:
            index = engine.lexical_for(collection)
            index.delete_chunks(sorted(chunk_ids))
            index.commit()
        report.actions.append(f"deleted {len(chunk_ids)} chunks from {collection}/{store}")
    for companion, parents in sorted(backfill.items()):
        written = _write_sentence_rows(engine, companion, parents)
        report.actions.append(f"wrote {written} sentence rows of {len(parents)} chunks to {companion}")
    for collection, ids in sorted(tokens.items()):
        chunks = engine.vectors.get_chunks(collection, ids)
        written = engine.tokens.put(embed_token_rows(engine.ctx, engine.pm, collection, chunks))
        report.actions.append(f"wrote token vectors of {written} chunks of {collection}")
    for doc_id, reason in sorted(failed.items()):
        engine.registry.set_status(doc_id, DocumentStatus.FAILED, error=reason[:1000])
        report.actions.append(f"marked {doc_id} failed for re-ingest ({reason})")
    if any(f.kind == LEGACY for f in report.findings):
        report.actions.extend(migrate(engine))
    report.repaired = True
    return report

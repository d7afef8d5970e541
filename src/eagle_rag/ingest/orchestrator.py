"""IngestOrchestrator: source file -> parse -> chunk -> CHUNK enrich -> classify -> embed -> upsert.

A document is marked ``complete`` in the registry only after every store has it; searches show
complete documents only, so a crash mid-ingest never leaves a half-visible document. Unchanged
content (same hash) is skipped; changed content replaces the old chunks. A bad file is reported
and skipped while the others go on. Embedding runs in batches across documents.

A route selector may answer :data:`SKIP_ROUTE` (``"skip"``): the file is ignored silently (e.g. the
caption sidecar of an image). When ``ingest.allowed_roots`` is set, every file (symlinks resolved)
must lie inside one of them or the engine's upload folder. Records a parser skipped inside a good
file (``metadata["parse_warnings"]``: ``[{"record", "reason"}]``) are reported per file as warnings.
Classification and embedding dispatch (image chunks, exclusive groups) live in
:mod:`eagle_rag.ingest.dispatch`.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pluggy

from eagle_rag.context import HookContext
from eagle_rag.errors import IngestError
from eagle_rag.ingest.chunker import chunk_document
from eagle_rag.ingest.dispatch import check_decision, classify, embed, embed_input
from eagle_rag.ingest.report import FileFailure, IngestReport, parse_warnings
from eagle_rag.ingest.sources import allowed_ingest_roots, check_inside_roots, iter_source_files, read_source
from eagle_rag.protocols import DocumentRecord
from eagle_rag.retrieve.safe_hooks import call_hook
from eagle_rag.types import Chunk, ChunkClassification, DocumentStatus, ParsedDocument

log = logging.getLogger(__name__)
ProgressFn = Callable[[int, int], None]
DOCS_PER_BATCH = 256
_PROTECTED = ("id", "text", "path", "document_id", "ordinal")
SKIP_ROUTE = "skip"
__all__ = ["SKIP_ROUTE", "FileFailure", "IngestOrchestrator", "IngestReport", "collection_names",
           "content_hash", "embed_input"]


def content_hash(doc: ParsedDocument) -> str:
    h = hashlib.sha256()
    for section in doc.sections:
        h.update(" > ".join(section.path).encode())
        h.update(b"\x1f")
        h.update(section.text.encode())
        h.update(b"\x1e")
    h.update(repr(sorted(doc.tags)).encode())
    return h.hexdigest()


class IngestOrchestrator:
    """Runs the ingest hooks over files. Stores and encoders come from ``ctx.services``."""

    def __init__(self, pm: pluggy.PluginManager) -> None:
        self.pm = pm

    # ------------------------------------------------------------------ files -> documents
    def parse_file(self, ctx: HookContext, path: Path, kb_name: str) -> list[ParsedDocument]:
        """Parse one file through INGEST_ROUTE_SELECTORS and PARSE. Raises IngestError.

        Returns an empty list for a file whose route is :data:`SKIP_ROUTE`.
        """
        check_inside_roots(path, allowed_ingest_roots(ctx.settings.ingest.allowed_roots, ctx.settings.data_path))
        route = call_hook(ctx, self.pm.hook.eagle_ingest_route_selector, None, path=path,
                          suffix=path.suffix.lower())
        if route == SKIP_ROUTE:
            return []
        if route is None:
            raise IngestError(f"{path.name}: unsupported file type {path.suffix or '(none)'!r}")
        data = read_source(path, ctx.settings.ingest.max_file_bytes)
        docs = self.pm.hook.eagle_parse(ctx=ctx, path=path, route=route, data=data, kb_name=kb_name)
        if not docs:
            raise IngestError(f"{path.name}: no parser for route {route!r}")
        return list(docs)

    def ingest_paths(self, ctx: HookContext, paths: Sequence[Path], kb_name: str = "default",
                     progress: ProgressFn | None = None) -> IngestReport:
        """Ingest files and folders (recursively). Returns what happened, failures included."""
        started = time.perf_counter()
        report = IngestReport()
        roots = allowed_ingest_roots(ctx.settings.ingest.allowed_roots, ctx.settings.data_path)
        inside: list[Path] = []
        for given in paths:
            try:
                check_inside_roots(given, roots)
                inside.append(given)
            except IngestError as exc:
                report.failures.append(FileFailure(str(given), exc.message))
        files, missing = iter_source_files(inside)
        report.failures.extend(FileFailure(str(p), "no such file or directory") for p in missing)
        docs: list[ParsedDocument] = []
        for path in files:
            try:
                parsed = self.parse_file(ctx, path, kb_name)
            except IngestError as exc:
                report.files += 1
                report.failures.append(FileFailure(str(path), exc.message))
                ctx.log_decision("ingest_file_failed", summary=exc.message, path=str(path))
                continue
            if not parsed:
                report.skipped_files += 1
                continue
            report.files += 1
            report.warnings.extend(parse_warnings(path, parsed))
            docs.extend(parsed)
        self.ingest_documents(ctx, docs, report, progress)
        report.seconds = time.perf_counter() - started
        return report

    # ------------------------------------------------------------------ documents -> stores
    def ingest_documents(self, ctx: HookContext, docs: Sequence[ParsedDocument], report: IngestReport,
                         progress: ProgressFn | None = None) -> IngestReport:
        registry = ctx.services["registry"]
        todo: list[tuple[ParsedDocument, str, bool]] = []
        for doc in docs:
            digest = content_hash(doc)
            old = registry.get(doc.document_id)
            if old is not None and old.status is DocumentStatus.COMPLETE and old.content_hash == digest:
                report.skipped_unchanged += 1
                continue
            todo.append((doc, digest, old is not None))
        prepared: list[tuple[ParsedDocument, str, bool, list[tuple[Chunk, ChunkClassification]]]] = []
        for doc, digest, existed in todo:
            try:
                prepared.append((doc, digest, existed, self._prepare(ctx, doc)))
            except IngestError as exc:
                report.failures.append(FileFailure(doc.source_uri, exc.message))
        total_chunks = sum(len(p[3]) for p in prepared)
        done = 0
        for start in range(0, len(prepared), DOCS_PER_BATCH):
            batch = prepared[start:start + DOCS_PER_BATCH]
            try:
                done = self._write_batch(ctx, batch, done, total_chunks, progress)
            except Exception as exc:  # noqa: BLE001 - reported per document, never half-visible
                log.exception("ingest batch failed")
                for doc, *_ in batch:
                    self._rollback(ctx, doc, str(exc))
                    report.failures.append(FileFailure(doc.source_uri, f"{type(exc).__name__}: {exc}"))
                continue
            for _doc, _, existed, items in batch:
                report.documents += 1
                report.chunks += _count(items)
                report.replaced += int(existed)
        return report

    def _prepare(self, ctx: HookContext, doc: ParsedDocument) -> list[tuple[Chunk, ChunkClassification]]:
        ing = ctx.settings.ingest
        chunks = chunk_document(doc, ing.chunk_chars, ing.chunk_overlap)
        if not chunks:
            raise IngestError(f"{doc.name}: no text to index")
        chunks = self._enrich(ctx, doc, chunks)
        out = []
        for chunk in chunks:
            decisions = classify(ctx, self.pm, chunk)
            if not decisions:
                raise IngestError(f"{doc.name}: no plugin classified chunk {chunk.id}")
            for decision in decisions:
                check_decision(ctx, chunk, decision, doc.name)
                out.append((replace(chunk, chunk_type=decision.chunk_type), decision))
        return out

    def _enrich(self, ctx: HookContext, doc: ParsedDocument, chunks: list[Chunk]) -> list[Chunk]:
        patches = call_hook(ctx, self.pm.hook.eagle_chunk_enrich, [], document=doc, chunks=chunks) or []
        for patch in patches:
            if len(patch) != len(chunks):
                raise IngestError(f"{doc.name}: CHUNK enrich returned {len(patch)} items for {len(chunks)}")
            chunks = [replace(c, metadata={**c.metadata, **{k: v for k, v in p.items() if k not in _PROTECTED}})
                      for c, p in zip(chunks, patch, strict=True)]
        return chunks

    def _write_batch(self, ctx: HookContext, batch: Sequence[tuple[ParsedDocument, str, bool, list[Any]]],
                     done: int, total: int, progress: ProgressFn | None) -> int:
        services = ctx.services
        registry, vectors, encoders = services["registry"], services["vectors"], services["encoders"]
        now = datetime.now(UTC)
        groups: dict[tuple[str, str], list[Chunk]] = defaultdict(list)
        for doc, digest, _, items in batch:
            registry.upsert(DocumentRecord(
                id=doc.document_id, kb_name=doc.kb_name, name=doc.name, source_uri=doc.source_uri,
                content_hash=digest, status=DocumentStatus.PENDING, chunk_count=_count(items),
                tags=doc.tags, namespace=ctx.namespace, created_at=now, updated_at=now))
            for chunk, decision in items:
                groups[(decision.collection, decision.encoder)].append(chunk)
        embedded: list[tuple[str, list[Chunk], list[list[float]]]] = []
        for (collection, encoder), chunks in groups.items():
            vecs: list[list[float]] = []
            step = ctx.settings.encoders.batch_size
            for i in range(0, len(chunks), step):
                part = chunks[i:i + step]
                vecs.extend(embed(ctx, self.pm, encoder, part))
                done += len(part)
                if progress:
                    progress(done, total)
            embedded.append((collection, chunks, vecs))
        for doc, _, existed, _ in batch:
            if existed:  # a new document has nothing to replace
                self._delete_everywhere(ctx, doc.document_id)
        for collection, chunks, vecs in embedded:
            profile = encoders.collection(collection)
            vectors.ensure_collection(collection, profile.dim, profile.extra_output_fields, profile.metric)
            written = call_hook(ctx, self.pm.hook.eagle_upsert_vectors, None, collection=collection,
                                chunks=chunks, vectors=vecs)
            if written is None:
                vectors.upsert(collection, chunks, vecs)
            services["lexical_for"](collection).add(chunks)
        for collection, _, _ in embedded:
            services["lexical_for"](collection).commit()
        for doc, _, _, items in batch:
            registry.set_status(doc.document_id, DocumentStatus.COMPLETE, chunk_count=_count(items))
        return done

    def _delete_everywhere(self, ctx: HookContext, document_id: str) -> None:
        services = ctx.services
        for collection in collection_names(ctx):
            if services["vectors"].has_collection(collection):
                services["vectors"].delete_document(collection, document_id)
            services["lexical_for"](collection).delete_document(document_id)

    def _rollback(self, ctx: HookContext, doc: ParsedDocument, error: str) -> None:
        try:
            self._delete_everywhere(ctx, doc.document_id)
            for collection in collection_names(ctx):
                ctx.services["lexical_for"](collection).commit()
            ctx.services["registry"].set_status(doc.document_id, DocumentStatus.FAILED, error=error[:1000])
        except Exception:  # noqa: BLE001 - the failure is already being reported
            log.exception("rollback of %s failed", doc.document_id)

    def delete_document(self, ctx: HookContext, document_id: str) -> bool:
        """Remove a document from every store and from the registry. False when unknown."""
        if ctx.services["registry"].get(document_id) is None:
            return False
        self._delete_everywhere(ctx, document_id)
        for collection in collection_names(ctx):
            ctx.services["lexical_for"](collection).commit()
        return bool(ctx.services["registry"].delete(document_id))


def collection_names(ctx: HookContext) -> list[str]:
    return [profile.name for profile in ctx.services["encoders"].collections()]


def _count(items: Sequence[tuple[Chunk, ChunkClassification]]) -> int:
    """Distinct chunks of a document (a chunk written to two collections counts once)."""
    return len({chunk.id for chunk, _ in items})

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
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pluggy

from eagle_rag.context import HookContext
from eagle_rag.errors import IngestError
from eagle_rag.ingest.chunker import chunk_document, content_version
from eagle_rag.ingest.dispatch import check_decision, classify, embed_input
from eagle_rag.ingest.report import FileFailure, IngestReport, parse_warnings
from eagle_rag.ingest.sources import allowed_ingest_roots, check_inside_roots, iter_source_files, read_source
from eagle_rag.ingest.writer import BatchWriter, Prepared, collection_names, vector_collections
from eagle_rag.protocols import DocumentRecord
from eagle_rag.retrieve.safe_hooks import call_hook
from eagle_rag.stores.availability import is_unavailable, settings_unavailable
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
        self.writer = BatchWriter(pm)

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
        """Write ``docs`` (unchanged complete ones are skipped) in batches; see :mod:`eagle_rag.ingest.writer`.

        Raises:
            StoreUnavailable: when a store cannot be reached (the ingest stops; a re-run resumes it).
        """
        registry = ctx.services.registry
        todo: list[tuple[ParsedDocument, str, DocumentRecord | None]] = []
        for doc in docs:
            digest = content_hash(doc)
            old = registry.get(doc.document_id)
            if old is not None and old.status is DocumentStatus.COMPLETE and old.content_hash == digest:
                report.skipped_unchanged += 1
                continue
            todo.append((doc, digest, old))
        prepared: list[Prepared] = []
        for doc, digest, old in todo:
            try:
                prepared.append(Prepared(doc, digest, old, self._prepare(ctx, doc, content_version(digest))))
            except IngestError as exc:
                report.failures.append(FileFailure(doc.source_uri, exc.message))
        total_chunks = sum(len(p.items) for p in prepared)
        done = 0
        for start in range(0, len(prepared), DOCS_PER_BATCH):
            batch = prepared[start:start + DOCS_PER_BATCH]
            try:
                done = self.writer.write(ctx, batch, done, total_chunks, progress)
            except Exception as exc:  # noqa: BLE001 - reported per document, never half-visible
                if is_unavailable(exc):
                    raise settings_unavailable(exc, ctx.settings) from exc
                log.exception("ingest batch failed")
                for item in batch:
                    self.writer.rollback(ctx, item, str(exc))
                    kept = " (the previous version is kept)" if item.served else ""
                    report.failures.append(FileFailure(item.doc.source_uri, f"{type(exc).__name__}: {exc}{kept}"))
                continue
            try:
                self.writer.remove_stale(ctx, batch)
            except Exception as exc:  # noqa: BLE001 - the new versions are complete; doctor cleans up
                log.warning("removing old chunk versions failed (eagle-rag doctor --repair cleans up): %s", exc)
            for item in batch:
                report.documents += 1
                report.chunks += len(item.chunk_ids)
                report.replaced += int(item.old is not None)
        return report

    def _prepare(self, ctx: HookContext, doc: ParsedDocument,
                 version: str = "") -> list[tuple[Chunk, ChunkClassification]]:
        ing = ctx.settings.ingest
        chunks = chunk_document(doc, ing.chunk_chars, ing.chunk_overlap, version=version)
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

    def _delete_everywhere(self, ctx: HookContext, document_id: str) -> None:
        services = ctx.services
        for collection in vector_collections(ctx):
            if services.vectors.has_collection(collection):
                services.vectors.delete_document(collection, document_id)
        for collection in collection_names(ctx):
            services.lexical_for(collection).delete_document(document_id)

    def delete_document(self, ctx: HookContext, document_id: str) -> bool:
        """Remove a document from every store and from the registry. False when unknown."""
        if ctx.services.registry.get(document_id) is None:
            return False
        self._delete_everywhere(ctx, document_id)
        for collection in collection_names(ctx):
            ctx.services.lexical_for(collection).commit()
        return bool(ctx.services.registry.delete(document_id))

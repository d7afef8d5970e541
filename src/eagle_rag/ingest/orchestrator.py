"""IngestOrchestrator: source file -> parse -> chunk -> CHUNK enrich -> classify -> embed -> upsert.

A document is marked ``complete`` in the registry only after every store has it; searches show
complete documents only, so a crash mid-ingest never leaves a half-visible document. Unchanged
content (same hash) is skipped; changed content replaces the old chunks. A bad file is reported
and skipped while the others go on. Embedding runs in batches across documents.

Files are read record by record (PARSE_RECORDS, else PARSE): documents are written in batches of
:data:`DOCS_PER_BATCH` as they are read, so memory does not grow with the size of a file or with
the records already written. A bad record is reported (:class:`RecordFailure`, with its line) and
the file goes on; a later record with an id seen before in the same file is a bad record too. A
file stops once it has more bad records than ``max_errors`` (``ingest.max_record_errors``; unset:
the larger of 1,000 and 1% of the records read so far); what was read before stays written.
A dry run parses, validates and chunks, reports, and writes nothing.

A route selector may answer :data:`SKIP_ROUTE` (``"skip"``): the file is ignored silently (e.g. the
caption sidecar of an image). When ``ingest.allowed_roots`` is set, every file (symlinks resolved)
must lie inside one of them or the engine's upload folder. Records a list-returning parser skipped
inside a good file (``metadata["parse_warnings"]``: ``[{"record", "reason"}]``) are reported per file
as warnings; a parser that speaks of records (PARSE_RECORDS, or a ``ParseResult``) reports them as
record failures instead. A file whose record ids are no valid document ids (``/``, a space, ``?``,
``#``, over 64 characters: stored under ``h-<hash>`` ids) gets one warning saying how many.
Classification and embedding dispatch (image chunks, exclusive groups) live in
:mod:`eagle_rag.ingest.dispatch`.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field, replace
from pathlib import Path

import pluggy

from eagle_rag.context import HookContext
from eagle_rag.errors import IngestError
from eagle_rag.ingest.chunker import chunk_document, content_version
from eagle_rag.ingest.dispatch import check_decision, classify, embed_input
from eagle_rag.ingest.records import (
    ParseResult,
    Record,
    RecordFailure,
    RecordItem,
    numbered,
    replaced_record_id,
    strict_documents,
)
from eagle_rag.ingest.report import FileCounts, FileFailure, IngestReport, parse_warnings, record_error_limit
from eagle_rag.ingest.sources import (
    NO_SUCH_PATH,
    allowed_ingest_roots,
    check_inside_roots,
    check_regular_file,
    iter_source_files,
    read_source,
)
from eagle_rag.ingest.writer import BatchWriter, Embedded, Prepared, collection_names, vector_collections
from eagle_rag.protocols import DocumentRecord, DocumentRegistry
from eagle_rag.retrieve.safe_hooks import call_hook
from eagle_rag.stores.availability import is_unavailable, settings_unavailable
from eagle_rag.types import (
    Chunk,
    ChunkClassification,
    DocumentStatus,
    ParsedDocument,
    document_key,
    is_legacy_key,
    public_document_id,
    split_document_key,
)

log = logging.getLogger(__name__)
ProgressFn = Callable[[int, int | None], None]
"""Called with (records read so far, total or None when unknown), from the first record on."""
StageProgressFn = Callable[[str, int, int | None], None]
"""Called with (stage, done, total) as a batch is written: ``preparing`` counts records (parse, chunk,
enrich, classify), ``embedding`` chunks; where an ingest spends its time after it has read a batch."""
DOCS_PER_BATCH = 256
PROGRESS_EVERY = 256
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


def keyed(doc: ParsedDocument) -> ParsedDocument:
    """``doc`` named by its storage key (kb and id, :func:`eagle_rag.types.document_key`): what every
    store and the registry hold, so the same id in two kbs is two documents."""
    return replace(doc, document_id=document_key(doc.kb_name, doc.document_id))


def is_unchanged(old: DocumentRecord | None, digest: str) -> bool:
    """True when the registry record ``old`` is complete with content hash ``digest``: nothing to write."""
    return old is not None and old.status is DocumentStatus.COMPLETE and old.content_hash == digest


def legacy_record(registry: DocumentRegistry, kb_name: str, key: str) -> DocumentRecord | None:
    """The record of the same document written before identity was (kb, id), under its unscoped
    id, when it belongs to ``kb_name`` (a legacy record of another kb is another document)."""
    kb, document_id = split_document_key(key)
    if kb != kb_name or not is_legacy_key(document_id):
        return None
    record = registry.get(document_id)
    return record if record is not None and record.kb_name == kb_name else None


@dataclass
class _Pending:
    """A good record waiting for its batch: the file it counts for, and whether its file speaks of
    records (a failure is then a :class:`RecordFailure`, else a :class:`FileFailure` of the document)."""

    record: Record
    counts: FileCounts
    by_record: bool


@dataclass
class _Run:
    """The state of one ingest run: the report, the records waiting for their batch, progress."""

    report: IngestReport
    progress: ProgressFn | None
    pending: list[_Pending] = field(default_factory=list)
    records: int = 0
    stage_progress: StageProgressFn | None = None
    """Called while a batch is written: ``("preparing", records prepared, records of the batch)``, then
    ``("embedding", chunks embedded, chunks of the batch)``."""

    def stage(self, name: str, done: int, total: int | None) -> None:
        if self.stage_progress:
            self.stage_progress(name, done, total)

    def tick(self, force: bool = False) -> None:
        if self.progress and (force or self.records == 1 or self.records % PROGRESS_EVERY == 0):
            self.progress(self.records, None)

    def fail(self, entry: _Pending, reason: str) -> None:
        """A good record that could not be written (or validated)."""
        entry.counts.failed += 1
        rec, doc = entry.record, entry.record.document
        if entry.by_record:
            rid = str(doc.metadata.get("record_id", public_document_id(doc.document_id)))
            self.report.record_failures.append(RecordFailure(entry.counts.path, rec.record, reason, rec.line, rid))
        else:
            self.report.failures.append(FileFailure(doc.source_uri, reason))


def hashed_ids_warning(path: Path, count: int) -> FileFailure:
    """The warning of a file whose ``count`` record ids are no valid document ids, stored under
    ``h-<hash>`` ids (:func:`eagle_rag.ingest.records.record_document_id`)."""
    ids = "record id" if count == 1 else "record ids"
    return FileFailure(str(path), f"{count} {ids} replaced by h-<hash> document ids (a document id is 1-64 "
                       "letters, digits, '_', '.', ':' or '-'): search hits show the h- id, metadata.record_id "
                       "the original, and get and delete accept either")


def source_files(ctx: HookContext, paths: Sequence[Path], report: IngestReport) -> list[Path]:
    """The files below ``paths`` (folders recursively), each once; a path outside
    ``ingest.allowed_roots`` or missing is a failure in ``report``."""
    roots = allowed_ingest_roots(ctx.settings.ingest.allowed_roots, ctx.settings.data_path)
    inside: list[Path] = []
    for given in paths:
        try:
            check_inside_roots(given, roots)
            inside.append(given)
        except IngestError as exc:
            report.failures.append(FileFailure(str(given), exc.message))
    files, missing = iter_source_files(inside)
    report.failures.extend(FileFailure(str(p), NO_SUCH_PATH) for p in missing)
    return once_each(files)


def once_each(files: Sequence[Path]) -> list[Path]:
    """``files`` without a file met again (the same path, or a link to it, given twice): a file read
    twice would count twice in the report for the one document it stores."""
    seen: set[str] = set()
    out: list[Path] = []
    for path in files:
        key = os.path.realpath(path)  # never raises, not even on a link loop
        if key not in seen:
            seen.add(key)
            out.append(path)
    return out


class IngestOrchestrator:
    """Runs the ingest hooks over files. Stores and encoders come from ``ctx.services``."""

    def __init__(self, pm: pluggy.PluginManager) -> None:
        self.pm = pm
        self.writer = BatchWriter(pm)

    # ------------------------------------------------------------------ files -> records
    def records(self, ctx: HookContext, path: Path, kb_name: str) -> tuple[Iterator[RecordItem], bool] | None:
        """The records of one file through INGEST_ROUTE_SELECTORS, then PARSE_RECORDS or PARSE, and
        whether the parser spoke of records (PARSE_RECORDS, or PARSE answering a ParseResult).

        Returns None for a file whose route is :data:`SKIP_ROUTE`. Raises IngestError (the iterator
        may raise it too, for a file that cannot be read).
        """
        check_inside_roots(path, allowed_ingest_roots(ctx.settings.ingest.allowed_roots, ctx.settings.data_path))
        check_regular_file(path)  # a named pipe would block the ingest forever
        route = call_hook(ctx, self.pm.hook.eagle_ingest_route_selector, None, path=path,
                          suffix=path.suffix.lower())
        if route == SKIP_ROUTE:
            return None
        if route is None:
            raise IngestError(f"{path.name}: unsupported file type {path.suffix or '(none)'!r}")
        stream = self.pm.hook.eagle_parse_records(ctx=ctx, path=path, route=route, kb_name=kb_name)
        if stream is not None:
            return iter(stream), True
        data = read_source(path, ctx.settings.ingest.max_file_bytes)
        parsed = self.pm.hook.eagle_parse(ctx=ctx, path=path, route=route, data=data, kb_name=kb_name)
        if isinstance(parsed, ParseResult):
            return iter([*parsed.documents, *parsed.failures]), True
        if not parsed:
            raise IngestError(f"{path.name}: no parser for route {route!r}")
        return iter(list(parsed)), False

    def parse_file(self, ctx: HookContext, path: Path, kb_name: str) -> list[ParsedDocument]:
        """Every document of one file, or IngestError at its first bad record (strict; ingest itself
        goes on past bad records). Returns an empty list for a file whose route is :data:`SKIP_ROUTE`."""
        found = self.records(ctx, path, kb_name)
        return [] if found is None else strict_documents(found[0], str(path), f"{path.name}: no records")

    def ingest_paths(self, ctx: HookContext, paths: Sequence[Path], kb_name: str = "default",
                     progress: ProgressFn | None = None, *, dry_run: bool = False,
                     max_errors: int | None = None, stage_progress: StageProgressFn | None = None) -> IngestReport:
        """Ingest files and folders (recursively). Returns what happened, failures included.

        ``max_errors`` overrides ``ingest.max_record_errors``; ``dry_run`` writes nothing.
        ``progress`` gets the records read; ``stage_progress`` (:data:`StageProgressFn`) the records of a batch
        prepared and its chunks embedded, which is where an ingest spends its time (a batch holds up to 256
        records).

        Raises:
            StoreUnavailable: when a store cannot be reached (the ingest stops; a re-run resumes it).
        """
        started = time.perf_counter()
        run = _Run(IngestReport(dry_run=dry_run), progress, stage_progress=stage_progress)
        report = run.report
        limit = max_errors if max_errors is not None else ctx.settings.ingest.max_record_errors
        for path in source_files(ctx, paths, report):
            self._ingest_file(ctx, run, path, kb_name, limit)
        self._flush(ctx, run)
        run.tick(force=True)
        report.seconds = time.perf_counter() - started
        return report

    def _ingest_file(self, ctx: HookContext, run: _Run, path: Path, kb_name: str, limit: int | None) -> None:
        for entry in self.read_file(ctx, run, path, kb_name, limit):
            run.pending.append(entry)
            if len(run.pending) >= DOCS_PER_BATCH:
                self._flush(ctx, run)

    def read_file(self, ctx: HookContext, run: _Run, path: Path, kb_name: str,
                  limit: int | None) -> Iterator[_Pending]:
        """The good records of one file, as they are read; its bad records, failures, warnings and
        counts go to ``run.report`` (the file stops after more than ``limit`` bad records)."""
        report = run.report
        counts = FileCounts(str(path))
        try:
            found = self.records(ctx, path, kb_name)
        except IngestError as exc:
            report.files += 1
            self._file_failed(ctx, report, path, exc)
            return
        if found is None:
            report.skipped_files += 1
            return
        report.files += 1
        report.files_detail.append(counts)
        stream, by_record = found
        warned: set[str] = set()
        hashed = 0
        try:
            with closing(numbered(stream, str(path))) as items:
                for item in items:
                    counts.records += 1
                    run.records += 1
                    run.tick()
                    if isinstance(item, RecordFailure):
                        counts.failed += 1
                        report.record_failures.append(item)
                        allowed = record_error_limit(limit, counts.records)
                        if counts.failed > allowed:
                            counts.stopped = (f"stopped at {item.where()}: more than {allowed} bad records; "
                                              "the rest of the file was not read")
                            break
                        continue
                    if replaced_record_id(item.document):
                        hashed += 1
                    for warning in () if by_record else parse_warnings(path, [item.document]):
                        if warning.error not in warned:
                            warned.add(warning.error)
                            report.warnings.append(warning)
                    yield _Pending(item, counts, by_record)
        except IngestError as exc:  # the file could not be read (on): the records before it stay
            counts.stopped = exc.message if counts.records else ""
            self._file_failed(ctx, report, path, exc)
            return
        finally:
            if hashed:
                report.warnings.append(hashed_ids_warning(path, hashed))
        if counts.records == 0:
            report.failures.append(FileFailure(str(path), f"{path.name}: no records"))
        if counts.failed:
            ctx.log_decision("ingest_records_failed", summary=f"{path.name}: {counts.failed} bad records",
                             path=str(path), failed=counts.failed, records=counts.records, stopped=counts.stopped)

    @staticmethod
    def _file_failed(ctx: HookContext, report: IngestReport, path: Path, exc: IngestError) -> None:
        report.failures.append(FileFailure(str(path), exc.message))
        ctx.log_decision("ingest_file_failed", summary=exc.message, path=str(path))

    # ------------------------------------------------------------------ records -> stores
    def _flush(self, ctx: HookContext, run: _Run) -> None:
        """Write the waiting records (unchanged complete ones are skipped); see :mod:`eagle_rag.ingest.writer`."""
        pending, run.pending = run.pending, []
        run.tick(force=True)  # the records read so far (ticks come every PROGRESS_EVERY records while reading)
        if run.report.dry_run:
            for entry in pending:
                self._validate(ctx, run, entry)
            return
        prepared: list[tuple[_Pending, Prepared]] = []
        legacy: dict[str, DocumentRecord] = {}
        for done, entry in enumerate(pending):
            run.stage("preparing", done, len(pending))
            doc = keyed(entry.record.document)
            entry.record = replace(entry.record, document=doc)  # one live copy per record
            admitted = self.admit(ctx, run, entry, content_hash(doc), legacy)
            if admitted is None:
                continue
            try:
                admitted.items = self.prepare(ctx, doc, content_version(admitted.digest))
            except IngestError as exc:
                legacy.pop(doc.document_id, None)
                run.fail(entry, exc.message)
                continue
            prepared.append((entry, admitted))
        self.write_prepared(ctx, run, prepared, legacy)

    def admit(self, ctx: HookContext, run: _Run, entry: _Pending, digest: str,
              legacy: dict[str, DocumentRecord]) -> Prepared | None:
        """The keyed document of ``entry`` with the registry record it replaces (no chunks yet), or
        None when the registry holds it complete with the same content (counted as unchanged). A
        record of the same document under its unscoped key goes into ``legacy``."""
        doc = entry.record.document
        registry = ctx.services.registry
        old = registry.get(doc.document_id)
        if is_unchanged(old, digest):
            run.report.skipped_unchanged += 1
            entry.counts.skipped += 1
            return None
        if old is None and (earlier := legacy_record(registry, doc.kb_name, doc.document_id)) is not None:
            legacy[doc.document_id] = earlier
        return Prepared(doc, digest, old, [])

    def write_prepared(self, ctx: HookContext, run: _Run, prepared: Sequence[tuple[_Pending, Prepared]],
                       legacy: dict[str, DocumentRecord], embedded: Embedded | None = None) -> None:
        """Write one batch through :class:`BatchWriter` (vectors from ``embedded`` when given, else
        embedded here), drop old versions, and count it; a failed batch is rolled back and each of
        its records reported.

        Raises:
            StoreUnavailable: when a store cannot be reached.
        """
        if not prepared:
            return
        report = run.report
        batch = [p for _, p in prepared]
        try:
            if embedded is None:
                self.writer.write(ctx, batch, 0, sum(len(p.items) for p in batch),
                                  lambda done, total: run.stage("embedding", done, total))
            else:
                self.writer.write(ctx, batch, 0, 0, None, embedded=embedded)
        except Exception as exc:  # noqa: BLE001 - reported per document, never half-visible
            if is_unavailable(exc):
                raise settings_unavailable(exc, ctx.settings) from exc
            log.exception("ingest batch failed")
            for entry, item in prepared:
                self.writer.rollback(ctx, item, str(exc))
                kept = " (the previous version is kept)" if item.served else ""
                run.fail(entry, f"{type(exc).__name__}: {exc}{kept}")
            return
        try:
            self.writer.remove_stale(ctx, batch)
            for record in legacy.values():  # the same document under its unscoped key: the new one replaces it
                self.delete_document(ctx, record.id)
        except Exception as exc:  # noqa: BLE001 - the new versions are complete; doctor cleans up
            log.warning("removing old chunk versions failed (eagle-rag doctor --repair cleans up): %s", exc)
        for entry, item in prepared:
            entry.counts.ingested += 1
            report.documents += 1
            report.chunks += len(item.chunk_ids)
            report.replaced += int(item.old is not None or item.doc.document_id in legacy)

    def _validate(self, ctx: HookContext, run: _Run, entry: _Pending) -> None:
        """Dry run: a record is valid when it chunks into some text."""
        error = self.invalid(ctx, entry.record.document)
        if error:
            run.fail(entry, error)
            return
        entry.counts.ingested += 1
        run.report.documents += 1

    @staticmethod
    def invalid(ctx: HookContext, doc: ParsedDocument) -> str:
        """Why a dry run rejects ``doc`` ("" when it chunks into some text)."""
        ing = ctx.settings.ingest
        return "" if chunk_document(doc, ing.chunk_chars, ing.chunk_overlap) else f"{doc.name}: no text to index"

    def prepare(self, ctx: HookContext, doc: ParsedDocument,
                version: str = "") -> list[tuple[Chunk, ChunkClassification]]:
        """The chunks of ``doc`` (ids of content version ``version``), enriched (CHUNK) and classified,
        one per (chunk, classification). Raises IngestError for a document that cannot be written."""
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
        if services.has("tokens"):
            services.tokens.delete_document(document_id)

    def delete_document(self, ctx: HookContext, document_id: str) -> bool:
        """Remove a document from every store and from the registry. False when unknown.

        ``document_id`` is the storage key (:func:`eagle_rag.types.document_key`), or the unscoped
        key of a document written before identity was (kb, id)."""
        if ctx.services.registry.get(document_id) is None:
            return False
        self._delete_everywhere(ctx, document_id)
        for collection in collection_names(ctx):
            ctx.services.lexical_for(collection).commit()
        return bool(ctx.services.registry.delete(document_id))

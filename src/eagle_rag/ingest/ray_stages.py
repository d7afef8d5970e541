"""The worker side of the Ray ingest (:mod:`eagle_rag.ingest.ray_executor`): what Ray tasks and
actors run, each through the local ingest's own code.

- :func:`read_file_rows` (a task per file): :meth:`IngestOrchestrator.read_file`, so bad records,
  their lines and the ``max_errors`` stop are the local ones; one ``record`` row per good record,
  then one ``file`` row with the file's own report;
- :func:`prepare_rows` (tasks): key the document, skip it when the registry already holds it
  unchanged, chunk, enrich (CHUNK) and classify (:meth:`IngestOrchestrator.prepare`); in a dry run
  only validate;
- :class:`EmbedActor` (an actor pool): loads the encoders once per actor and embeds a batch of
  prepared documents with :meth:`BatchWriter.embed`; the batch travels on as one ``batch`` row, which
  the driver writes as one write batch.

Rows are ``{"kind", "file", "payload"}``: the file's index among the files of the run and a pickle
of the stage's Python objects. Each worker process opens one :class:`~eagle_rag.engine.Engine` on
the driver's settings: cheap (models load on first use, stores connect on first use), and it never
touches the vector store or the lexical index, which only the driver writes.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eagle_rag.errors import IngestError
from eagle_rag.ingest.chunker import content_version
from eagle_rag.ingest.orchestrator import _Run, content_hash, is_unchanged, keyed
from eagle_rag.ingest.records import Record
from eagle_rag.ingest.report import IngestReport
from eagle_rag.ingest.writer import Prepared

if TYPE_CHECKING:
    from eagle_rag.kernel.runtime import Runtime as Engine
    from eagle_rag.settings import Settings

Batch = dict[str, Any]
"""A Ray Data batch in ``numpy`` format: column name -> values."""


class RowKind(StrEnum):
    """What a row of the Ray ingest carries (its ``payload``)."""

    RECORD = "record"  # (Record, by_record): a good record, read
    FILE = "file"  # IngestReport: one file's counts, bad records, failures and warnings
    PREPARED = "prepared"  # (Record, by_record, Prepared): chunked and classified, to embed
    UNCHANGED = "unchanged"  # (Record, by_record, None): the registry holds it unchanged
    FAILED = "failed"  # (Record, by_record, reason): cannot be written
    VALID = "valid"  # (Record, by_record, None): dry run, it would be written
    BATCH = "batch"  # (list of (file, Record, by_record), list of Prepared, Embedded): to write


_ENGINES: dict[str, Engine] = {}


def worker_engine(settings: Settings) -> Engine:
    """The engine of this worker process for ``settings``, opened on first use and kept, so a
    process that runs many tasks builds its plugin manager and loads its encoders once. A worker
    keeps one: the engine of an earlier ingest (other settings) is closed when the next one starts,
    so a long-lived cluster does not pile up models."""
    from eagle_rag.kernel.runtime import Runtime as Engine

    key = settings.model_dump_json()
    engine = _ENGINES.get(key)
    if engine is None:
        for old in _ENGINES.values():
            old.close()
        _ENGINES.clear()
        engine = _ENGINES[key] = Engine(settings)
    return engine


def row(kind: RowKind, file: int, payload: object) -> dict[str, Any]:
    return {"kind": str(kind), "file": file, "payload": pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)}


def rows_batch(rows: list[dict[str, Any]]) -> Batch:
    """``rows`` as one batch (column -> list)."""
    return {"kind": [r["kind"] for r in rows], "file": [int(r["file"]) for r in rows],
            "payload": [r["payload"] for r in rows]}


def batch_rows(batch: Batch) -> Iterator[tuple[RowKind, int, bytes]]:
    for kind, file, payload in zip(batch["kind"], batch["file"], batch["payload"], strict=True):
        yield RowKind(str(kind)), int(file), bytes(payload)


def read_file_rows(item: dict[str, Any], *, settings: Settings, kb_name: str, limit: int | None,
                   dry_run: bool) -> Iterator[dict[str, Any]]:
    """The rows of one file (``item``: ``{"file": index, "path": absolute path}``), as it is read
    (Ray Data cuts them into blocks, so a large file is never held whole): a ``record`` row per good
    record, then the ``file`` row with the file's own report."""
    engine = worker_engine(settings)
    run = _Run(IngestReport(dry_run=dry_run), None)
    index = int(item["file"])
    for entry in engine.ingestor.read_file(engine.request_context(), run, Path(item["path"]), kb_name, limit):
        yield row(RowKind.RECORD, index, (entry.record, entry.by_record))
    yield row(RowKind.FILE, index, run.report)


def prepare_rows(batch: Batch, *, settings: Settings, dry_run: bool) -> Batch:
    """``record`` rows chunked and classified (``prepared``), or ``unchanged`` (the registry holds
    the document unchanged: nothing to embed; the driver checks again before it writes), ``failed``,
    or in a dry run ``valid``; other rows pass."""
    engine = worker_engine(settings)
    ctx = engine.request_context()
    ingestor = engine.ingestor
    out: list[dict[str, Any]] = []
    for kind, file, payload in batch_rows(batch):
        if kind is not RowKind.RECORD:
            out.append({"kind": str(kind), "file": file, "payload": payload})
            continue
        record, by_record = pickle.loads(payload)
        if dry_run:
            error = ingestor.invalid(ctx, record.document)
            out.append(row(RowKind.FAILED if error else RowKind.VALID, file, (record, by_record, error or None)))
            continue
        doc = keyed(record.document)
        record = replace(record, document=doc)
        digest = content_hash(doc)
        if is_unchanged(ctx.services.registry.get(doc.document_id), digest):
            out.append(row(RowKind.UNCHANGED, file, (record, by_record, None)))
            continue
        try:
            items = ingestor.prepare(ctx, doc, content_version(digest))
        except IngestError as exc:
            out.append(row(RowKind.FAILED, file, (record, by_record, exc.message)))
            continue
        out.append(row(RowKind.PREPARED, file, (record, by_record, Prepared(doc, digest, None, items))))
    return rows_batch(out)


class EmbedActor:
    """One embedding actor: its engine (and so its encoders) is built once, in the constructor, and
    every batch it is given becomes one ``batch`` row (other rows pass through)."""

    def __init__(self, settings: Settings) -> None:
        self.engine = worker_engine(settings)
        self.ctx = self.engine.request_context()

    def __call__(self, batch: Batch) -> Batch:
        out: list[dict[str, Any]] = []
        entries: list[tuple[int, Record, bool]] = []
        prepared: list[Prepared] = []
        for kind, file, payload in batch_rows(batch):
            if kind is not RowKind.PREPARED:
                out.append({"kind": str(kind), "file": file, "payload": payload})
                continue
            record, by_record, item = pickle.loads(payload)
            entries.append((file, record, by_record))
            prepared.append(item)
        if prepared:
            embedded, _ = self.engine.ingestor.writer.embed(self.ctx, prepared)
            out.append(row(RowKind.BATCH, -1, (entries, prepared, embedded)))
        return rows_batch(out)

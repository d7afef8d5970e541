"""Ingest on Ray Data (``eagle-rag ingest --executor ray``): the local ingest's stages, spread out.

    files (listed here, as the local ingest lists them)
      -> read and parse each file             Ray tasks (flat_map), one file a task
      -> key, chunk, enrich, classify          Ray tasks (map_batches)
      -> embed                                 an actor pool (map_batches on a callable class): each
                                               actor loads its encoders once; ``num_gpus`` 1 an actor
                                               when the cluster has GPUs
      -> write                                 embedded stores: this process, one batch of ``batch_docs``
                                               documents at a time, through
                                               :meth:`IngestOrchestrator.write_prepared`; server stores
                                               (Milvus server, PostgreSQL registry): a pool of
                                               ``writers`` write actors, each batch through the same code

The worker side is :mod:`eagle_rag.ingest.ray_stages`. Writes go through the local ingest's own writer,
so everything it promises holds: chunk ids are deterministic (document, path, ordinal and content
version), a document is ``complete`` in the registry only once every store holds it, and before each
write the registry is read again, so a batch that Ray delivers twice (a retried task after a worker
died) is skipped as unchanged the second time and never doubles a chunk. The embedded stores (Milvus
Lite, tantivy, SQLite) allow one process: this one, the driver, is their single writer. When every store
is a server (:func:`~eagle_rag.stores.topology.parallel_writes`: a Milvus server with
``lexical.backend: milvus`` and a PostgreSQL registry), a pool of write actors writes batches in
parallel through the same code (:func:`~eagle_rag.ingest.ray_stages.write_batch`), and sends each
document's outcome to the driver, which counts it once (a document two writers both report, when Ray
delivered its batch twice, counts as written once and unchanged once). The report is the local one:
counts, per-file counts, bad records with file and line, ``max_errors`` per file (applied while the file
is read), ``dry_run`` (read, parse, validate; nothing embedded or written). Paths are sent to the
workers absolute, so the report names files by their absolute paths; on a cluster every node must see
them (a shared file system).

Ray is the optional extra ``ray`` (``pip install 'eagle-rag[ray]'``). ``address`` None starts a
local Ray (or uses the one this process already joined); ``"auto"`` or ``HOST:PORT`` joins a cluster
started with ``ray start --head``.
"""

from __future__ import annotations

import logging
import os
import pickle
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eagle_rag.errors import InvalidRequest, PluginUnavailable
from eagle_rag.ingest.executors import RAY_MISSING, RayOptions
from eagle_rag.ingest.orchestrator import ProgressFn, _Pending, _Run, source_files
from eagle_rag.ingest.ray_stages import (
    EmbedActor,
    Outcome,
    RowKind,
    WriteActor,
    prepare_rows,
    read_file_rows,
    write_batch,
)
from eagle_rag.ingest.records import Record
from eagle_rag.ingest.report import FileCounts, IngestReport
from eagle_rag.ingest.writer import Embedded, Prepared
from eagle_rag.stores.topology import parallel_writes

if TYPE_CHECKING:
    from eagle_rag.kernel.runtime import Runtime as Engine
    from eagle_rag.settings import Settings

log = logging.getLogger(__name__)
BLOCK_BYTES = 256 * 1024
"""The largest block Ray Data makes here: some tens of records, a batch of vectors a block."""

@dataclass
class _Collector:
    """The driver's side: turns the rows the pipeline delivers into writes and the report."""

    engine: Engine
    run: _Run
    files: list[Path]
    counts: dict[int, FileCounts] = field(default_factory=dict)
    read: set[int] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    """Documents counted as written (by a write actor's report)."""

    def take(self, kind: RowKind, file: int, payload: bytes) -> None:
        data = pickle.loads(payload)
        if kind is RowKind.FILE:
            self._file(file, data)
        elif kind is RowKind.BATCH:
            self._write(*data)
        elif kind is RowKind.WRITTEN:
            self._written(*data)
        else:
            self._record(kind, file, *data)

    def entry(self, file: int, record: Record, by_record: bool) -> _Pending:
        """A good record of ``file`` as the local ingest holds it (counted for progress)."""
        self.run.records += 1
        self.run.tick()
        return _Pending(record, self.file_counts(file), by_record)

    def file_counts(self, file: int) -> FileCounts:
        counts = self.counts.get(file)
        if counts is None:
            counts = self.counts[file] = FileCounts(str(self.files[file]))
        return counts

    def _file(self, file: int, part: IngestReport) -> None:
        report = self.run.report
        report.files += part.files
        report.skipped_files += part.skipped_files
        report.failures.extend(part.failures)
        report.warnings.extend(part.warnings)
        report.record_failures.extend(part.record_failures)
        for read in part.files_detail:
            self.read.add(file)
            counts = self.file_counts(file)
            counts.records += read.records
            counts.failed += read.failed
            counts.stopped = read.stopped
            self.run.records += read.failed

    def _record(self, kind: RowKind, file: int, record: Record, by_record: bool, detail: Any) -> None:
        entry = self.entry(file, record, by_record)
        report = self.run.report
        if kind is RowKind.FAILED:
            self.run.fail(entry, str(detail))
        elif kind is RowKind.UNCHANGED:
            report.skipped_unchanged += 1
            entry.counts.skipped += 1
        elif kind is RowKind.VALID:
            entry.counts.ingested += 1
            report.documents += 1

    def _write(self, entries: list[tuple[int, Record, bool]], prepared: list[Prepared], embedded: Embedded) -> None:
        pending = [self.entry(file, record, by_record) for file, record, by_record in entries]
        write_batch(self.engine, self.run, pending, prepared, embedded)

    def _written(self, entries: list[tuple[int, Record, bool]], outcomes: list[Outcome]) -> None:
        """Count a batch a write actor wrote, as :meth:`IngestOrchestrator.write_prepared` counts
        one; a document already counted as written counts as unchanged (its batch came twice).

        A document reaches a write actor only when the read stage found it new or changed, so a
        write actor that finds it complete already (``unchanged``) and that the driver has not
        counted was given a batch written once before by this run, by an actor that died before its
        report arrived: it counts as written, with its chunks (whether that first write replaced an
        earlier version is not known then: it counts as not replaced)."""
        report = self.run.report
        for (file, record, by_record), outcome in zip(entries, outcomes, strict=True):
            entry = self.entry(file, record, by_record)
            if outcome.status == "failed":
                self.run.fail(entry, outcome.reason)
            elif record.document.document_id not in self.written:
                self.written.add(record.document.document_id)
                entry.counts.ingested += 1
                report.documents += 1
                report.chunks += outcome.chunks
                report.replaced += int(outcome.replaced)
            else:
                report.skipped_unchanged += 1
                entry.counts.skipped += 1

    def finish(self) -> None:
        """The per-file counts in file order, and bad records and failures in file and line order."""
        report = self.run.report
        order = {str(path): i for i, path in enumerate(self.files)}
        report.files_detail = [self.counts[i] for i in sorted(self.read)]
        report.record_failures.sort(key=lambda f: (order.get(f.file, len(order)), f.record))
        report.failures.sort(key=lambda f: order.get(f.path, -1))
        report.warnings.sort(key=lambda f: order.get(f.path, -1))


def worker_settings(settings: Settings, threads: int) -> Settings:
    """``settings`` as workers need them: the data folder absolute (workers have their own working
    folder) and, when ``encoders.threads`` is 0 (all cores), ``threads`` ONNX threads an actor."""
    update: dict[str, Any] = {"data_dir": str(settings.data_path.absolute())}
    if not settings.encoders.threads:
        update["encoders"] = settings.encoders.model_copy(update={"threads": threads})
    return settings.model_copy(update=update)


@dataclass(frozen=True)
class Plan:
    """How many of what the pipeline asks of the cluster (:func:`plan`)."""

    actors: int
    actor_cpus: float
    actor_gpus: float
    tasks: int
    writers: int = 0
    """Write actors; 0: the driver writes (embedded stores)."""


def plan(resources: dict[str, float], options: RayOptions, servers: bool = False) -> Plan:
    """The embed pool and the task pool for a cluster's ``resources``: ``options.actors`` actors
    (else one a GPU, else the CPUs less one, at least 1) of ``options.actor_cpus`` CPUs each, fewer
    CPUs each when that would leave no room for one read task of ``options.task_cpus`` (the pipeline
    would wait forever), and as many read tasks at a time as the CPUs the actors leave allow. With
    ``servers`` (every store a server) ``options.writers`` write actors (else one an embed actor);
    without, the driver writes, and asking for write actors is an error.

    Raises:
        InvalidRequest: ``options.writers`` set while a store lives in the data folder.
    """
    if options.writers and not servers:
        raise InvalidRequest("--ray-writers needs server stores (milvus.uri a Milvus server, lexical.backend "
                             "milvus, registry.url PostgreSQL): an embedded store has one writer, this process",
                             {"field": "ray_writers"})
    cpus = float(resources.get("CPU", 1))
    gpus = int(resources.get("GPU", 0))
    actors = options.actors or gpus or max(1, int(cpus) - 1)
    actor_cpus = min(options.actor_cpus, max(0.1, (cpus - options.task_cpus) / actors))
    tasks = max(1, int((cpus - actors * actor_cpus) / options.task_cpus))
    writers = (options.writers or actors) if servers else 0
    return Plan(actors, actor_cpus, 1.0 if gpus else 0.0, tasks, writers)


def ray_ingest(engine: Engine, paths: Sequence[Path], kb_name: str, progress: ProgressFn | None = None, *,
               dry_run: bool = False, max_errors: int | None = None,
               options: RayOptions | None = None) -> IngestReport:
    """Ingest ``paths`` into ``engine``'s stores on Ray Data; returns the local ingest's report.

    Raises:
        PluginUnavailable: Ray is not installed.
        StoreUnavailable: a store cannot be reached.
    """
    try:
        import ray
    except ImportError:
        raise PluginUnavailable(RAY_MISSING) from None
    options = options or RayOptions()
    started = time.perf_counter()
    ctx = engine.request_context()
    run = _Run(IngestReport(dry_run=dry_run), progress)
    files = [Path(os.path.abspath(p)) for p in source_files(ctx, paths, run.report)]
    collector = _Collector(engine, run, files)
    if files and not dry_run and parallel_writes(engine.settings):
        # the write actors' engines open these servers' tables at the same moment: created here first
        ctx.services.registry.get("")
        if ctx.services.has("tokens"):
            ctx.services.tokens.get([])
    if files:
        joined = ray.is_initialized()
        if not joined:
            ray.init(address=options.address, include_dashboard=False, log_to_driver=False,
                     logging_level=logging.ERROR)
        try:
            with ray_data_context(ray):
                for kind, file, payload in _rows(ray, engine.settings, files, kb_name, dry_run, max_errors, options):
                    collector.take(kind, file, payload)
        finally:
            if not joined:
                ray.shutdown()
    collector.finish()
    run.tick(force=True)
    run.report.seconds = time.perf_counter() - started
    return run.report


@contextmanager
def ray_data_context(ray: Any) -> Iterator[None]:
    """Ray Data set up for the ingest while the pipeline runs, as it was afterwards: blocks of at most
    :data:`BLOCK_BYTES` (Ray Data's 128 MiB would put a whole file's records in one block: one actor
    would embed all of it and the driver would see nothing until it ended), no progress bars and
    none of its notices (the ingest reports its own progress; errors still show)."""
    data_context = ray.data.DataContext.get_current()
    kept = data_context.target_max_block_size, data_context.enable_progress_bars
    data_context.target_max_block_size, data_context.enable_progress_bars = BLOCK_BYTES, False
    logger = logging.getLogger("ray.data")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=UserWarning, module="ray.data")
            yield
    finally:
        logger.setLevel(level)
        data_context.target_max_block_size, data_context.enable_progress_bars = kept


def _rows(ray: Any, settings: Settings, files: list[Path], kb_name: str, dry_run: bool, max_errors: int | None,
          options: RayOptions) -> Any:
    """The rows the pipeline delivers to the driver, as they come."""
    sized = plan(ray.cluster_resources(), options, parallel_writes(settings))
    shipped = worker_settings(settings, max(1, round(sized.actor_cpus)))
    limit = max_errors if max_errors is not None else settings.ingest.max_record_errors
    tasks = ray.data.TaskPoolStrategy(size=sized.tasks)
    ds = ray.data.from_items([{"file": i, "path": str(p)} for i, p in enumerate(files)],
                             override_num_blocks=len(files))
    ds = ds.flat_map(read_file_rows, compute=tasks, num_cpus=options.task_cpus,
                     fn_kwargs={"settings": shipped, "kb_name": kb_name, "limit": limit, "dry_run": dry_run})
    ds = ds.map_batches(prepare_rows, batch_size=options.batch_docs, batch_format="numpy", compute=tasks,
                        num_cpus=options.task_cpus, fn_kwargs={"settings": shipped, "dry_run": dry_run})
    if not dry_run:
        ds = ds.map_batches(EmbedActor, batch_size=options.batch_docs, batch_format="numpy",
                            fn_constructor_kwargs={"settings": shipped},
                            compute=ray.data.ActorPoolStrategy(size=sized.actors), num_cpus=sized.actor_cpus,
                            num_gpus=sized.actor_gpus)
        if sized.writers:
            # one call a block (an embed call's output: one embedded batch and the rows that pass through,
            # so a batch is written as soon as it is embedded); the writers wait on the servers, so they
            # take no CPU of the plan (it stays the embed pool's)
            ds = ds.map_batches(WriteActor, batch_size=None, batch_format="numpy",
                                fn_constructor_kwargs={"settings": shipped},
                                compute=ray.data.ActorPoolStrategy(size=sized.writers), num_cpus=0)
    for item in ds.iter_rows():
        yield RowKind(str(item["kind"])), int(item["file"]), bytes(item["payload"])

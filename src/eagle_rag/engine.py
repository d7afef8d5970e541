"""The engine: one Eagle-RAG instance in this process, the in-process
:class:`~eagle_rag.service.backend.Searcher` (the HTTP client is the other), and what the in-process
:class:`~eagle_rag.service.backend.Backend` (:mod:`eagle_rag.service.local_backend`) runs commands on.

``Engine`` is a :class:`~eagle_rag.kernel.runtime.Runtime` (settings, plugins, encoders, stores) with
the public methods users call: :meth:`Engine.search`, :meth:`Engine.ingest`, :meth:`Engine.warm_up`.
Building one is cheap: stores connect and models load on first use, or all at once in ``warm_up``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from eagle_rag.errors import InvalidRequest
from eagle_rag.ingest.executors import Executor, RayOptions
from eagle_rag.ingest.orchestrator import IngestReport, ProgressFn, StageProgressFn
from eagle_rag.ingest.ray_executor import ray_ingest
from eagle_rag.ingest.sources import missing_paths_error
from eagle_rag.kernel.runtime import Runtime, build_encoders
from eagle_rag.ops.warm_up import WarmUpReport, warm_up
from eagle_rag.service import health as index_health
from eagle_rag.service.requests import require_kb_name
from eagle_rag.service.searching import search

__all__ = ["Engine", "build_encoders"]


class Engine(Runtime):
    """One Eagle-RAG instance. Use as a context manager or call :meth:`close`."""

    def ingest(self, paths: Sequence[Path | str], kb_name: str = "default",
               progress: ProgressFn | None = None, *, dry_run: bool = False,
               max_errors: int | None = None, skip_missing: bool = False,
               executor: Executor | str = Executor.LOCAL, ray: RayOptions | None = None,
               stage_progress: StageProgressFn | None = None) -> IngestReport:
        """Ingest files and folders record by record; see :mod:`eagle_rag.ingest.orchestrator`.

        ``progress`` is called with (records read, None); ``stage_progress`` (local executor) with
        ``("preparing", records, records of the batch)`` and ``("embedding", chunks, chunks of the batch)``
        while a batch is written, so a caller can show the ingest moving after it has read a batch.

        ``dry_run`` parses and validates only (nothing is written); ``max_errors`` overrides
        ``ingest.max_record_errors``, the bad records a file may have before it stops.
        ``executor`` ``ray`` runs the same stages on Ray Data (:mod:`eagle_rag.ingest.ray_executor`,
        options ``ray``) and reports the same way.

        Returns the report. A file that could not be ingested (empty, unreadable, of an unsupported
        type, not a regular file, no record ingested) is a failure in ``report.failures`` and a bad
        record one in ``report.record_failures``, even when nothing at all was ingested: no
        :class:`~eagle_rag.errors.IngestError` is raised for them (check ``report.any_failed``).
        :class:`eagle_rag.client.http.EagleClient.ingest` behaves the same.

        Raises:
            InvalidRequest: a path does not exist (before anything is read or written), unless
                ``skip_missing`` is set: such a path is then a failure in the report.
            StoreUnavailable: a store cannot be reached.
        """
        require_kb_name(kb_name)
        if max_errors is not None and max_errors < 0:
            raise InvalidRequest("max_errors must be 0 or more", {"field": "max_errors"})
        given = [Path(p) for p in paths]
        missing = missing_paths_error(given)
        if missing is not None and not skip_missing:
            raise missing
        index_health.check_servers(self)
        ctx = self.request_context()
        with index_health.ingesting(self):
            if Executor.from_str(str(executor)) is Executor.RAY:
                report = ray_ingest(self, given, kb_name, progress, dry_run=dry_run, max_errors=max_errors,
                                    options=ray)
            else:
                report = self.ingestor.ingest_paths(ctx, given, kb_name, progress, dry_run=dry_run,
                                                    max_errors=max_errors, stage_progress=stage_progress)
        if report.chunks:
            self.flush()
        return report

    def check_servers(self) -> None:
        """Connect to a Milvus server and refuse settings it cannot run (see
        :func:`eagle_rag.service.health.check_servers`)."""
        index_health.check_servers(self)

    def warm_up(self) -> WarmUpReport:
        """Load the models, vocabularies and stores the first query would load, and run each once,
        so the first query costs what the hundredth does. ``eagle-rag serve`` calls it before it
        reports ready."""
        return warm_up(self)

    search = search
    """``engine.search(request)``: the service's :func:`~eagle_rag.service.searching.search` itself, bound
    to this engine (a front end that holds a Backend calls the service with no hop in between)."""

    def __enter__(self) -> Engine:
        return self

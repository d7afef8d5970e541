"""The in-process :class:`~eagle_rag.service.backend.Backend`: every command on an
:class:`~eagle_rag.engine.Engine` of this process, through the same service and ops functions the
HTTP routes call (:mod:`eagle_rag.service.documents`, :mod:`eagle_rag.ops.doctor`,
:mod:`eagle_rag.ops.snapshots`, :mod:`eagle_rag.ops.reindex`), so both Backends answer alike."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from eagle_rag.client.server_file import ensure_folder_free
from eagle_rag.ingest.executors import Executor

if TYPE_CHECKING:
    from pathlib import Path

    from eagle_rag.engine import Engine
    from eagle_rag.ingest.executors import RayOptions
    from eagle_rag.ingest.orchestrator import IngestReport
    from eagle_rag.ops.doctor import DoctorReport
    from eagle_rag.ops.progress import CommandProgress
    from eagle_rag.service.tools import ToolSource
    from eagle_rag.settings import Settings
    from eagle_rag.types import SearchRequest, SearchResponse


class LocalBackend:
    """The commands of the data folder of ``settings``, run on ``engine`` (left open: its owner closes
    it), or on an engine opened at first need (after checking that the folder is free) and closed by
    :meth:`close`."""

    def __init__(self, settings: Settings, engine: Engine | None = None, action: str = "this command") -> None:
        self.settings = settings
        self.action = action
        self._engine = engine
        self._opened: Engine | None = None
        if engine is not None:  # the engine's own bound method: a search crosses no frame of this module
            vars(self)["search"] = engine.search

    @property
    def engine(self) -> Engine:
        """The engine the commands run on."""
        if self._engine is None:
            from eagle_rag.engine import Engine

            ensure_folder_free(self.settings.data_path, self.settings.milvus_uri, self.action)
            self._engine = self._opened = Engine(self.settings)
        return self._engine

    def search(self, request: SearchRequest) -> SearchResponse:
        return self.engine.search(request)

    def ingest(self, paths: Sequence[Path], kb_name: str = "default", *, dry_run: bool = False,
               max_errors: int | None = None, executor: Executor | str = Executor.LOCAL, ray: RayOptions | None = None,
               progress: CommandProgress | None = None) -> IngestReport:
        engine = self.engine
        with progress if progress is not None else nullcontext() as shown:
            return engine.ingest(paths, kb_name, shown.update if shown else None, dry_run=dry_run,
                                 max_errors=max_errors, executor=executor, ray=ray,
                                 stage_progress=shown.stage if shown else None)

    def get_document(self, document_id: str, kb_name: str | None = None) -> dict[str, Any]:
        from eagle_rag.service.documents import get_document

        return get_document(self.engine, document_id, kb_name)

    def delete_document(self, document_id: str, kb_name: str | None = None) -> dict[str, Any]:
        from eagle_rag.service.documents import delete_document

        return delete_document(self.engine, document_id, kb_name)

    def kb_names(self) -> list[str] | None:
        return sorted(self.engine.registry.kb_names())

    def doctor(self, repair: bool = False) -> DoctorReport:
        from eagle_rag.ops import doctor as checks
        from eagle_rag.service.health import stores_reachable

        engine = self.engine
        with stores_reachable(self.settings):
            report = checks.check(engine)
            if repair and report.findings:
                checks.repair(engine, report)
        return report

    def create_snapshot(self, name: str | None = None) -> dict[str, Any]:
        from eagle_rag.ops.snapshots import create_snapshot

        return create_snapshot(self.engine, name).to_dict()

    def snapshots(self) -> list[dict[str, Any]]:
        from eagle_rag.ops.snapshots import list_snapshots

        return [m.summary() for m in list_snapshots(self.settings)]

    def delete_snapshot(self, name: str) -> dict[str, Any]:
        from eagle_rag.ops.snapshots import delete_snapshot

        delete_snapshot(self.settings, name)
        return {"name": name, "deleted": True}

    def reindex(self, encoder: str | None, collections: list[str] | None = None, dim: int | None = None, *,
                rollback: bool = False, drop_old: bool = False) -> dict[str, Any]:
        from eagle_rag.ops.reindex import run_request

        return run_request(self.engine, encoder, collections, dim, roll_back=rollback, drop=drop_old)

    def tool_source(self) -> ToolSource:
        from eagle_rag.service.core_tools import build_tool_registry

        return build_tool_registry(self.engine)

    def close(self) -> None:
        """Close the engine this backend opened (not one it was given)."""
        if self._opened is not None:
            self._opened.close()
            self._engine = self._opened = None

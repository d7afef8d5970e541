"""The :class:`~eagle_rag.service.backend.Backend` of a running server, over its HTTP API
(:class:`~eagle_rag.client.http.EagleClient`): the answers are read into the same types and dict shapes
as the in-process one gives (:mod:`eagle_rag.service.local_backend`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from eagle_rag.errors import EagleError, IngestError, InvalidRequest
from eagle_rag.ingest.executors import Executor

if TYPE_CHECKING:
    from pathlib import Path

    from eagle_rag.client.http import EagleClient
    from eagle_rag.ingest.executors import RayOptions
    from eagle_rag.ingest.orchestrator import IngestReport
    from eagle_rag.ops.doctor import DoctorReport
    from eagle_rag.ops.progress import CommandProgress
    from eagle_rag.service.remote_tools import RemoteToolRegistry
    from eagle_rag.types import SearchRequest, SearchResponse

REPAIR_OVER_HTTP = ("doctor --repair works on the data folder itself, not over HTTP: run it on the server's machine "
                    "with the server stopped")


class RemoteBackend:
    """The commands of the server behind ``client`` (closed by :meth:`close`); ``profile`` is this
    process's, for the notice of :meth:`tool_source`."""

    def __init__(self, client: EagleClient, profile: str = "") -> None:
        self.client = client
        self.profile = profile

    def search(self, request: SearchRequest) -> SearchResponse:
        return self.client.search(request)

    def ingest(self, paths: Sequence[Path], kb_name: str = "default", *, dry_run: bool = False,
               max_errors: int | None = None, executor: Executor | str = Executor.LOCAL, ray: RayOptions | None = None,
               progress: CommandProgress | None = None) -> IngestReport:
        """Upload ``paths``; ``progress`` is not shown (the server counts). Raises InvalidRequest (field
        ``executor``) for ``executor`` ``ray``, which writes the data folder that the server owns."""
        if Executor.from_str(str(executor)) is Executor.RAY:
            raise InvalidRequest(f"--executor ray writes the data folder itself, but the server at {self.client.url} "
                                 "owns it: stop the server (or ingest through it without --executor ray)",
                                 {"field": "executor"})
        try:
            return self.client.ingest(paths, kb_name=kb_name, dry_run=dry_run, max_errors=max_errors)
        except IngestError as exc:  # nothing ingested: the report it carries, when it names the failures
            from eagle_rag.client.http import ingest_report

            report = ingest_report(exc.details.get("report") or {})
            if not report.failures:
                raise
            return report

    def get_document(self, document_id: str, kb_name: str | None = None) -> dict[str, Any]:
        return self.client.get_document(document_id, kb_name=kb_name)

    def delete_document(self, document_id: str, kb_name: str | None = None) -> dict[str, Any]:
        return self.client.delete_document(document_id, kb_name=kb_name)

    def kb_names(self) -> list[str] | None:
        """``GET /kbs``'s names; None when the server's list cannot be read."""
        try:
            return sorted(str(item["name"]) for item in self.client.kbs())
        except (EagleError, KeyError, TypeError):
            return None

    def doctor(self, repair: bool = False) -> DoctorReport:
        """``GET /doctor`` as a report. Raises InvalidRequest for ``repair``, which needs the folder itself."""
        if repair:
            raise InvalidRequest(REPAIR_OVER_HTTP, {"field": "url"})
        return doctor_report(self.client.doctor())

    def create_snapshot(self, name: str | None = None) -> dict[str, Any]:
        return self.client.create_snapshot(name)

    def snapshots(self) -> list[dict[str, Any]]:
        return self.client.snapshots()

    def delete_snapshot(self, name: str) -> dict[str, Any]:
        return self.client.delete_snapshot(name)

    def reindex(self, encoder: str | None, collections: list[str] | None = None, dim: int | None = None, *,
                rollback: bool = False, drop_old: bool = False) -> dict[str, Any]:
        body = {"encoder": encoder, "collections": collections, "dim": dim, "rollback": rollback, "drop_old": drop_old}
        return self.client.reindex({k: v for k, v in body.items() if v is not None})

    def tool_source(self) -> RemoteToolRegistry:
        """The server's tools, with a ``notice`` when the server runs another profile than this process
        (:func:`~eagle_rag.service.remote_tools.profile_notice`)."""
        from eagle_rag.service.remote_tools import RemoteToolRegistry, profile_notice

        tools = RemoteToolRegistry(self.client)
        tools.notice = profile_notice(self.profile, str(self.client.health().get("profile") or ""), self.client.url)
        return tools

    def close(self) -> None:
        self.client.close()


def doctor_report(data: dict[str, Any]) -> DoctorReport:
    """The :class:`~eagle_rag.ops.doctor.DoctorReport` of ``GET /doctor`` (``DoctorReport.to_dict``)."""
    from eagle_rag.ops.doctor import DoctorReport, Finding

    return DoctorReport(documents=dict(data.get("documents") or {}), chunks=dict(data.get("chunks") or {}),
                        findings=[Finding(kind=f["kind"], document_id=f["document_id"], detail=f["detail"],
                                          chunks=dict(f.get("chunks") or {})) for f in data.get("findings") or ()],
                        actions=list(data.get("actions") or ()), repaired=bool(data.get("repaired")))

"""``GET/DELETE /documents/{id}`` and ``POST /ingest`` (uploads or server-side paths)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Depends, File, Form, UploadFile
from fastapi import Path as PathParam

from eagle_rag import service
from eagle_rag.api.deps import ERROR_RESPONSES, check_plain_id, get_engine, get_write_lock
from eagle_rag.api.models import DeletedModel, DocumentModel, IngestReportModel
from eagle_rag.api.uploads import (
    remove_upload,
    resolve_server_paths,
    save_upload,
    uploads_root,
    validate_ingest_kb,
)
from eagle_rag.errors import IngestError, InvalidRequest, NotFound

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

router = APIRouter(tags=["documents"])
DocumentId = Annotated[str, PathParam(min_length=1, max_length=256, description="the document id")]
_RESPONSES_403: dict[int | str, dict[str, Any]] = {
    **ERROR_RESPONSES,
    403: {"model": ERROR_RESPONSES[400]["model"],
          "description": "a server-side path outside ingest.allowed_roots; code path_not_allowed"},
}


@router.get("/documents/{document_id}", response_model=DocumentModel, responses=ERROR_RESPONSES,
            summary="The registry record of a document", operation_id="get_document")
def get_document(document_id: DocumentId, engine: Engine = Depends(get_engine)) -> dict[str, Any]:
    return service.get_document(engine, check_plain_id(document_id, "document_id"))


@router.delete("/documents/{document_id}", response_model=DeletedModel, responses=ERROR_RESPONSES,
               summary="Remove a document from every store and the registry", operation_id="delete_document")
def delete_document(document_id: DocumentId, engine: Engine = Depends(get_engine),
                    lock: threading.Lock = Depends(get_write_lock)) -> dict[str, Any]:
    check_plain_id(document_id, "document_id")
    with lock:
        record = engine.registry.get(document_id)
        if record is None or not engine.ingestor.delete_document(engine.request_context(), document_id):
            raise NotFound(f"no document with id {document_id!r}", {"document_id": document_id})
        remove_upload(record.source_uri, engine.settings.data_path)
    return {"document_id": document_id, "deleted": True}


@router.post("/ingest", response_model=IngestReportModel, responses=_RESPONSES_403,
             summary="Ingest uploaded files, or files under the server's allowed roots",
             operation_id="ingest")
def ingest(
    files: Annotated[list[UploadFile] | None, File(description="files to upload and ingest")] = None,
    paths: Annotated[list[str] | None, Form(description="server-side files or folders, inside "
                                                        "ingest.allowed_roots (off when unset)")] = None,
    kb_name: Annotated[str, Form(max_length=64, description="knowledge base to ingest into")] = "default",
    engine: Engine = Depends(get_engine),
    lock: threading.Lock = Depends(get_write_lock),
) -> dict[str, Any]:
    """Send ``multipart/form-data`` with one or more ``files`` parts and/or ``paths`` fields.

    Re-sending a file replaces its document (ids are stable per kb and file name). The answer is
    the ingest report; when nothing at all could be ingested it is a 422 ``ingest_failed`` with
    the report in ``details``. The whole body is bounded by ``api.max_upload_bytes``.
    """
    validate_ingest_kb(kb_name)
    files, paths = files or [], paths or []
    limit = engine.settings.api.max_ids_per_request
    if not files and not paths:
        raise InvalidRequest("send files to upload or server-side paths", {"fields": ["files", "paths"]})
    if len(files) + len(paths) > limit:
        raise InvalidRequest(f"{len(files) + len(paths)} files and paths; the limit is {limit}",
                             {"limit": limit})
    sources: list[Path] = resolve_server_paths(paths, engine.settings.ingest.allowed_roots) if paths else []
    with lock:
        if files:
            target = uploads_root(engine.settings.data_path, kb_name)
            max_bytes = engine.settings.ingest.max_file_bytes
            sources += [save_upload(f.file, f.filename, target, max_bytes) for f in files]
        report = engine.ingest(sources, kb_name=kb_name)
    out = {"kb_name": kb_name, **report.to_dict()}
    if report.failures and not report.documents and not report.skipped_unchanged:
        raise IngestError("no document could be ingested", {"report": out})
    return out

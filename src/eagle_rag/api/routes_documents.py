"""``GET/DELETE /kbs/{kb}/documents/{id}`` (and the alias ``/documents/{id}``) and ``POST /ingest``
(uploads or server-side paths).

A document is named by its kb and its own id: the same id may live in several kbs. The alias
without the kb answers when exactly one kb holds the id (or for the kb of the ``kb_name`` query
parameter) and refuses an ambiguous id with 409 ``ambiguous_document``.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Request, UploadFile
from fastapi import Path as PathParam

from eagle_rag import service
from eagle_rag.api.deps import (
    ALIAS_RESPONSES,
    ERROR_RESPONSES,
    KbChoice,
    KbName,
    check_plain_id,
    get_engine,
    get_write_lock,
)
from eagle_rag.api.models import DeletedModel, DocumentModel, IngestReportModel
from eagle_rag.api.uploads import (
    UploadBatch,
    resolve_server_paths,
    store_failure,
    validate_ingest_kb,
)
from eagle_rag.errors import IngestError, InvalidRequest
from eagle_rag.redact import scrub
from eagle_rag.service.health import check_index, shares_registry

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

router = APIRouter(tags=["documents"])
DocumentId = Annotated[str, PathParam(min_length=1, max_length=256, description="the document id")]
_RESPONSES_403: dict[int | str, dict[str, Any]] = {
    **ERROR_RESPONSES,
    403: {"model": ERROR_RESPONSES[400]["model"],
          "description": "a server-side path outside ingest.allowed_roots (code path_not_allowed), or a browser "
                         "request from another site (code cross_site_refused)"},
    413: {"model": ERROR_RESPONSES[400]["model"],
          "description": "the body is over api.max_upload_bytes, a file over ingest.max_file_bytes (code "
                         "payload_too_large), or the kb's uploads would pass api.max_upload_bytes_per_kb (code "
                         "upload_quota_exceeded)"},
}


def _public_record(engine: Engine, document_id: str, kb_name: str | None) -> dict[str, Any]:
    return service.get_document(engine, check_plain_id(document_id, "document_id"), kb_name)


@router.get("/kbs/{kb_name}/documents/{document_id:path}", response_model=DocumentModel, responses=ERROR_RESPONSES,
            summary="The registry record of a document of one kb", operation_id="get_kb_document")
def get_kb_document(kb_name: KbName, document_id: DocumentId, engine: Engine = Depends(get_engine)) -> dict[str, Any]:
    """``source_uri`` names the file as the client knows it: an upload by the name it was sent
    under, a server-side file relative to its ingest root; never an absolute server path."""
    return _public_record(engine, document_id, kb_name)


@router.get("/documents/{document_id:path}", response_model=DocumentModel, responses=ALIAS_RESPONSES,
            summary="The registry record of a document (alias: the one kb holding the id, or kb_name)",
            operation_id="get_document")
def get_document(document_id: DocumentId, kb_name: KbChoice = None,
                 engine: Engine = Depends(get_engine)) -> dict[str, Any]:
    """As ``GET /kbs/{kb}/documents/{id}``; without ``kb_name`` a 409 when several kbs hold the id."""
    return _public_record(engine, document_id, kb_name)


_INGEST_BODY_RULE: dict[str, Any] = {"requestBody": {"content": {"multipart/form-data": {"schema": {
    "anyOf": [{"required": [name], "properties": {name: {"type": "array", "minItems": 1}}}
              for name in ("files", "paths")]}}}}}
"""The schema states what the server requires: at least one file or one path (an empty multipart body, or
``files`` and ``paths`` sent with no part, is a 400 ``send files to upload or server-side paths``)."""


async def refuse_empty_kb_name(request: Request) -> None:
    """An empty ``kb_name`` field is a 400 (a form leaves an empty field out, which would mean ``default``)."""
    form = await request.form()
    if "kb_name" in form and not str(form["kb_name"]).strip():
        raise InvalidRequest("kb_name is empty: leave the field out for the kb 'default', or name a kb",
                             {"field": "kb_name"})


@router.delete("/kbs/{kb_name}/documents/{document_id:path}", response_model=DeletedModel, responses=ERROR_RESPONSES,
               summary="Remove a document of one kb from every store and the registry",
               operation_id="delete_kb_document")
def delete_kb_document(kb_name: KbName, document_id: DocumentId, engine: Engine = Depends(get_engine),
                       lock: threading.Lock = Depends(get_write_lock)) -> dict[str, Any]:
    """Other kbs' documents of the same id stay."""
    return _delete(engine, lock, document_id, kb_name)


@router.delete("/documents/{document_id:path}", response_model=DeletedModel, responses=ALIAS_RESPONSES,
               summary="Remove a document (alias: the one kb holding the id, or kb_name)",
               operation_id="delete_document")
def delete_document(document_id: DocumentId, kb_name: KbChoice = None, engine: Engine = Depends(get_engine),
                    lock: threading.Lock = Depends(get_write_lock)) -> dict[str, Any]:
    """As ``DELETE /kbs/{kb}/documents/{id}``; without ``kb_name`` a 409 when several kbs hold the id."""
    return _delete(engine, lock, document_id, kb_name)


def _delete(engine: Engine, lock: threading.Lock, document_id: str, kb_name: str | None) -> dict[str, Any]:
    with lock:
        return service.delete_document(engine, check_plain_id(document_id, "document_id"), kb_name)


@router.post("/ingest", response_model=IngestReportModel, responses=_RESPONSES_403,
             summary="Ingest uploaded files, or files under the server's allowed roots",
             operation_id="ingest", dependencies=[Depends(refuse_empty_kb_name)], openapi_extra=_INGEST_BODY_RULE)
def ingest(
    files: Annotated[list[UploadFile] | None, File(description="files to upload and ingest")] = None,
    paths: Annotated[list[str] | None, Form(description="server-side files or folders, inside "
                                                        "ingest.allowed_roots (off when unset)")] = None,
    kb_name: Annotated[str, Form(max_length=64, description="knowledge base to ingest into")] = "default",
    dry_run: Annotated[bool, Form(description="parse and validate, report, write nothing")] = False,
    max_errors: Annotated[int | None, Form(ge=0, description="bad records a file may have before it stops "
                                                              "(default ingest.max_record_errors)")] = None,
    engine: Engine = Depends(get_engine),
    lock: threading.Lock = Depends(get_write_lock),
) -> dict[str, Any]:
    """Send ``multipart/form-data`` with one or more ``files`` parts and/or ``paths`` fields.

    Re-sending a file replaces its document (ids are stable per kb and file name). The answer is
    the ingest report, bad records of multi-record files included (``record_failures``, counts per
    file in ``files_detail``); when nothing at all could be ingested it is a 422 ``ingest_failed``
    with the report in ``details``. The whole body is bounded by ``api.max_upload_bytes``.
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
    settings = engine.settings
    uploads = UploadBatch(settings.data_path, kb_name, settings.ingest.max_file_bytes,
                          settings.api.max_upload_bytes_per_kb, keep=not shares_registry(settings))
    with lock:
        sources += [uploads.save(f.file, f.filename) for f in files]
        try:
            report = engine.ingest(sources, kb_name=kb_name, dry_run=dry_run, max_errors=max_errors,
                                   skip_missing=True)  # a missing server-side path is a failure in the report
        except BaseException:
            uploads.abandon()
            raise
        uploads.settle(report, dry_run)
    failed_store = store_failure(report, check_index(engine).problems)
    if failed_store is not None:
        raise failed_store
    out = scrub({"kb_name": kb_name, **report.to_dict()}, settings.data_path, settings.ingest.allowed_roots)
    if report.any_failed and not report.documents and not report.skipped_unchanged:
        raise IngestError("no document could be ingested", {"report": out})
    return out

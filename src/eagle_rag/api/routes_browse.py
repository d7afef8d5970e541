"""Read-only browse endpoints: ``GET /documents`` (list), ``GET /documents/{id}/chunks``, ``GET /kbs``
and ``GET /config`` (the settings in force, secrets masked). The web console reads them; so may anyone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query
from fastapi import Path as PathParam

from eagle_rag import service
from eagle_rag.api.deps import ALIAS_RESPONSES, ERROR_RESPONSES, KbName, check_plain_id, get_engine
from eagle_rag.api.models_browse import ConfigModel, DocumentChunksModel, DocumentListModel, KbListModel
from eagle_rag.errors import NotFound
from eagle_rag.kernel.plugin_options import setting_rows
from eagle_rag.protocols import DocumentRecord
from eagle_rag.redact import mask_secret, public_path
from eagle_rag.service.documents import source_file_name
from eagle_rag.settings import SettingsError, effective_settings
from eagle_rag.types import Chunk, DocumentStatus, chunk_version, content_version

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

router = APIRouter()
SCAN_PAGE = 1000
KbFilter = Annotated[str | None, Query(pattern=r"^[A-Za-z0-9_.\-]{1,64}$", description="only this kb")]
TypeFilter = Annotated[str | None, Query(pattern=r"^[A-Za-z0-9]{1,16}$",
                                         description="only this source file type (extension: md, jsonl, ...)")]
Limit = Annotated[int, Query(ge=1, le=500, description="page size")]
Offset = Annotated[int, Query(ge=0, le=10_000_000, description="items to skip")]


def document_type(source_uri: str) -> str:
    """The source file type of a document: the lower-cased extension of its file (``""`` if none)."""
    name = source_file_name(source_uri.split("#", 1)[0])
    return name.rsplit(".", 1)[1].lower() if "." in name else ""


def _item(engine: Engine, record: DocumentRecord) -> dict[str, Any]:
    settings = engine.settings
    return {**service.document_to_dict(record), "type": document_type(record.source_uri), "error": record.error,
            "source_uri": public_path(record.source_uri, settings.data_path, settings.ingest.allowed_roots)}


def _scan(engine: Engine, kb_name: str | None, status: DocumentStatus | None) -> Iterator[DocumentRecord]:
    offset = 0
    while True:
        page = engine.registry.list(kb_name=kb_name, status=status, limit=SCAN_PAGE, offset=offset)
        yield from page
        if len(page) < SCAN_PAGE:
            return
        offset += SCAN_PAGE


def _check_kb(engine: Engine, kb_name: str | None) -> None:
    if kb_name is not None and kb_name not in engine.registry.kb_names():
        raise NotFound(f"unknown kb name {kb_name!r} (GET /kbs lists them)", {"field": "kb_name"})


@router.get("/documents", response_model=DocumentListModel, responses=ERROR_RESPONSES, tags=["documents"],
            summary="List documents, filtered by kb, status and type, a page at a time",
            operation_id="list_documents")
def list_documents(kb_name: KbFilter = None,
                   status: Annotated[Literal["pending", "complete", "failed"] | None, Query()] = None,
                   type: TypeFilter = None, limit: Limit = 50, offset: Offset = 0,  # noqa: A002
                   engine: Engine = Depends(get_engine)) -> dict[str, Any]:
    """Registry records ordered by id; ``total`` counts every page. An unknown kb name is a 404."""
    _check_kb(engine, kb_name)
    wanted = DocumentStatus(status) if status else None
    if type is None:
        records = engine.registry.list(kb_name=kb_name, status=wanted, limit=limit, offset=offset)
        total = engine.registry.count(kb_name=kb_name, status=wanted)
    else:
        kind = type.lower()
        matching = [r for r in _scan(engine, kb_name, wanted) if document_type(r.source_uri) == kind]
        records, total = matching[offset:offset + limit], len(matching)
    filters = {k: v for k, v in (("kb_name", kb_name), ("status", status), ("type", type)) if v}
    return {"documents": [_item(engine, r) for r in records], "total": total, "offset": offset, "limit": limit,
            "filters": filters}


def current_chunks(engine: Engine, record: DocumentRecord) -> list[tuple[str, Chunk]]:
    """``(collection, chunk)`` for every chunk of the document's current version, in document order."""
    version = content_version(record.content_hash)
    out: list[tuple[str, Chunk]] = []
    for profile in engine.encoders.collections():
        if not engine.vectors.has_collection(profile.name):
            continue
        ids = [i for i in engine.vectors.chunk_ids_for_document(profile.name, record.id)
               if chunk_version(i) in (None, version)]
        out += [(profile.name, c) for c in engine.vectors.get_chunks(profile.name, sorted(ids))]
    return sorted(out, key=lambda pair: (pair[1].ordinal, pair[0], pair[1].id))


def _chunk(engine: Engine, collection: str, chunk: Chunk) -> dict[str, Any]:
    drugs = chunk.metadata.get("primary_drugs", "")
    names = drugs.split(",") if isinstance(drugs, str) else [str(d) for d in drugs or ()]
    return {"id": chunk.id, "ordinal": chunk.ordinal, "path": chunk.path, "text": chunk.text,
            "collection": collection, "encoder": engine.encoders.collection(collection).default_encoder,
            "chunk_type": chunk.chunk_type, "primary_drugs": [n.strip() for n in names if n.strip()],
            "metadata": dict(chunk.metadata)}


DocumentIdParam = Annotated[str, PathParam(min_length=1, max_length=256)]
ChunkLimit = Annotated[int, Query(ge=1, le=500)]


@router.get("/kbs/{kb_name}/documents/{document_id}/chunks", response_model=DocumentChunksModel,
            responses=ERROR_RESPONSES, tags=["documents"],
            summary="A document's chunks: text, section path, collection, encoder", operation_id="kb_document_chunks")
def kb_document_chunks(kb_name: KbName,
                       document_id: DocumentIdParam, limit: ChunkLimit = 200, offset: Offset = 0,
                       engine: Engine = Depends(get_engine)) -> dict[str, Any]:
    return _document_chunks(engine, document_id, kb_name, limit, offset)


@router.get("/documents/{document_id}/chunks", response_model=DocumentChunksModel, responses=ALIAS_RESPONSES,
            tags=["documents"], summary="A document's chunks (alias: the one kb holding the id, or kb_name)",
            operation_id="document_chunks")
def document_chunks(document_id: DocumentIdParam, kb_name: KbFilter = None, limit: ChunkLimit = 200,
                    offset: Offset = 0, engine: Engine = Depends(get_engine)) -> dict[str, Any]:
    """As ``/kbs/{kb}/documents/{id}/chunks``; without ``kb_name`` a 409 when several kbs hold the id."""
    return _document_chunks(engine, document_id, kb_name, limit, offset)


def _document_chunks(engine: Engine, document_id: str, kb_name: str | None, limit: int,
                     offset: int) -> dict[str, Any]:
    record = service.find_document(engine, check_plain_id(document_id, "document_id"), kb_name)
    chunks = current_chunks(engine, record)
    sections = list(dict.fromkeys(c.path for _, c in chunks if c.path))
    return {"document": _item(engine, record), "total": len(chunks), "offset": offset, "limit": limit,
            "sections": sections, "chunks": [_chunk(engine, col, c) for col, c in chunks[offset:offset + limit]]}


@router.get("/kbs", response_model=KbListModel, responses=ERROR_RESPONSES, tags=["documents"],
            summary="Knowledge bases and their document counts by status", operation_id="list_kbs")
def list_kbs(engine: Engine = Depends(get_engine)) -> dict[str, Any]:
    kbs = []
    for name in sorted(engine.registry.kb_names()):
        counts = {s.value: engine.registry.count(kb_name=name, status=s) for s in DocumentStatus}
        kbs.append({"name": name, "documents": sum(counts.values()), **counts})
    return {"kbs": kbs}


@router.get("/config", response_model=ConfigModel, responses=ERROR_RESPONSES, tags=["health"],
            summary="The settings in force (as `eagle-rag config show`), secrets masked", operation_id="config")
def config(engine: Engine = Depends(get_engine)) -> dict[str, Any]:
    """Each setting's value in this server and where it came from, then each option of the enabled
    plugins (as ``eagle-rag config show``); a value that differs from what the environment and files
    give now was passed in by the program that built the server (``override``)."""
    try:
        effective, sources = effective_settings()
        now = {r.key: r.value for r in setting_rows(effective, sources, engine.pm)}
    except SettingsError:
        now, sources = {}, {}
    rows = [{**r.to_dict(), "value": mask_secret(r.key, r.value),
             "source": r.source if now.get(r.key) == r.value else "override"}
            for r in setting_rows(engine.settings, sources, engine.pm)]
    return {"profile": engine.settings.profile, "settings": rows}

"""Response bodies of the read-only browse endpoints (``GET /documents``, ``/documents/{id}/chunks``,
``/kbs``, ``/config``) that the web console and other clients use to look at what is indexed."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from eagle_rag.api.models import DocumentModel


class DocumentListItem(DocumentModel):
    type: str = Field(description="the source file type (its extension: md, jsonl, pdf, ...)")
    error: str = Field("", description="why ingest failed (status failed)")


class DocumentListModel(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "documents": [], "total": 0, "offset": 0, "limit": 50, "filters": {"kb_name": "demo"}}]})

    documents: list[DocumentListItem]
    total: int = Field(description="documents matching the filters (all pages)")
    offset: int
    limit: int
    filters: dict[str, str] = Field(default_factory=dict, description="the filters applied")


class ChunkModel(BaseModel):
    id: str
    ordinal: int
    path: str = Field(description="the section path: headings joined by ' > '")
    text: str
    collection: str
    encoder: str = Field(description="the encoder label of the collection")
    chunk_type: str
    primary_drugs: list[str] = Field(default_factory=list,
                                     description="drugs the chunk is mainly about (when a plugin wrote them)")
    metadata: dict[str, Any] = Field(default_factory=dict)


class DocumentChunksModel(BaseModel):
    document: DocumentListItem
    chunks: list[ChunkModel]
    total: int = Field(description="chunks of the document's current version, in every collection")
    offset: int
    limit: int
    sections: list[str] = Field(description="distinct section paths, in document order")


class KbModel(BaseModel):
    name: str
    documents: int
    complete: int
    pending: int
    failed: int


class KbListModel(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "kbs": [{"name": "demo", "documents": 57, "complete": 57, "pending": 0, "failed": 0}]}]})

    kbs: list[KbModel]


class SettingModel(BaseModel):
    key: str = Field(description="dotted setting name, e.g. router.rrf_k")
    value: Any = Field(description="the value in force; secrets are masked")
    source: str = Field(description="default, profile:<name>, file:<path>, env:<VAR> or override")
    help: str = ""


class ConfigModel(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "profile": "biomed", "settings": [
            {"key": "router.rrf_k", "value": 60, "source": "default", "help": "RRF constant k"},
            {"key": "api.api_key", "value": "**********", "source": "env:EAGLE_RAG_API__API_KEY",
             "help": "require this X-API-Key header"}]}]})

    profile: str
    settings: list[SettingModel]

"""Request and response bodies of the HTTP API (pydantic), with the examples the OpenAPI schema shows.

Schema limits here are hard ceilings; the configured limits (``search.max_query_chars``,
``search.max_top_k``, ``search.max_filter_values``) are checked by the service and answered
with 400 ``invalid_request``.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from eagle_rag.types import MatchKind, SearchMode


def _plain_text(value: str) -> str:
    """Refuse NUL characters and lone surrogates (they cannot be stored or encoded as UTF-8)."""
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text (no lone surrogates)") from None
    return value


def _filter_value(value: str) -> str:
    """A filter value (id, tag): plain text without any control character (tab and newline included)."""
    _plain_text(value)
    bad = next((c for c in value if unicodedata.category(c) == "Cc"), None)
    if bad is not None:
        raise ValueError(f"must not contain the control character U+{ord(bad):04X}")
    return value


PlainText = Annotated[str, AfterValidator(_plain_text)]
FilterValue = Annotated[str, StringConstraints(min_length=1, max_length=256), AfterValidator(_filter_value)]
KbName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.\-]{1,64}$")]
HARD_MAX_QUERY_CHARS = 20_000
HARD_MAX_LIST = 1000


class ErrorDetail(BaseModel):
    code: str = Field(description="stable machine-readable code, e.g. invalid_request, not_found")
    message: str = Field(description="what went wrong, for people")
    details: dict[str, Any] = Field(default_factory=dict,
                                    description="structured context (field, limit, ...)")


class ErrorResponse(BaseModel):
    """The one error shape of every 4xx and 5xx answer."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"error": {"code": "invalid_request", "message": "top_k must be between 1 and 100, got 0",
                   "details": {"field": "top_k"}}}]})
    error: ErrorDetail


class SearchBody(BaseModel):
    """``POST /search``."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"query": "imatinib dosage in chronic myeloid leukemia", "top_k": 5, "kb_names": ["demo"]},
        {"query": "EGFR mutation lung cancer", "mode": "bm25", "tags": ["oncology"], "explain": True},
    ]})

    query: PlainText = Field(min_length=1, max_length=HARD_MAX_QUERY_CHARS,
                             description="the search text (limit: search.max_query_chars, default 2000)")
    top_k: int = Field(5, ge=1, le=100, description="hits to return (limit: search.max_top_k, at most 100)")
    kb_names: list[KbName] = Field(default_factory=list, max_length=HARD_MAX_LIST,
                                   description="restrict to these knowledge bases (unknown names: 404)")
    document_ids: list[FilterValue] = Field(default_factory=list, max_length=HARD_MAX_LIST,
                                            description="restrict to these documents")
    tags: list[FilterValue] = Field(default_factory=list, max_length=HARD_MAX_LIST,
                                    description="restrict to documents carrying any of these tags")
    mode: SearchMode = Field(SearchMode.HYBRID, description="bm25 | dense | hybrid | full")
    explain: bool = Field(False, description="add every hit's score trail (rank and score per stage)")
    strict: bool = Field(False, description="datasets catalog only (POST /datasets/search): exact name "
                                            "matching; the core search reports it in `warnings`")
    synonyms: bool = Field(True, description="datasets catalog only (POST /datasets/search): expand "
                                             "synonyms; the core search reports a change in `warnings`")
    has_image: bool = Field(False, description="the query comes with an image (routing hint for plugins)")


class StageScoreModel(BaseModel):
    stage: str
    rank: int = Field(description="rank in this stage, from 1")
    score: float
    detail: dict[str, float] = Field(default_factory=dict)


class SearchHitModel(BaseModel):
    id: str = Field(description="chunk id")
    document_id: str
    text: str
    score: float
    path: str = Field(description="document navigation: headings joined by ' > '")
    collection: str
    match: MatchKind = Field(description="exact | alias | synonym | partial | semantic | lexical")
    metadata: dict[str, Any] = Field(default_factory=dict)
    trail: list[StageScoreModel] = Field(default_factory=list, description="present with explain=true")


class SearchResponseModel(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "query": "imatinib dosage", "total": 1, "exhaustive": False, "mode": "hybrid",
        "hits": [{"id": "c1f0...", "document_id": "label_imatinib-2c878e4b",
                  "text": "The recommended dose...", "score": 0.0325,
                  "path": "Imatinib > Dosage and administration", "collection": "eagle_text",
                  "match": "exact", "metadata": {"kb_name": "demo"}, "trail": []}],
        "empty_reason": None, "excluded_by_filter": {}, "route": {"plans": ["eagle_text"]},
        "timings_ms": {"total": 12.5}, "warnings": [], "request_id": "3f2a..."}]})

    query: str
    hits: list[SearchHitModel]
    total: int = Field(description="number of hits returned")
    exhaustive: bool = Field(description="true when every match is returned (asking for more finds nothing)")
    mode: SearchMode
    empty_reason: str | None = Field(None, description="why the list is empty (null when it is not)")
    excluded_by_filter: dict[str, int] = Field(
        default_factory=dict, description="when empty: how many documents each filter excludes on its own")
    route: dict[str, Any] = Field(default_factory=dict, description="collections searched and why")
    timings_ms: dict[str, float] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list, description="options this endpoint did not apply")
    request_id: str = ""


class DocumentModel(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "id": "label_imatinib-2c878e4b", "kb_name": "demo", "name": "Imatinib",
        "source_uri": "/srv/labels/label_imatinib.md",
        "status": "complete", "chunk_count": 7, "tags": [], "content_hash": "9b1c...",
        "created_at": "2025-01-01T00:00:00+00:00", "updated_at": "2025-01-01T00:00:00+00:00"}]})

    id: str
    kb_name: str
    name: str
    source_uri: str
    status: str = Field(description="pending | complete | failed")
    chunk_count: int
    tags: list[str]
    content_hash: str
    created_at: str
    updated_at: str


class DeletedModel(BaseModel):
    document_id: str
    deleted: bool


class FileFailureModel(BaseModel):
    path: str
    error: str


class IngestReportModel(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "kb_name": "demo", "files": 2, "documents": 2, "chunks": 14, "skipped_unchanged": 0, "replaced": 0,
        "failures": [], "seconds": 1.2}]})

    kb_name: str
    files: int
    documents: int
    chunks: int
    skipped_unchanged: int
    replaced: int
    failures: list[FileFailureModel]
    seconds: float


class StoreHealth(BaseModel):
    state: str = Field(description="ok | down | timeout")
    latency_ms: float | None = None
    error: str | None = None
    info: dict[str, Any] = Field(default_factory=dict)


class HealthModel(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "status": "ok", "version": "0.1.0", "stores": {
            "registry": {"state": "ok", "latency_ms": 1.2, "info": {"documents": 42}},
            "vectors": {"state": "ok", "latency_ms": 5.0, "info": {"eagle_text": True}},
            "lexical": {"state": "ok", "latency_ms": 0.4, "info": {"eagle_text": 310}}}}]})

    status: str = Field(description="ok | degraded (the process is alive; a store is down or slow)")
    version: str
    stores: dict[str, StoreHealth]


class PluginInfo(BaseModel):
    name: str
    hooks: list[str]


class PluginsHealthModel(BaseModel):
    profile: str
    default_namespace: str
    plugins: list[PluginInfo]
    mcp_tools: list[str] = Field(description="the MCP tools this engine serves")
    mcp_error: str | None = Field(None, description="why the MCP tools could not be built (a refused tool)")
    recent_decisions: list[dict[str, Any]]
    audit: dict[str, Any] = Field(description="decision counts by category and sink errors by sink")

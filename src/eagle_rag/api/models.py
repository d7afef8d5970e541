"""Request and response bodies of the HTTP API (pydantic), with the examples the OpenAPI schema shows.

Schema limits here are hard ceilings; the configured limits (``search.max_query_chars``,
``search.max_top_k``, ``search.max_filter_values``) are checked by the service and answered
with 400 ``invalid_request``. The values the service checks itself (an empty query, a kb name,
``top_k``, ``offset``, an empty batch) are only shown in the schema (``json_schema_extra``), not
enforced by it: the service refuses them with 400 and the same message as in-process (``--local``,
Python).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from eagle_rag.service.requests import FilterValue, PlainText
from eagle_rag.types import Facet, MatchKind, SearchMode, TotalRelation

KB_NAME_PATTERN = r"^[A-Za-z0-9_.\-]{1,64}$"
SearchKbName = Annotated[str, Field(json_schema_extra={"pattern": KB_NAME_PATTERN})]
"""A kb name of a search: the schema shows the pattern, :func:`eagle_rag.service.validate_request` checks it."""
DateBound = Annotated[str, StringConstraints(pattern=r"^\d{4}(-\d{2}(-\d{2})?)?$")]
HARD_MAX_QUERY_CHARS = 20_000
HARD_MAX_LIST = 1000
HARD_MAX_IMAGE_B64 = 64 * 1024 * 1024  # base64 of a query image (the service applies ingest.max_file_bytes)
MAX_FILTER_VALUES = 100
"""Most values of one filter list (kb_names, document_ids, tags, ...); search.max_filter_values may only lower it."""


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

    # minLength, minimum and the kb name pattern: checked by the service, only shown in the schema
    query: PlainText = Field(max_length=HARD_MAX_QUERY_CHARS, json_schema_extra={"minLength": 1},
                             description="the search text, not blank (limit: search.max_query_chars, "
                                         "default 2000)")
    top_k: int = Field(5, strict=True, json_schema_extra={"minimum": 1},
                       description="hits to return, from 1 (limit: search.max_top_k, default 100)")
    kb_names: list[SearchKbName] = Field(default_factory=list, max_length=MAX_FILTER_VALUES,
                                         description="restrict to these knowledge bases (unknown names: 404)")
    document_ids: list[FilterValue] = Field(default_factory=list, max_length=MAX_FILTER_VALUES,
                                            description="restrict to these documents")
    tags: list[FilterValue] = Field(default_factory=list, max_length=MAX_FILTER_VALUES,
                                    description="restrict to documents carrying any of these tags")
    mode: SearchMode = Field(SearchMode.HYBRID, description="bm25 | dense | hybrid | full")
    explain: bool = Field(False, strict=True, description="add every hit's score trail (rank and score per stage)")
    has_image: bool = Field(False, strict=True, description="the query comes with an image (routing hint for plugins)")
    image: str | None = Field(None, min_length=1, max_length=HARD_MAX_IMAGE_B64,
                              description="a query image, base64 (PNG, JPEG, TIFF, DICOM, NIfTI): searched with a "
                                          "visual encoder; 400 when none has a model (see /health image_models)")
    offset: int = Field(0, strict=True, json_schema_extra={"minimum": 0},
                        description="hits to skip, from 0: page n of size k is offset=n*k "
                                    "(offset + top_k at most search.max_window, default 100)")
    source_types: list[FilterValue] = Field(default_factory=list, max_length=MAX_FILTER_VALUES,
                                            description="keep chunks of these source types (text, markdown, "
                                                        "html, jsonl, beir, ...)")
    chunk_types: list[FilterValue] = Field(default_factory=list, max_length=MAX_FILTER_VALUES,
                                           description="keep chunks of these chunk types")
    sections: list[FilterValue] = Field(default_factory=list, max_length=MAX_FILTER_VALUES,
                                        description="keep chunks of these sections (metadata section or "
                                                    "biomed_section, e.g. dosage, adverse_reactions; display "
                                                    "names, any case, singular or plural: 'Dosage and "
                                                    "Administration'; docs/api.md lists the biomed values)")
    doc_types: list[FilterValue] = Field(default_factory=list, max_length=MAX_FILTER_VALUES,
                                         description="keep chunks of these document types (metadata doc_type or "
                                                     "biomed_doc_type: compound, drug_label (label), patent, "
                                                     "research (abstract, article), other; any case, singular "
                                                     "or plural)")
    published_from: DateBound | None = Field(None, description="keep documents published on or after this "
                                                               "date (YYYY, YYYY-MM or YYYY-MM-DD)")
    published_to: DateBound | None = Field(None, description="keep documents published on or before this date")
    # the ranges: checked by the service (400 with its message), only shown in the schema
    recency: float | None = Field(None, strict=True, json_schema_extra={"exclusiveMinimum": 0},
                                  description="a half-life in days: each hit's fused rank is decayed by "
                                              "0.5 ** (age / half-life) of its publication date (undated hits "
                                              "are not decayed and are counted in undated); off by default")
    max_per_document: int | None = Field(None, strict=True, json_schema_extra={"minimum": 1},
                                         description="keep at most this many chunks of one document (the rest "
                                                     "are counted in dropped.max_per_document); off by default")
    diversity: float | None = Field(None, strict=True, json_schema_extra={"minimum": 0, "maximum": 1},
                                    description="the MMR lambda in [0, 1]: reorder by maximal marginal relevance "
                                                "over the hits' stored vectors (1: relevance only, 0: novelty "
                                                "only); off by default")
    facets: list[Facet] = Field(default_factory=list, max_length=len(Facet),
                                description="count these attributes over the whole matching set (every page): "
                                            "source_type, doc_type, section, year, kb")
    min_relevance: float | None = Field(None, strict=True, json_schema_extra={"minimum": 0, "maximum": 1},
                                        description="drop the hits whose relevance (probability) is under this; "
                                                    "counted in dropped.min_relevance")


class SearchBatchBody(BaseModel):
    """``POST /search/batch``: several searches in one request, answered in order."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"searches": [{"query": "imatinib dosage", "top_k": 3}, {"query": "warfarin bleeding", "top_k": 3}]}]})

    searches: list[SearchBody] = Field(max_length=HARD_MAX_LIST, json_schema_extra={"minItems": 1},
                                       description="the searches, at least one (limit: api.max_batch, "
                                                   "default 32)")


class StageScoreModel(BaseModel):
    stage: str
    rank: int = Field(description="rank in this stage, from 1")
    score: float
    detail: dict[str, float] = Field(default_factory=dict)
    skipped: str = Field("", description="why the stage left this hit unscored (e.g. language), empty if scored")


class SearchHitModel(BaseModel):
    id: str = Field(description="chunk id")
    document_id: str = Field(description="the document's own id; with kb_name it names the document")
    kb_name: str = Field("", description="the knowledge base of the document")
    text: str
    score: float
    path: str = Field(description="document navigation: headings joined by ' > '")
    collection: str
    match: MatchKind = Field(description="exact | alias | synonym | partial | semantic | lexical")
    metadata: dict[str, Any] = Field(default_factory=dict)
    trail: list[StageScoreModel] = Field(default_factory=list, description="present with explain=true")
    relevance: float | None = Field(None, description="calibrated probability that a person would judge the "
                                    "hit relevant (docs/api.md); null when the profile and mode have no model")


class SearchResponseModel(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "query": "imatinib dosage", "total": 1, "exhaustive": False, "mode": "hybrid",
        "hits": [{"id": "c1f0...", "document_id": "label_imatinib-2c878e4b", "kb_name": "demo",
                  "text": "The recommended dose...", "score": 0.0325,
                  "path": "Imatinib > Dosage and administration", "collection": "eagle_text",
                  "match": "exact", "metadata": {"kb_name": "demo"}, "trail": []}],
        "empty_reason": None, "excluded_by_filter": {}, "route": {"plans": ["eagle_text"]},
        "timings_ms": {"total": 12.5}, "warnings": [], "request_id": "3f2a..."}]})

    query: str
    hits: list[SearchHitModel]
    total: int = Field(description="matching hits in the candidate pool of the query (every page together)")
    total_relation: TotalRelation = Field(TotalRelation.EQ, description="eq: total is exact; gte: at least "
                                                                        "total (a candidate list was cut)")
    offset: int = Field(0, description="hits skipped before this page")
    exhaustive: bool = Field(description="true when no match lies beyond this page (asking for more finds nothing)")
    mode: SearchMode
    empty_reason: str | None = Field(None, description="why the list is empty (null when it is not)")
    excluded_by_filter: dict[str, int] = Field(
        default_factory=dict, description="when empty: how many of the documents the query matches each filter "
                                             "excludes on its own (only filters that exclude some)")
    route: dict[str, Any] = Field(default_factory=dict, description="collections searched and why")
    timings_ms: dict[str, float] = Field(default_factory=dict)
    filter_values: dict[str, list[str]] = Field(
        default_factory=dict, description="when a section or document-type filter emptied the list: the values "
                                          "of that attribute the documents matching the query carry")
    dropped: dict[str, int] = Field(default_factory=dict, description="candidates left out and why: "
                                    "semantic_floor (semantic-only hits under the cosine floor), filters "
                                    "(chunks the metadata filters removed), max_per_document (chunks of a "
                                    "document beyond max_per_document), min_relevance (hits under it)")
    expected_relevant: float | None = Field(None, description="sum of the hits' relevance: how many relevant "
                                            "hits to expect on this page (null without a relevance model)")
    relevance_note: str | None = Field(None, description="why the hits carry no relevance (no model fitted "
                                       "for the profile and mode), null when they do")
    warnings: list[str] = Field(default_factory=list, description="how the answer was degraded: a plugin "
                                "stage that failed and was skipped, or an option this endpoint did not apply")
    facets: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="for each facet asked: how many hits of the matching set (every page, "
                                          "the hits total counts) carry each value, most frequent first")
    undated: int = Field(0, description="with recency: hits of the matching set without a publication date "
                                        "(not decayed)")
    request_id: str = ""


class SearchBatchResponseModel(BaseModel):
    results: list[SearchResponseModel] = Field(description="one answer per search, in order")
    request_id: str = ""


class DocumentModel(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "id": "label_imatinib-2c878e4b", "kb_name": "demo", "name": "Imatinib",
        "source_uri": "label_imatinib.md",
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
    kb_name: str = Field("", description="the kb the deleted document belonged to")
    deleted: bool


class FileFailureModel(BaseModel):
    path: str
    error: str


class RecordFailureModel(BaseModel):
    file: str
    record: int = Field(description="the record's number in its file, from 1")
    reason: str
    line: int | None = Field(None, description="the line the record starts on, from 1")
    record_id: str | None = Field(None, description="the record's id, when it could be read")


class FileCountsModel(BaseModel):
    path: str
    records: int = Field(description="records read")
    ingested: int = Field(description="records written (new or changed); in a dry run, valid records")
    skipped: int = Field(description="records unchanged since the last ingest")
    failed: int = Field(description="bad records")
    stopped: str = Field(description="why the file stopped before its end (too many bad records); empty if not")


class IngestReportModel(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "kb_name": "demo", "files": 2, "documents": 2, "chunks": 14, "skipped_unchanged": 0, "replaced": 0, "added": 2,
        "failures": [], "seconds": 1.2, "records_failed": 1, "record_failures": [
            {"file": "/srv/corpus.jsonl", "record": 3, "line": 3, "record_id": None, "reason": "invalid JSON "
             "(Expecting value)"}],
        "files_detail": [{"path": "/srv/corpus.jsonl", "records": 3, "ingested": 2, "skipped": 0, "failed": 1,
                          "stopped": ""}], "dry_run": False}]})

    kb_name: str
    files: int
    documents: int
    chunks: int
    skipped_unchanged: int
    replaced: int = Field(description="documents of this kb that replaced an earlier version")
    added: int = Field(0, description="documents new to this kb")
    failures: list[FileFailureModel] = Field(description="files not ingested at all")
    seconds: float
    skipped_files: int = 0
    warnings: list[FileFailureModel] = Field(default_factory=list)
    records_failed: int = Field(0, description="bad records over every file")
    record_failures: list[RecordFailureModel] = Field(default_factory=list, description="every bad record")
    files_detail: list[FileCountsModel] = Field(default_factory=list, description="record counts per file")
    dry_run: bool = Field(False, description="true: parsed and validated only, nothing written")


class StoreHealth(BaseModel):
    state: str = Field(description="ok | down | timeout")
    latency_ms: float | None = None
    error: str | None = None
    info: dict[str, Any] = Field(default_factory=dict)


class DegradedPlugin(BaseModel):
    failures: dict[str, int] = Field(description="hook name -> unexpected failures since start")
    last: str = Field(description="the hook and exception of the last failure")


class HealthModel(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "status": "ok", "version": "0.1.0", "stores": {
            "registry": {"state": "ok", "latency_ms": 1.2, "info": {"documents": 42}},
            "vectors": {"state": "ok", "latency_ms": 5.0, "info": {"eagle_text": True}},
            "lexical": {"state": "ok", "latency_ms": 0.4, "info": {"eagle_text": 310}}}}]})

    status: str = Field(description="ok | degraded (the process is alive; a store is down or slow, or a "
                        "plugin stage failed)")
    version: str
    stores: dict[str, StoreHealth]
    degraded_plugins: dict[str, DegradedPlugin] = Field(
        default_factory=dict, description="plugins whose hooks failed unexpectedly since start: failures per hook")
    reasons: list[str] = Field(default_factory=list, description="why the status is degraded: a store down or "
                               "slow, a store file missing, store counts that disagree with the registry, a "
                               "failing plugin (empty when ok)")
    image_models: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="each visual encoder label: state (loaded, hash, configured, or missing: "
        "images are then indexed by their text only and a query image is refused), model_ref and detail")
    profile: str = Field("", description="the settings profile the server runs (biomed, general, ...): it "
                                         "decides the MCP tools the server serves")


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

"""The datasets plugin's front ends: HTTP routes and MCP tools over :mod:`eagle_rag_datasets.service`.

* ``eagle_api_register``: ``POST /datasets/search`` and ``POST /datasets/check``;
* ``eagle_mcp_tools``: ``datasets_search`` and ``datasets_check_ids`` (read-only, namespace
  ``datasets``: served whenever the plugin is enabled, unless ``mcp.namespaces`` leaves it out).

Both call the :class:`~eagle_rag_datasets.service.DatasetsService` that ``eagle_register`` put in
``ctx.services.extension("datasets", DatasetsService)`` (the bundled cards when it is absent). A
:class:`~eagle_rag_datasets.errors.DatasetsError` is a core ``InvalidRequest``: the API's error
handler answers it with a 400 in the one error shape, keeping its own code; an MCP tool returns
the same envelope. See docs/datasets.md, "Surfaces".
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from eagle_rag.plugin_api import InvalidRequest, McpTool, hookimpl
from eagle_rag.plugin_api.commands import FilterValue, PlainText
from eagle_rag_datasets.errors import DatasetsError
from eagle_rag_datasets.reply.advice import naming_control
from eagle_rag_datasets.search.engines.base import Engine
from eagle_rag_datasets.service import PLUGIN_NAME, DatasetsService

TOOL_NAMESPACE = PLUGIN_NAME
MCP_MAX_TOP_K = 50


MAX_VALUE_CHARS = 200
"""The longest filter value or id the catalog takes (the schema says so; longer ones are a 422)."""
MAX_IDS = 100
"""The most ids of one check: the ceiling of ``api.max_ids_per_request``."""
Value = Annotated[FilterValue, StringConstraints(max_length=MAX_VALUE_CHARS)]


class DatasetsSearchBody(BaseModel):
    """``POST /datasets/search``: search the dataset-card catalog."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"query": "BC5CDR chemical disease relation", "top_k": 5},
        {"query": "named entity recognition", "languages": ["en"], "licenses": ["cc-by"], "strict": True},
    ]})

    query: PlainText = Field(min_length=1, max_length=1000, description="words to search the cards for")
    top_k: int = Field(10, ge=1, le=100, description="cards to return")
    strict: bool = Field(False, description="every query term required (no partial or semantic matches)")
    semantic: bool = Field(True, description="the semantic channel: cards close in meaning, across Chinese and "
                           "English (match: semantic)")
    synonyms: bool = Field(True, description="expand synonyms (e.g. NER = named entity recognition)")
    typos: bool = Field(True, description="tolerate small typos")
    prior: bool = Field(True, description="rank verified, recent cards higher among equals")
    engine: str = Field(Engine.INDEX.value, max_length=32, json_schema_extra={"enum": [e.value for e in Engine]},
                        description="index | bm25 | substring (another name is a 400 unknown_engine)")
    explain: bool = Field(False, strict=True, description="add a score explanation per hit (true or false; 0 is "
                                                          "refused, as by /search)")
    languages: list[Value] = Field(default_factory=list, max_length=50, description="ISO codes or names")
    licenses: list[Value] = Field(default_factory=list, max_length=50, description="licence ids (cc-by: any)")
    tasks: list[Value] = Field(default_factory=list, max_length=50)
    sources: list[Value] = Field(default_factory=list, max_length=50)
    tags: list[Value] = Field(default_factory=list, max_length=50)


class DatasetsCheckBody(BaseModel):
    """``POST /datasets/check``: which dataset ids (or names) the catalog knows."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"ids": ["bigbio/bc5cdr", "bc5cdr", "no-such-dataset"]}]})

    ids: list[Value] = Field(min_length=1, max_length=MAX_IDS,
                             description="ids, names or aliases (limit: api.max_ids_per_request)")


def service_for(engine: Any) -> DatasetsService:
    """The engine's datasets service, or one over the bundled cards."""
    found = engine.ctx.services.extension(PLUGIN_NAME, DatasetsService)
    return found if found is not None else DatasetsService()


def _search_options(body: DatasetsSearchBody) -> dict[str, Any]:
    return body.model_dump(exclude={"query", "top_k"})


@hookimpl
def eagle_api_register(api: Any, engine: Any, error_responses: dict[int | str, dict[str, Any]]) -> None:
    """Add ``POST /datasets/search`` and ``POST /datasets/check``; returns None."""
    service = service_for(engine)
    limit = engine.settings.api.max_ids_per_request

    @api.post("/datasets/search", tags=["datasets"], responses=error_responses, operation_id="datasets_search",
              summary="Search the dataset-card catalog", response_model=dict[str, Any])
    def datasets_search(body: DatasetsSearchBody) -> dict[str, Any]:
        """Ranked cards (``match``: exact, alias, lexical, synonym, typo, partial or semantic), ``total``,
        ``exhaustive``, ``verdict`` and, when empty, why (``message``, ``exclusions``, ``unsatisfied``: the
        constraint term no card satisfies) with ``suggestions`` apart from the hits."""
        return service.search(body.query, body.top_k, **_search_options(body))

    @api.post("/datasets/check", tags=["datasets"], responses=error_responses, operation_id="datasets_check",
              summary="Which dataset ids the catalog knows", response_model=dict[str, Any])
    def datasets_check(body: DatasetsCheckBody) -> dict[str, Any]:
        """``known``, ``resolved`` (a name or variant naming exactly one card), ``ambiguous``, ``unknown``."""
        if len(body.ids) > limit:
            raise InvalidRequest(f"{len(body.ids)} ids; the limit is {limit}", {"field": "ids", "limit": limit})
        return service.check_ids(body.ids)


@hookimpl
def eagle_mcp_tools(engine: Any) -> list[McpTool]:
    """``datasets_search`` and ``datasets_check_ids`` (read-only)."""
    service = service_for(engine)
    limit = engine.settings.api.max_ids_per_request

    def datasets_search(query: str, top_k: int = 5, strict: bool = False, semantic: bool = True,
                        synonyms: bool = True, languages: list[str] | None = None, licenses: list[str] | None = None,
                        tasks: list[str] | None = None, tags: list[str] | None = None) -> dict[str, Any]:
        try:
            answer = service.search(query, top_k, strict=strict, semantic=semantic, synonyms=synonyms,
                                    languages=languages or (), licenses=licenses or (), tasks=tasks or (),
                                    tags=tags or ())
        except DatasetsError as exc:
            return exc.to_dict()
        return {**answer, "message": naming_control(str(answer.get("message", "")), "top_k", MCP_MAX_TOP_K)}

    def datasets_check_ids(ids: list[str]) -> dict[str, Any]:
        try:
            return service.check_ids(ids)
        except DatasetsError as exc:
            return exc.to_dict()

    values = {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 256}, "maxItems": 50}
    search_schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 1000, "description": "words to search for"},
            "top_k": {"type": "integer", "minimum": 1, "maximum": MCP_MAX_TOP_K, "default": 5},
            "strict": {"type": "boolean", "default": False, "description": "every query term required"},
            "semantic": {"type": "boolean", "default": True,
                         "description": "also cards close in meaning, across Chinese and English (match: semantic)"},
            "synonyms": {"type": "boolean", "default": True},
            "languages": values, "licenses": values, "tasks": values, "tags": values,
        },
        "required": ["query"],
    }
    check_schema = {
        "type": "object",
        "properties": {"ids": {"type": "array", "minItems": 1, "maxItems": limit,
                               "items": {"type": "string", "minLength": 1, "maxLength": 256}}},
        "required": ["ids"],
    }
    return [
        McpTool("datasets_search", "Search the catalog of biomedical dataset cards (name, task, licence, "
                "language), in English or Chinese. Each hit says how it matched (exact, alias, lexical, synonym, "
                "typo, partial, semantic). Says how many cards match and whether the list is complete; when "
                "empty, why (verdict; unsatisfied: a language, modality, species, country, licence, dataset name or "
                "topic (a MeSH disease, organism or procedure) no card has, or a language the request excludes, "
                "marked excluded) "
                "and the nearest cards as suggestions, which are not matches. Read-only.", search_schema,
                datasets_search, namespace=TOOL_NAMESPACE, title="Search dataset cards"),
        McpTool("datasets_check_ids", "Check which dataset ids or names exist in the catalog (known, resolved "
                "to one card, ambiguous, unknown). Read-only.", check_schema, datasets_check_ids,
                namespace=TOOL_NAMESPACE, title="Check dataset ids", failure_code="internal_error"),
    ]

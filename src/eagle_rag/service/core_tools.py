"""The core MCP tools: ``core_search`` (the one search service, with its modes and filters) and
``core_get_document``; answers written for agents, with a ``guidance`` sentence that says whether
to keep searching."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from eagle_rag import filter_names, service
from eagle_rag.service.tools import McpTool, ToolRegistry, plugin_tools, served_namespaces
from eagle_rag.types import Facet, SearchMode, SearchRequest, SearchResponse

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

KB_NAME_PATTERN = r"^[A-Za-z0-9_.\-]{1,64}$"
DATE_PATTERN = r"^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$"
LIST_FILTERS = {
    "document_ids": "only these documents (document_id of a hit)",
    "tags": "only documents carrying one of these tags",
    "source_types": "only chunks of these source types (e.g. markdown, jsonl, pdf)",
    "chunk_types": "only chunks of these chunk types",
    "sections": "only chunks of these sections (metadata section; any case, singular or plural, display names "
                "such as 'Dosage and Administration' too)",
    "doc_types": "only documents of these types (metadata doc_type; any case, singular or plural)",
}
"""The list filters of :class:`~eagle_rag.types.SearchRequest` a search tool takes, with their help."""


def guidance(response: SearchResponse, max_top_k: int) -> str:
    """One sentence telling an agent whether to keep searching."""
    if not response.hits:
        why = response.empty_reason or "nothing matched"
        excluded = ", ".join(f"{k} alone excludes {v} documents"
                             for k, v in response.excluded_by_filter.items() if v)
        said = f"No results: {why}" + (f" ({excluded})" if excluded else "")
        if response.offset and response.total:
            return f"{said}. Ask an offset below {response.total}."
        if response.dropped.get("min_relevance"):
            return f"{said}. Lower min_relevance, or rephrase the query."
        if response.exhaustive:
            return f"{said}. The list is complete; repeating this query will not find more."
        return (f"{said}. Candidates beyond those searched may still match weakly: try mode bm25 for term "
                "matches, or a more specific query.")
    expected = ("" if response.expected_relevant is None else
                f"About {response.expected_relevant:.1f} of these {len(response.hits)} hits are relevant "
                "(expected_relevant, the sum of the hits' relevance); read the hits in order and stop where "
                "relevance falls low. ")
    if response.exhaustive:
        return expected + "This list is complete: every match is listed; a larger top_k finds nothing more."
    return expected + (f"More matches may exist: ask the next page (offset + top_k), raise top_k (at most "
                       f"{max_top_k}) or narrow the query or kb_names to see them.")


def format_search(response: SearchResponse, text_chars: int, max_top_k: int) -> dict[str, Any]:
    """The agent-facing form of a SearchResponse: ranked hits (with their score trail when explained),
    completeness and, when empty, why."""
    hits = []
    for rank, hit in enumerate(response.hits, start=response.offset + 1):
        text = " ".join(hit.text.split())
        item = {"rank": rank, "chunk_id": hit.id, "document_id": hit.document_id,
                "document_name": str(hit.metadata.get("document_name", "")), "path": hit.path,
                "kb_name": str(hit.metadata.get("kb_name", "")), "collection": hit.collection,
                "score": hit.score, "relevance": hit.relevance, "match": hit.match.value, "text": text[:text_chars],
                "text_truncated": len(text) > text_chars}
        if hit.trail:
            item["trail"] = [{"stage": e.stage, "rank": e.rank, "score": e.score,
                              **({"skipped": e.skipped} if e.skipped else {})} for e in hit.trail]
        hits.append(item)
    return {"query": response.query, "mode": response.mode.value, "hits": hits, "total": response.total,
            "total_relation": response.total_relation.value, "offset": response.offset,
            "exhaustive": response.exhaustive, "expected_relevant": response.expected_relevant,
            **({"relevance_note": response.relevance_note} if response.relevance_note else {}),
            **({"dropped": dict(response.dropped)} if response.dropped else {}),
            "empty_reason": response.empty_reason, "excluded_by_filter": dict(response.excluded_by_filter),
            **({"filter_values": dict(response.filter_values)} if response.filter_values else {}),
            **({"facets": {name: dict(counts) for name, counts in response.facets.items()}} if response.facets else {}),
            **({"undated": response.undated} if response.undated else {}),
            "warnings": list(response.warnings), "guidance": guidance(response, max_top_k)}


def known_values(words: filter_names.FilterVocabulary, name: str) -> str:
    """``; valid values: a, b, ...`` for a filter whose values the plugins name, else ``""``."""
    known = words.values(name) if name in filter_names.FIELDS else ()
    return f"; valid values: {', '.join(known)} (or a value of your records' own metadata)" if known else ""


def search_schema(engine: Engine) -> dict[str, Any]:
    """The JSON schema of ``core_search``'s arguments, with the limits of ``engine.settings``."""
    mcp, limits = engine.settings.mcp, engine.settings.search
    words = filter_names.vocabulary(engine)
    values = {"type": "array", "maxItems": limits.max_filter_values, "uniqueItems": True,
              "items": {"type": "string", "minLength": 1, "maxLength": 256}}
    kb_name = {"type": "string", "pattern": KB_NAME_PATTERN}
    properties: dict[str, Any] = {
        "query": {"type": "string", "minLength": 1, "maxLength": limits.max_query_chars,
                  "description": "what to look for (English or Chinese)"},
        "top_k": {"type": "integer", "minimum": 1, "maximum": mcp.max_top_k, "default": mcp.default_top_k,
                  "description": f"most hits to return (default {mcp.default_top_k}, at most {mcp.max_top_k})"},
        "mode": {"type": "string", "enum": [m.value for m in SearchMode], "default": SearchMode.HYBRID.value,
                 "description": "bm25 (exact terms), dense (meaning), hybrid (both, fused; default) or full "
                                "(hybrid, then the rerankers: slower, best order)"},
        "kb_name": {**kb_name, "description": "restrict to one knowledge base"},
        "kb_names": {**values, "items": kb_name, "description": "restrict to these knowledge bases"},
        **{name: {**values, "description": help_text + known_values(words, name)}
           for name, help_text in LIST_FILTERS.items()},
        "published_from": {"type": "string", "pattern": DATE_PATTERN,
                           "description": "only documents published on or after this date (YYYY[-MM[-DD]])"},
        "published_to": {"type": "string", "pattern": DATE_PATTERN,
                         "description": "only documents published on or before this date (YYYY[-MM[-DD]])"},
        "offset": {"type": "integer", "minimum": 0, "maximum": limits.max_window - 1, "default": 0,
                   "description": f"hits to skip: the next page starts at offset + top_k (offset + top_k at most "
                                  f"{limits.max_window})"},
        "explain": {"type": "boolean", "default": False,
                    "description": "add each hit's score trail: the rank and score every stage gave it"},
        "recency": {"type": "number", "exclusiveMinimum": 0,
                    "description": "favour recent documents: a half-life in days; a hit's rank is decayed by "
                                   "0.5 ** (age / half-life) of its publication date (undated hits are not "
                                   "decayed; the answer counts them in undated)"},
        "max_per_document": {"type": "integer", "minimum": 1,
                             "description": "at most this many chunks of one document (e.g. 1: one hit per "
                                            "trial report)"},
        "diversity": {"type": "number", "minimum": 0, "maximum": 1,
                      "description": "diverse results: the MMR lambda (1 relevance only, 0 novelty only; 0.5 "
                                     "balances); near-duplicate hits move down"},
        "facets": {"type": "array", "uniqueItems": True, "items": {"type": "string", "enum": [f.value for f in Facet]},
                   "description": "count these attributes over every matching hit (not only this page), to "
                                  "narrow with the filters"},
        "min_relevance": {"type": "number", "minimum": 0, "maximum": 1,
                          "description": "drop hits whose relevance (the probability that a person would judge "
                                         "the hit relevant) is under this, e.g. 0.5 for likely-relevant only; "
                                         "the number dropped is in dropped.min_relevance"},
    }
    return {"type": "object", "properties": properties, "required": ["query"]}


def search_request(query: str, top_k: int, mode: str = SearchMode.HYBRID.value, kb_name: str | None = None,
                   kb_names: list[str] | None = None, offset: int = 0, explain: bool = False,
                   published_from: str | None = None, published_to: str | None = None,
                   recency: float | None = None, max_per_document: int | None = None,
                   diversity: float | None = None, min_relevance: float | None = None,
                   **lists: Any) -> SearchRequest:
    """The :class:`SearchRequest` of ``core_search``'s arguments (``kb_name`` joins ``kb_names``; the list
    arguments, filters and ``facets``, become tuples)."""
    kbs = list(dict.fromkeys([*(kb_names or ()), *([kb_name] if kb_name else [])]))
    filters: dict[str, Any] = {name: tuple(values) for name, values in lists.items()}
    return SearchRequest(query=query, top_k=top_k, mode=service.parse_mode(mode), kb_names=tuple(kbs),
                         offset=offset, explain=explain, published_from=published_from, published_to=published_to,
                         recency=recency, max_per_document=max_per_document, diversity=diversity,
                         min_relevance=min_relevance, **filters)


def core_tools(engine: Engine) -> list[McpTool]:
    """``core_search`` and ``core_get_document``, with the limits of ``engine.settings``."""
    mcp = engine.settings.mcp

    def core_search(query: str, top_k: int = mcp.default_top_k, **options: Any) -> dict[str, Any]:
        response = service.search(engine, search_request(query, top_k, **options))
        return format_search(response, mcp.hit_text_chars, mcp.max_top_k)

    def core_get_document(document_id: str, kb_name: str | None = None) -> dict[str, Any]:
        return service.get_document(engine, document_id, kb_name)

    document_schema = {
        "type": "object",
        "properties": {"document_id": {"type": "string", "minLength": 1, "maxLength": 256,
                                       "description": "a document_id from a search hit"},
                       "kb_name": {"type": "string", "pattern": r"^[A-Za-z0-9_.\-]{1,64}$",
                                   "description": "the kb_name of that hit (needed when several kbs hold the id)"}},
        "required": ["document_id"],
    }
    return [
        McpTool("core_search", "Search the indexed biomedical documents (BM25, dense or both fused; mode full adds "
                "the rerankers), optionally within knowledge bases, documents, tags, sections, document types or "
                "a publication date range; favour recent documents (recency), at most N chunks a document "
                "(max_per_document), diverse results (diversity) and value counts to narrow by (facets). "
                "Returns ranked evidence chunks with their document and section path, "
                "says whether the list is complete (`exhaustive`) and, when empty, why; `guidance` says whether "
                "to search on. Each hit's `relevance` is the calibrated probability that a person would judge "
                "it relevant (0-1; null when no model is fitted for the profile and mode); `expected_relevant` "
                "is their sum, the number of relevant hits to expect; pass `min_relevance` to keep only hits "
                "at least that likely. Read-only.", search_schema(engine), core_search, title="Search documents"),
        McpTool("core_get_document", "The registry record of one document (name, kb, source, status, chunk "
                "count, tags), named by a hit's document_id and kb_name. Read-only.", document_schema,
                core_get_document, title="Get a document",
                failure_code="internal_error"),
    ]


def build_tool_registry(engine: Engine) -> ToolRegistry:
    """The core tools plus the plugins' tools of the namespaces this engine serves."""
    registry = ToolRegistry(served_namespaces(engine.settings))
    for tool in [*core_tools(engine), *plugin_tools(engine)]:
        registry.add(tool)
    return registry

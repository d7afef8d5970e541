"""What the framework retrievers share: their search options, the searcher (an engine in this process
or a server over HTTP) and the metadata a hit carries into a framework's document or node."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from eagle_rag.errors import InvalidRequest
from eagle_rag.service.backend import borrow_async_backend, borrow_backend
from eagle_rag.service.requests import parse_mode
from eagle_rag.types import (
    DOC_TYPE_KEYS,
    PUBLISHED_KEYS,
    SECTION_KEYS,
    SearchHit,
    SearchMode,
    SearchRequest,
    SearchResponse,
    attribute_values,
    leading_date,
)

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

log = logging.getLogger("eagle_rag.integrations")
FILTER_FIELDS = ("document_ids", "tags", "source_types", "chunk_types", "sections", "doc_types",
                 "published_from", "published_to", "min_relevance")
"""The keys ``filters`` may hold (the filter fields of :class:`~eagle_rag.types.SearchRequest`; ``min_relevance``
drops the hits less likely relevant than it)."""


@dataclass(frozen=True)
class SearchOptions:
    """How a retriever searches: ``top_k`` hits in ``mode``, within ``kb_names`` and ``filters`` (keys of
    :data:`FILTER_FIELDS`, e.g. ``{"sections": ["Dosage and Administration"]}``), with the result options
    ``recency`` (a half-life in days), ``max_per_document`` and ``diversity`` (the MMR lambda) of
    :class:`~eagle_rag.types.SearchRequest` (off when None; checked when the search runs). Build with
    :meth:`of`. A retriever returns documents only, so it asks no facets.

    Raises InvalidRequest for an unknown mode or filter key."""

    top_k: int = 5
    mode: SearchMode = SearchMode.HYBRID
    kb_names: Sequence[str] = ()
    filters: Mapping[str, Any] = field(default_factory=dict)
    recency: float | None = None
    max_per_document: int | None = None
    diversity: float | None = None

    @classmethod
    def of(cls, top_k: int = 5, mode: SearchMode | str = SearchMode.HYBRID, kb_names: Sequence[str] | str = (),
           filters: Mapping[str, Any] | None = None, *, recency: float | None = None,
           max_per_document: int | None = None, diversity: float | None = None) -> SearchOptions:
        """The options with ``mode`` given by name or enum and ``kb_names`` as one name or several."""
        return cls(top_k, mode if isinstance(mode, SearchMode) else parse_mode(mode),
                   (kb_names,) if isinstance(kb_names, str) else tuple(kb_names), dict(filters or {}),
                   recency, max_per_document, diversity)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.filters) - set(FILTER_FIELDS))
        if unknown:
            raise InvalidRequest(f"unknown filter {', '.join(unknown)}; valid filters: {', '.join(FILTER_FIELDS)}",
                                 {"field": "filters"})

    def request(self, query: str) -> SearchRequest:
        """The search request of ``query`` with these options."""
        return SearchRequest(query=query, top_k=self.top_k, mode=self.mode, kb_names=tuple(self.kb_names),
                             recency=self.recency, max_per_document=self.max_per_document, diversity=self.diversity,
                             **dict(self.filters))


class Searcher:
    """Runs a :class:`SearchRequest` on ``engine`` (in this process) or on the server at ``url``.

    Raises InvalidRequest unless exactly one of ``engine`` and ``url`` is given."""

    def __init__(self, engine: Engine | None = None, url: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0) -> None:
        if (engine is None) == (url is None):
            raise InvalidRequest("give an engine (in this process) or the url of an Eagle-RAG server, not both",
                                 {"fields": ["engine", "url"]})
        self.engine = engine
        self.url = url
        self.api_key = api_key
        self.timeout = timeout

    def search(self, request: SearchRequest) -> SearchResponse:
        with borrow_backend(self.engine, self.url, self.api_key, self.timeout) as backend:
            response: SearchResponse = backend.search(request)
            return response

    async def asearch(self, request: SearchRequest) -> SearchResponse:
        """The same search without blocking the event loop (the engine runs in a worker thread)."""
        if self.engine is not None:
            response: SearchResponse = await asyncio.to_thread(self.engine.search, request)
            return response
        async with borrow_async_backend(str(self.url), self.api_key, self.timeout) as client:
            answer: SearchResponse = await client.search(request)
            return answer


def hit_source(hit: SearchHit) -> str:
    """What a RAG chain cites for a hit: its URL, or its file as the server shows it (``source_uri``
    without the ``#record`` anchor of a multi-record file); the document id when neither is known."""
    uri = str(hit.metadata.get("source_uri") or "")
    if "://" in uri:
        return uri
    return uri.split("#", 1)[0] or hit.document_id


def hit_metadata(hit: SearchHit, rank: int) -> dict[str, Any]:
    """The metadata of a hit in a framework's document or node: where it is (``source``: file or URL),
    how it scored and why, its document's ``tags``, and, when the document has them, its publication
    date (``published``, ``YYYY[-MM[-DD]]``), ``section`` and ``doc_type``."""
    meta = hit.metadata
    out: dict[str, Any] = {
        "source": hit_source(hit), "document_id": hit.document_id, "chunk_id": hit.id, "path": hit.path,
        "score": hit.score, "relevance": hit.relevance, "match": hit.match.value, "rank": rank,
        "kb_name": str(meta.get("kb_name", "")),
        "document_name": str(meta.get("document_name", "")), "collection": hit.collection,
        "tags": [str(t) for t in meta.get("tags") or ()]}
    published = leading_date(next((meta[k] for k in PUBLISHED_KEYS if meta.get(k) not in (None, "")), None))
    section, doc_type = attribute_values(meta, SECTION_KEYS), attribute_values(meta, DOC_TYPE_KEYS)
    for key, value in (("published", published), ("section", section[0] if section else None),
                       ("doc_type", doc_type[0] if doc_type else None)):
        if value:
            out[key] = value
    return out


EMPTY_EVENT = "eagle_rag_empty_result"
"""The name under which a retriever reports an empty answer's reason (LangChain custom event,
LlamaIndex instrumentation event ``EagleRagEmptyResult``)."""


def empty_report(response: SearchResponse) -> dict[str, Any] | None:
    """Why ``response`` has no hits, for a framework's callback and the log; None when it has hits.
    Logs a warning (logger ``eagle_rag.integrations``) naming the reason."""
    if response.hits:
        return None
    report = {"query": response.query, "empty_reason": response.empty_reason or "nothing matched",
              "excluded_by_filter": dict(response.excluded_by_filter), "exhaustive": response.exhaustive,
              "filter_values": {k: list(v) for k, v in response.filter_values.items()}}
    log.warning("eagle-rag: no results for %r: %s", response.query, report["empty_reason"])
    return report

"""What the framework retrievers share: their search options, the searcher (an engine in this process
or a server over HTTP) and the metadata a hit carries into a framework's document or node."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from eagle_rag.errors import InvalidRequest
from eagle_rag.service import parse_mode
from eagle_rag.types import SearchHit, SearchMode, SearchRequest, SearchResponse

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

FILTER_FIELDS = ("document_ids", "tags", "source_types", "chunk_types", "sections", "doc_types",
                 "published_from", "published_to")
"""The keys ``filters`` may hold (the filter fields of :class:`~eagle_rag.types.SearchRequest`)."""


@dataclass(frozen=True)
class SearchOptions:
    """How a retriever searches: ``top_k`` hits in ``mode``, within ``kb_names`` and ``filters`` (keys of
    :data:`FILTER_FIELDS`, e.g. ``{"sections": ["Dosage and Administration"]}``). Build with :meth:`of`.

    Raises InvalidRequest for an unknown mode or filter key."""

    top_k: int = 5
    mode: SearchMode = SearchMode.HYBRID
    kb_names: Sequence[str] = ()
    filters: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, top_k: int = 5, mode: SearchMode | str = SearchMode.HYBRID, kb_names: Sequence[str] | str = (),
           filters: Mapping[str, Any] | None = None) -> SearchOptions:
        """The options with ``mode`` given by name or enum and ``kb_names`` as one name or several."""
        return cls(top_k, mode if isinstance(mode, SearchMode) else parse_mode(mode),
                   (kb_names,) if isinstance(kb_names, str) else tuple(kb_names), dict(filters or {}))

    def __post_init__(self) -> None:
        unknown = sorted(set(self.filters) - set(FILTER_FIELDS))
        if unknown:
            raise InvalidRequest(f"unknown filter {', '.join(unknown)}; valid filters: {', '.join(FILTER_FIELDS)}",
                                 {"field": "filters"})

    def request(self, query: str) -> SearchRequest:
        """The search request of ``query`` with these options."""
        return SearchRequest(query=query, top_k=self.top_k, mode=self.mode, kb_names=tuple(self.kb_names),
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
        if self.engine is not None:
            response: SearchResponse = self.engine.search(request)
            return response
        from eagle_rag.client import EagleClient

        with EagleClient(str(self.url), api_key=self.api_key, timeout=self.timeout) as client:
            return client.search(request)

    async def asearch(self, request: SearchRequest) -> SearchResponse:
        """The same search without blocking the event loop (the engine runs in a worker thread)."""
        if self.engine is not None:
            response: SearchResponse = await asyncio.to_thread(self.engine.search, request)
            return response
        from eagle_rag.client import AsyncEagleClient

        async with AsyncEagleClient(str(self.url), api_key=self.api_key, timeout=self.timeout) as client:
            return await client.search(request)


def hit_metadata(hit: SearchHit, rank: int) -> dict[str, Any]:
    """The metadata of a hit in a framework's document or node: where it is, how it scored and why."""
    return {"document_id": hit.document_id, "chunk_id": hit.id, "path": hit.path, "score": hit.score,
            "match": hit.match.value, "rank": rank, "kb_name": str(hit.metadata.get("kb_name", "")),
            "document_name": str(hit.metadata.get("document_name", "")), "collection": hit.collection}

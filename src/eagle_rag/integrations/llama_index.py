"""A LlamaIndex retriever over Eagle-RAG (extra ``llama-index``: ``pip install "eagle-rag[llama-index]"``).

    from eagle_rag.integrations.llama_index import EagleRagRetriever

    retriever = EagleRagRetriever(url="http://127.0.0.1:8000", kb_names=["demo"], top_k=3)
    nodes = retriever.retrieve("imatinib dosage for chronic myeloid leukemia")
    nodes[0].score, nodes[0].node.metadata["path"], nodes[0].node.metadata["file_name"]

An empty answer is logged as a warning (logger ``eagle_rag.integrations``) and sent through
LlamaIndex's instrumentation as an :class:`EagleRagEmptyResult` event (``empty_reason``,
``excluded_by_filter``, ``exhaustive``, ``filter_values``).

``engine=`` searches an :class:`~eagle_rag.engine.Engine` in this process instead of a server;
``aretrieve`` does the same without blocking the event loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from llama_index.core.instrumentation import get_dispatcher
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from pydantic import Field

from eagle_rag.integrations.search import Searcher, SearchOptions, empty_report, hit_metadata
from eagle_rag.types import SearchHit, SearchMode, SearchResponse

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

dispatcher = get_dispatcher(__name__)


NOT_FOR_LLM = ("document_id", "chunk_id", "score", "relevance", "match", "rank", "kb_name", "collection", "tags")
"""Metadata keys left out of the text LlamaIndex shows a model or embeds (bookkeeping, not evidence)."""


class EagleRagEmptyResult(BaseEvent):
    """An Eagle-RAG search that found nothing, and why (sent through LlamaIndex's instrumentation)."""

    query: str
    empty_reason: str
    excluded_by_filter: dict[str, int] = Field(default_factory=dict)
    exhaustive: bool = True
    filter_values: dict[str, list[str]] = Field(default_factory=dict)

    @classmethod
    def class_name(cls) -> str:
        return "EagleRagEmptyResult"


def node_metadata(hit: SearchHit, rank: int) -> dict[str, Any]:
    """:func:`eagle_rag.integrations.search.hit_metadata` with LlamaIndex's file keys: ``file_name`` and
    ``file_path`` for a file, ``url`` for a web page."""
    meta = hit_metadata(hit, rank)
    source = meta["source"]
    if "://" in source:
        return {**meta, "url": source}
    return {**meta, "file_path": source, "file_name": PurePosixPath(source).name}


def to_nodes(response: SearchResponse) -> list[NodeWithScore]:
    """One scored text node per hit, in rank order (node id = chunk id); the bookkeeping keys
    (:data:`NOT_FOR_LLM`) are kept out of what a model reads and what is embedded. An empty answer is
    logged and sent as an :class:`EagleRagEmptyResult` event."""
    report = empty_report(response)
    if report is not None:
        dispatcher.event(EagleRagEmptyResult(**report))
    return [NodeWithScore(node=TextNode(id_=hit.id, text=hit.text, metadata=node_metadata(hit, rank),
                                        excluded_llm_metadata_keys=list(NOT_FOR_LLM),
                                        excluded_embed_metadata_keys=list(NOT_FOR_LLM)), score=hit.score)
            for rank, hit in enumerate(response.hits, start=response.offset + 1)]


class EagleRagRetriever(BaseRetriever):
    """Eagle-RAG's hybrid search as a ``llama_index.core`` retriever, in-process (``engine``) or over
    HTTP (``url``, ``api_key``). ``filters`` takes the filter fields of a search request (see
    :data:`eagle_rag.integrations.search.FILTER_FIELDS`); ``recency``, ``max_per_document`` and ``diversity``
    are the request's result options. Raises InvalidRequest for bad options and the search's errors when
    retrieving."""

    def __init__(self, engine: Engine | None = None, url: str | None = None, api_key: str | None = None, *,
                 top_k: int = 5, mode: SearchMode | str = SearchMode.HYBRID, kb_names: Sequence[str] = (),
                 filters: Mapping[str, Any] | None = None, timeout: float = 60.0, recency: float | None = None,
                 max_per_document: int | None = None, diversity: float | None = None, **kwargs: Any) -> None:
        self.options = SearchOptions.of(top_k, mode, kb_names, filters, recency=recency,
                                        max_per_document=max_per_document, diversity=diversity)
        self.searcher = Searcher(engine, url, api_key, timeout)
        super().__init__(**kwargs)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return to_nodes(self.searcher.search(self.options.request(query_bundle.query_str)))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return to_nodes(await self.searcher.asearch(self.options.request(query_bundle.query_str)))

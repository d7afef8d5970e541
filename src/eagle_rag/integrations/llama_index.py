"""A LlamaIndex retriever over Eagle-RAG (extra ``llama-index``: ``pip install "eagle-rag[llama-index]"``).

    from eagle_rag.integrations.llama_index import EagleRagRetriever

    retriever = EagleRagRetriever(url="http://127.0.0.1:8000", kb_names=["demo"], top_k=3)
    nodes = retriever.retrieve("imatinib dosage for chronic myeloid leukemia")
    nodes[0].score, nodes[0].node.metadata["path"]

``engine=`` searches an :class:`~eagle_rag.engine.Engine` in this process instead of a server;
``aretrieve`` does the same without blocking the event loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from eagle_rag.integrations.search import Searcher, SearchOptions, hit_metadata
from eagle_rag.types import SearchMode, SearchResponse

if TYPE_CHECKING:
    from eagle_rag.engine import Engine


def to_nodes(response: SearchResponse) -> list[NodeWithScore]:
    """One scored text node per hit, in rank order (node id = chunk id)."""
    return [NodeWithScore(node=TextNode(id_=hit.id, text=hit.text, metadata=hit_metadata(hit, rank)), score=hit.score)
            for rank, hit in enumerate(response.hits, start=response.offset + 1)]


class EagleRagRetriever(BaseRetriever):
    """Eagle-RAG's hybrid search as a ``llama_index.core`` retriever, in-process (``engine``) or over
    HTTP (``url``, ``api_key``). ``filters`` takes the filter fields of a search request (see
    :data:`eagle_rag.integrations.search.FILTER_FIELDS`). Raises InvalidRequest for bad options and
    the search's errors when retrieving."""

    def __init__(self, engine: Engine | None = None, url: str | None = None, api_key: str | None = None, *,
                 top_k: int = 5, mode: SearchMode | str = SearchMode.HYBRID, kb_names: Sequence[str] = (),
                 filters: Mapping[str, Any] | None = None, timeout: float = 60.0, **kwargs: Any) -> None:
        self.options = SearchOptions.of(top_k, mode, kb_names, filters)
        self.searcher = Searcher(engine, url, api_key, timeout)
        super().__init__(**kwargs)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return to_nodes(self.searcher.search(self.options.request(query_bundle.query_str)))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return to_nodes(await self.searcher.asearch(self.options.request(query_bundle.query_str)))

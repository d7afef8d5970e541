"""A LangChain retriever over Eagle-RAG (extra ``langchain``: ``pip install "eagle-rag[langchain]"``).

    from eagle_rag.integrations.langchain import EagleRagRetriever

    retriever = EagleRagRetriever(url="http://127.0.0.1:8000", kb_names=["demo"], mode="full", top_k=3)
    docs = retriever.invoke("imatinib dosage for chronic myeloid leukemia")
    docs[0].metadata  # source, title, document_id, chunk_id, path, score, relevance, match, rank, kb_name, tags, ...

An empty answer is logged as a warning (logger ``eagle_rag.integrations``) and sent to the run's
callbacks as the custom event ``eagle_rag_empty_result`` (``on_custom_event``; data: ``empty_reason``,
``excluded_by_filter``, ``exhaustive``, ``filter_values``).

``engine=`` searches an :class:`~eagle_rag.engine.Engine` in this process instead of a server;
``ainvoke`` does the same without blocking the event loop.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.callbacks.manager import adispatch_custom_event, dispatch_custom_event
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field, PrivateAttr

from eagle_rag.integrations.search import EMPTY_EVENT, Searcher, SearchOptions, empty_report, hit_metadata
from eagle_rag.types import SearchResponse


def to_documents(response: SearchResponse) -> list[Document]:
    """One LangChain document per hit, in rank order; the hit's text is the page content and its metadata
    follows LangChain's loaders: ``source`` (the file or URL to cite) and ``title``, then Eagle-RAG's
    own keys (:func:`eagle_rag.integrations.search.hit_metadata`)."""
    return [Document(page_content=hit.text, id=hit.id,
                     metadata={**hit_metadata(hit, rank), "title": str(hit.metadata.get("document_name") or "")})
            for rank, hit in enumerate(response.hits, start=response.offset + 1)]


class EagleRagRetriever(BaseRetriever):
    """Eagle-RAG's hybrid search as a ``langchain_core`` retriever, in-process (``engine``) or over HTTP
    (``url``, ``api_key``). ``filters`` takes the filter fields of a search request (``document_ids``,
    ``tags``, ``sections``, ``doc_types``, ``source_types``, ``chunk_types``, ``published_from``,
    ``published_to``); ``recency``, ``max_per_document`` and ``diversity`` are the request's result options.
    Raises InvalidRequest for bad options and the search's errors when invoked."""

    engine: Any = Field(default=None, description="an eagle_rag Engine to search in this process")
    url: str | None = Field(default=None, description="the URL of a running eagle-rag serve")
    api_key: str | None = Field(default=None, repr=False, description="X-API-Key for url")
    timeout: float = 60.0
    top_k: int = 5
    mode: str = "hybrid"
    kb_names: list[str] | str = Field(default_factory=list)
    filters: dict[str, Any] = Field(default_factory=dict)
    recency: float | None = Field(default=None, description="favour recent documents: a half-life in days")
    max_per_document: int | None = Field(default=None, description="at most this many chunks of one document")
    diversity: float | None = Field(default=None, description="the MMR lambda in [0, 1] (1: relevance only)")
    _options: SearchOptions = PrivateAttr()
    _searcher: Searcher = PrivateAttr()

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        self._options = SearchOptions.of(self.top_k, self.mode, self.kb_names, self.filters, recency=self.recency,
                                         max_per_document=self.max_per_document, diversity=self.diversity)
        self._searcher = Searcher(self.engine, self.url, self.api_key, self.timeout)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        response = self._searcher.search(self._options.request(query))
        report = empty_report(response)
        if report is not None:
            dispatch_custom_event(EMPTY_EVENT, report, config={"callbacks": run_manager.get_child()})
        return to_documents(response)

    async def _aget_relevant_documents(self, query: str, *,
                                       run_manager: AsyncCallbackManagerForRetrieverRun) -> list[Document]:
        response = await self._searcher.asearch(self._options.request(query))
        report = empty_report(response)
        if report is not None:
            await adispatch_custom_event(EMPTY_EVENT, report, config={"callbacks": run_manager.get_child()})
        return to_documents(response)

"""The LangChain retriever (real ``langchain_core``) on the biomed demo folder: in-process and over HTTP."""

from __future__ import annotations

import logging

import pytest

langchain_core = pytest.importorskip("langchain_core")

from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.retrievers import BaseRetriever  # noqa: E402

from eagle_rag.errors import InvalidRequest, NotFound  # noqa: E402
from eagle_rag.integrations.langchain import EagleRagRetriever  # noqa: E402
from eagle_rag.types import SearchRequest  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.anyio]
QUERY = "imatinib dosage for chronic myeloid leukemia"
DOSAGE = "Imatinib (Gleevec) prescribing information > Dosage and Administration"
KEYS = {"source", "document_id", "chunk_id", "path", "score", "relevance", "match", "rank", "kb_name",
        "document_name", "collection", "tags", "section", "doc_type"}


def _check(docs: list[Document], top_k: int = 3) -> None:
    assert len(docs) == top_k and all(isinstance(d, Document) for d in docs)
    first = docs[0]
    assert first.metadata["document_id"].startswith("label_imatinib") and first.metadata["path"] == DOSAGE
    assert first.metadata["match"] == "exact" and first.metadata["kb_name"] == "demo"
    assert set(first.metadata) == {*KEYS, "title"} and first.id == first.metadata["chunk_id"]
    assert first.metadata["source"].endswith("label_imatinib.md") and first.metadata["title"]
    assert first.metadata["section"] == "dosage" and first.metadata["doc_type"] == "drug_label"
    assert "400 mg" in first.page_content
    # the biomed profile's shipped hybrid model gives every hit a probability
    assert all(0.0 <= d.metadata["relevance"] <= 1.0 for d in docs)
    assert [d.metadata["rank"] for d in docs] == [1, 2, 3]
    assert [d.metadata["score"] for d in docs] == sorted((d.metadata["score"] for d in docs), reverse=True)


def test_in_process(biomed_engine):
    retriever = EagleRagRetriever(engine=biomed_engine, kb_names=["demo"], top_k=3)
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke(QUERY)
    _check(docs)
    same = biomed_engine.search(SearchRequest(QUERY, top_k=3, kb_names=("demo",)))
    assert [d.metadata["chunk_id"] for d in docs] == [h.id for h in same.hits]


def test_over_http_sync_and_async_agree_with_in_process(biomed_server, biomed_engine):
    remote = EagleRagRetriever(url=biomed_server.url, kb_names=["demo"], top_k=3)
    local = EagleRagRetriever(engine=biomed_engine, kb_names=["demo"], top_k=3)
    docs = remote.invoke(QUERY)
    _check(docs)
    assert [d.metadata["chunk_id"] for d in docs] == [d.metadata["chunk_id"] for d in local.invoke(QUERY)]
    assert biomed_server.request_count("/search") >= 1


async def test_async_in_process_and_over_http(biomed_server, biomed_engine):
    for retriever in (EagleRagRetriever(engine=biomed_engine, kb_names="demo", top_k=3),
                      EagleRagRetriever(url=biomed_server.url, kb_names=["demo"], top_k=3)):
        _check(await retriever.ainvoke(QUERY))


def test_options_mode_filters_and_top_k(biomed_engine, biomed_server):
    warfarin_id = biomed_engine.search(SearchRequest("warfarin", top_k=1, kb_names=("demo",))).hits[0].document_id
    assert warfarin_id.startswith("label_warfarin")
    for source in ({"engine": biomed_engine}, {"url": biomed_server.url}):
        warfarin = EagleRagRetriever(**source, mode="bm25", top_k=2, kb_names=["demo"],
                                     filters={"document_ids": [warfarin_id]})
        docs = warfarin.invoke("bleeding risk")
        assert len(docs) == 2 and {d.metadata["document_id"] for d in docs} == {warfarin_id}
        full = EagleRagRetriever(**source, mode="full", top_k=1, kb_names=["demo"]).invoke(QUERY)
        assert len(full) == 1 and full[0].metadata["path"] == DOSAGE


def test_result_options_reach_the_search(biomed_engine, biomed_server):
    options = {"recency": 365.0, "max_per_document": 1, "diversity": 0.5}
    same = biomed_engine.search(SearchRequest(QUERY, top_k=5, kb_names=("demo",), **options))
    assert len({h.document_id for h in same.hits}) == 5  # one chunk a document
    docs = EagleRagRetriever(engine=biomed_engine, kb_names=["demo"], top_k=5, **options).invoke(QUERY)
    assert [d.metadata["chunk_id"] for d in docs] == [h.id for h in same.hits]
    for source in ({"engine": biomed_engine}, {"url": biomed_server.url}):  # the client sends them too
        with pytest.raises(InvalidRequest, match="diversity"):
            EagleRagRetriever(**source, diversity=2.0).invoke(QUERY)


def test_bad_options_are_clear_errors(biomed_engine, biomed_server):
    with pytest.raises(InvalidRequest, match="valid filters: document_ids"):
        EagleRagRetriever(engine=biomed_engine, filters={"colour": ["red"]})
    with pytest.raises(InvalidRequest, match="valid values: bm25, dense, hybrid, full"):
        EagleRagRetriever(engine=biomed_engine, mode="sql")
    with pytest.raises(InvalidRequest, match="not both"):
        EagleRagRetriever(engine=biomed_engine, url=biomed_server.url)
    with pytest.raises(InvalidRequest, match="not both"):
        EagleRagRetriever()
    for source in ({"engine": biomed_engine}, {"url": biomed_server.url}):
        with pytest.raises(NotFound):
            EagleRagRetriever(**source, kb_names=["nope"]).invoke(QUERY)
        with pytest.raises(InvalidRequest):
            EagleRagRetriever(**source, top_k=500).invoke(QUERY)


class Seen(BaseCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[str, dict]] = []

    def on_custom_event(self, name, data, **kwargs) -> None:
        self.events.append((name, data))


def test_documents_carry_their_source_and_tags(biomed_engine, biomed_server):
    for source in ({"engine": biomed_engine}, {"url": biomed_server.url}):
        docs = EagleRagRetriever(**source, kb_names=["demo"], top_k=1, filters={"doc_types": ["compound"]}).invoke(
            "aspirin structure")
        meta = docs[0].metadata
        assert meta["document_id"] == "cmp-aspirin" and meta["source"].endswith("compounds.jsonl")
        assert meta["tags"] == ["compound", "small molecule", "aspirin"] and meta["doc_type"] == "compound"


async def test_an_empty_answer_says_why_to_the_callbacks_and_the_log(biomed_engine, biomed_server, caplog):
    for source in ({"engine": biomed_engine}, {"url": biomed_server.url}):
        retriever = EagleRagRetriever(**source, kb_names=["demo"], filters={"sections": ["claims"]})
        seen = Seen()
        with caplog.at_level(logging.WARNING, logger="eagle_rag.integrations"):
            assert retriever.invoke(QUERY, config={"callbacks": [seen]}) == []
            assert await retriever.ainvoke(QUERY, config={"callbacks": [seen]}) == []
        assert [name for name, _ in seen.events] == ["eagle_rag_empty_result"] * 2
        data = seen.events[0][1]
        assert data["empty_reason"].startswith("no document within the filters matched the query")
        assert data["excluded_by_filter"]["sections"] >= 1 and "dosage" in data["filter_values"]["sections"]
        assert "no results for" in caplog.text and "no document within the filters" in caplog.text

"""The LangChain retriever (real ``langchain_core``) on the biomed demo folder: in-process and over HTTP."""

from __future__ import annotations

import pytest

langchain_core = pytest.importorskip("langchain_core")

from langchain_core.documents import Document  # noqa: E402
from langchain_core.retrievers import BaseRetriever  # noqa: E402

from eagle_rag.errors import InvalidRequest, NotFound  # noqa: E402
from eagle_rag.integrations.langchain import EagleRagRetriever  # noqa: E402
from eagle_rag.types import SearchRequest  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.anyio]
QUERY = "imatinib dosage for chronic myeloid leukemia"
DOSAGE = "Imatinib (Gleevec) prescribing information > Dosage and Administration"
KEYS = {"document_id", "chunk_id", "path", "score", "match", "rank", "kb_name", "document_name", "collection"}


def _check(docs: list[Document], top_k: int = 3) -> None:
    assert len(docs) == top_k and all(isinstance(d, Document) for d in docs)
    first = docs[0]
    assert first.metadata["document_id"].startswith("label_imatinib") and first.metadata["path"] == DOSAGE
    assert first.metadata["match"] == "exact" and first.metadata["kb_name"] == "demo"
    assert set(first.metadata) == KEYS and first.id == first.metadata["chunk_id"]
    assert "400 mg" in first.page_content
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

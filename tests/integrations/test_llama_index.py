"""The LlamaIndex retriever (real ``llama_index.core``) on the biomed demo folder: in-process and over HTTP."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.instrumentation import get_dispatcher  # noqa: E402
from llama_index.core.instrumentation.event_handlers import BaseEventHandler  # noqa: E402
from llama_index.core.retrievers import BaseRetriever  # noqa: E402
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle, TextNode  # noqa: E402

from eagle_rag.errors import InvalidRequest, NotFound  # noqa: E402
from eagle_rag.integrations.llama_index import EagleRagEmptyResult, EagleRagRetriever  # noqa: E402
from eagle_rag.types import SearchRequest  # noqa: E402
from tests.integrations.test_langchain import DOSAGE, KEYS, QUERY  # noqa: E402

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


def _check(nodes: list[NodeWithScore], top_k: int = 3) -> None:
    assert len(nodes) == top_k and all(isinstance(n, NodeWithScore) and isinstance(n.node, TextNode) for n in nodes)
    first = nodes[0]
    assert first.node.metadata["document_id"].startswith("label_imatinib") and first.node.metadata["path"] == DOSAGE
    assert set(first.node.metadata) == {*KEYS, "file_name", "file_path"}
    assert first.node.node_id == first.node.metadata["chunk_id"]
    assert first.node.metadata["file_name"] == "label_imatinib.md"
    for_model = first.node.get_content(metadata_mode=MetadataMode.LLM)
    assert "file_name: label_imatinib.md" in for_model and "chunk_id" not in for_model and "score" not in for_model
    assert first.score == first.node.metadata["score"] and "400 mg" in first.node.get_content()
    assert [n.node.metadata["rank"] for n in nodes] == [1, 2, 3]


def test_in_process_and_over_http_agree(biomed_engine, biomed_server):
    local = EagleRagRetriever(engine=biomed_engine, kb_names=["demo"], top_k=3)
    remote = EagleRagRetriever(url=biomed_server.url, kb_names=["demo"], top_k=3)
    assert isinstance(local, BaseRetriever)
    in_process, over_http = local.retrieve(QUERY), remote.retrieve(QUERY)
    _check(in_process)
    _check(over_http)
    expected = biomed_engine.search(SearchRequest(QUERY, top_k=3, kb_names=("demo",)))
    assert [n.node.node_id for n in in_process] == [n.node.node_id for n in over_http] == [h.id for h in expected.hits]
    assert local.retrieve(QueryBundle(QUERY))[0].node.node_id == in_process[0].node.node_id


async def test_async(biomed_engine, biomed_server):
    for retriever in (EagleRagRetriever(engine=biomed_engine, kb_names=["demo"], top_k=3),
                      EagleRagRetriever(url=biomed_server.url, kb_names=["demo"], top_k=3)):
        _check(await retriever.aretrieve(QUERY))


def test_options_and_errors(biomed_engine, biomed_server):
    for source in ({"engine": biomed_engine}, {"url": biomed_server.url}):
        one = EagleRagRetriever(**source, mode="full", top_k=1, kb_names=["demo"]).retrieve(QUERY)
        assert len(one) == 1 and one[0].node.metadata["path"] == DOSAGE
        with pytest.raises(NotFound):
            EagleRagRetriever(**source, kb_names=["nope"]).retrieve(QUERY)
    with pytest.raises(InvalidRequest, match="valid filters"):
        EagleRagRetriever(engine=biomed_engine, filters={"kb": ["demo"]})
    collapsed = EagleRagRetriever(engine=biomed_engine, kb_names=["demo"], top_k=4, max_per_document=1,
                                  diversity=0.3, recency=30).retrieve(QUERY)
    assert len({n.node.metadata["document_id"] for n in collapsed}) == 4
    with pytest.raises(InvalidRequest, match="max_per_document"):
        EagleRagRetriever(engine=biomed_engine, max_per_document=0).retrieve(QUERY)
    with pytest.raises(InvalidRequest, match="not both"):
        EagleRagRetriever()


class Seen(BaseEventHandler):
    events: list = []

    @classmethod
    def class_name(cls) -> str:
        return "Seen"

    def handle(self, event, **kwargs) -> None:
        if isinstance(event, EagleRagEmptyResult):
            self.events.append(event)


async def test_an_empty_answer_says_why_as_an_instrumentation_event(biomed_engine, biomed_server):
    seen = Seen(events=[])
    get_dispatcher().add_event_handler(seen)
    try:
        for source in ({"engine": biomed_engine}, {"url": biomed_server.url}):
            retriever = EagleRagRetriever(**source, kb_names=["demo"], filters={"sections": ["claims"]})
            assert retriever.retrieve(QUERY) == [] and await retriever.aretrieve(QUERY) == []
    finally:
        get_dispatcher().event_handlers.remove(seen)
    assert len(seen.events) == 4 and seen.events[0].query == QUERY
    assert seen.events[0].empty_reason.startswith("no document within the filters matched the query")
    assert seen.events[0].excluded_by_filter["sections"] >= 1

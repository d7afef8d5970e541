"""core_search, core_get_document and the datasets tools, in process: answers built for agents."""

from __future__ import annotations

import pytest

from eagle_rag.engine import Engine
from eagle_rag.service.core_tools import build_tool_registry
from tests.api.helpers import make_settings
from tests.mcp.conftest import private_copy

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def tools(mcp_data_dir, tmp_path_factory):
    data = private_copy(mcp_data_dir, tmp_path_factory.mktemp("core-tools") / "data")
    settings = make_settings(data, mcp={"hit_text_chars": 200}, plugins={"enabled": ["datasets"]})
    with Engine(settings) as engine:
        yield build_tool_registry(engine)


def test_the_served_tools(tools):
    assert tools.names() == ["core_search", "core_get_document", "datasets_search", "datasets_check_ids"]
    schema = tools.get("core_search").input_schema
    assert schema["properties"]["top_k"]["default"] == 5 and schema["properties"]["top_k"]["maximum"] == 50
    assert schema["required"] == ["query"] and schema["additionalProperties"] is False
    assert schema["properties"]["mode"]["enum"] == ["bm25", "dense", "hybrid", "full"]
    assert {"kb_names", "document_ids", "tags", "source_types", "chunk_types", "sections", "doc_types",
            "published_from", "published_to", "offset", "explain", "recency", "max_per_document", "diversity",
            "facets"} <= set(schema["properties"])
    assert schema["properties"]["facets"]["items"]["enum"] == ["source_type", "doc_type", "section", "year", "kb"]


def test_core_search_result_options(tools):
    args = {"query": "dosage", "kb_name": "demo", "top_k": 3}
    plain = tools.call("core_search", args)
    shaped = tools.call("core_search", {**args, "max_per_document": 2, "diversity": 0.5, "recency": 365,
                                        "facets": ["kb", "source_type"], "explain": True})
    # the facets count every hit of the matching set, as total does, not the three of the page
    assert list(shaped["facets"]) == ["kb", "source_type"] and "facets" not in plain
    assert shaped["facets"]["kb"] == {"demo": shaped["total"]} and shaped["total"] > 3
    assert shaped["undated"] == shaped["facets"]["kb"]["demo"]  # the labels carry no publication date
    assert [e["stage"] for e in shaped["hits"][0]["trail"]][-3:] == ["max_per_document", "recency", "mmr"]
    assert shaped["hits"][0]["trail"][-2]["skipped"] == "undated"


def test_core_search_says_whether_the_list_is_complete(tools):
    partial = tools.call("core_search", {"query": "imatinib dosage chronic myeloid leukemia", "kb_name": "demo"})
    assert len(partial["hits"]) == 5 and partial["exhaustive"] is False
    assert partial["hits"][0]["document_id"].startswith("label_imatinib") and partial["hits"][0]["rank"] == 1
    assert "More matches may exist" in partial["guidance"]
    assert all(len(h["text"]) <= 200 for h in partial["hits"]) and partial["hits"][0]["text_truncated"]
    complete = tools.call("core_search", {"query": "bleeding", "kb_name": "tagged", "top_k": 50})
    assert complete["exhaustive"] is True and "complete" in complete["guidance"]


def test_core_search_says_why_when_empty(tmp_path):
    with Engine(make_settings(tmp_path)) as engine:
        result = build_tool_registry(engine).call("core_search", {"query": "imatinib"})
    assert result["hits"] == [] and result["total"] == 0 and result["exhaustive"] is True
    assert result["empty_reason"].startswith("the index is empty")
    assert result["guidance"].startswith("No results: the index is empty")
    assert "repeating this query will not find more" in result["guidance"]


@pytest.mark.parametrize("args, code", [
    ({"query": "x", "top_k": 51}, "invalid_request"),
    ({"query": "x", "top_k": 0}, "invalid_request"),
    ({"query": ""}, "invalid_request"),
    ({"query": "x", "kb_name": "x' || 1==1"}, "invalid_request"),
    ({"query": "x", "kb_name": "nope"}, "not_found"),
    ({"query": "x", "mode": "sql"}, "invalid_request"),
    ({"query": "x", "kb_names": ["demo", "nope"]}, "not_found"),
    ({"query": "x", "tags": "oncology"}, "invalid_request"),
    ({"query": "x", "published_from": "2020-13-01"}, "invalid_request"),
    ({"query": "x", "published_from": "last year"}, "invalid_request"),
    ({"query": "x", "offset": 96, "top_k": 5}, "invalid_request"),
    ({"query": "x", "explain": "yes"}, "invalid_request"),
    ({"query": "x", "diversity": 1.5}, "invalid_request"),
    ({"query": "x", "recency": -30}, "invalid_request"),
    ({"query": "x", "max_per_document": 0}, "invalid_request"),
    ({"query": "x", "facets": ["colour"]}, "invalid_request"),
])
def test_core_search_errors(tools, args, code):
    assert tools.call("core_search", args)["error"]["code"] == code


def test_core_get_document(tools):
    hit = tools.call("core_search", {"query": "warfarin", "kb_name": "demo", "top_k": 1})["hits"][0]
    record = tools.call("core_get_document", {"document_id": hit["document_id"]})
    assert record["id"] == hit["document_id"] and record["kb_name"] == "demo" and record["status"] == "complete"
    assert tools.call("core_get_document", {"document_id": "nope"})["error"]["code"] == "not_found"


def test_datasets_tools(tools):
    found = tools.call("datasets_search", {"query": "BC5CDR chemical disease", "top_k": 2})
    assert found["hits"][0]["id"] == "bigbio/bc5cdr" and "exhaustive" in found
    assert tools.call("datasets_search", {"query": "x", "top_k": 51})["error"]["code"] == "invalid_request"
    checked = tools.call("datasets_check_ids", {"ids": ["bigbio/bc5cdr", "nope"]})
    assert checked["known"] == ["bigbio/bc5cdr"] and checked["unknown"] == ["nope"]
    assert tools.call("datasets_check_ids", {"ids": []})["error"]["code"] == "invalid_request"


def test_core_search_modes_and_the_explain_trail(tools):
    query = {"query": "imatinib dosage chronic myeloid leukemia", "kb_name": "demo", "top_k": 3, "explain": True}
    stages = {}
    for mode in ("bm25", "dense", "hybrid", "full"):
        result = tools.call("core_search", {**query, "mode": mode})
        assert result["mode"] == mode and result["hits"], result
        stages[mode] = {entry["stage"] for entry in result["hits"][0]["trail"]}
    assert "bm25" in stages["bm25"] and "dense" not in stages["bm25"]
    assert "dense" in stages["dense"] and "bm25" not in stages["dense"]
    assert {"bm25", "dense", "hybrid_rrf"} <= stages["hybrid"] and "cross_encoder" not in stages["hybrid"]
    assert "cross_encoder" in stages["full"]
    plain = tools.call("core_search", {**query, "explain": False})
    assert all("trail" not in hit for hit in plain["hits"])


def test_core_search_filters_and_pages(tools):
    oncology = tools.call("core_search", {"query": "cancer", "kb_names": ["tagged"], "tags": ["oncology"], "top_k": 10})
    assert {h["document_id"] for h in oncology["hits"]} == {"t-onc-1", "t-onc-2"} and oncology["exhaustive"]
    one = tools.call("core_search", {"query": "cancer", "kb_name": "tagged", "document_ids": ["t-cv-1"]})
    assert [h["document_id"] for h in one["hits"]] == ["t-cv-1"]
    both = tools.call("core_search", {"query": "bleeding", "kb_names": ["tagged", "demo"], "top_k": 50})
    assert {h["kb_name"] for h in both["hits"]} == {"tagged", "demo"}
    first = tools.call("core_search", {"query": "bleeding", "kb_name": "demo", "top_k": 2})
    second = tools.call("core_search", {"query": "bleeding", "kb_name": "demo", "top_k": 2, "offset": 2})
    assert [h["rank"] for h in second["hits"]] == [3, 4] and second["offset"] == 2
    assert not {h["chunk_id"] for h in first["hits"]} & {h["chunk_id"] for h in second["hits"]}
    past = tools.call("core_search", {"query": "bleeding", "kb_name": "tagged", "offset": 40})
    assert past["hits"] == [] and "past the last one" in past["guidance"]


def test_core_search_says_which_filter_emptied_the_list(tools):
    result = tools.call("core_search", {"query": "osimertinib", "kb_name": "tagged", "tags": ["cardiology"],
                                        "mode": "bm25"})
    assert result["hits"] == [] and result["exhaustive"] is True
    assert result["guidance"].startswith("No results: no document within the filters matched the query")
    assert "alone excludes" in result["guidance"] and result["guidance"].endswith("will not find more.")
    dated = tools.call("core_search", {"query": "warfarin", "kb_name": "demo", "published_from": "2999",
                                       "mode": "bm25"})
    assert dated["hits"] == [] and "published" in str(dated["excluded_by_filter"])


@pytest.mark.unit
def test_the_guidance_of_an_empty_answer_follows_its_completeness():
    from eagle_rag.service.core_tools import guidance
    from eagle_rag.types import SearchMode, SearchResponse, TotalRelation

    def empty(**kw):
        return SearchResponse("q", (), kw.pop("total", 0), kw.pop("exhaustive"), SearchMode.HYBRID,
                              empty_reason="why", **kw)

    assert guidance(empty(exhaustive=True), 50) == ("No results: why. The list is complete; repeating this "
                                                    "query will not find more.")
    maybe = guidance(empty(exhaustive=False, total_relation=TotalRelation.GTE), 50)
    assert "complete" not in maybe and "try mode bm25" in maybe
    past = guidance(empty(exhaustive=False, total=16, offset=20), 50)
    assert past == "No results: why. Ask an offset below 16."

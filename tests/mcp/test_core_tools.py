"""core_search, core_get_document and the datasets tools, in process: answers built for agents."""

from __future__ import annotations

import pytest

from eagle_rag.engine import Engine
from eagle_rag.mcp_tools import build_tool_registry
from tests.api.helpers import datasets_surfaces, make_settings
from tests.mcp.conftest import private_copy

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def tools(mcp_data_dir, tmp_path_factory):
    data = private_copy(mcp_data_dir, tmp_path_factory.mktemp("core-tools") / "data")
    settings = make_settings(data, mcp={"hit_text_chars": 200})
    with Engine(settings, extra_plugins=datasets_surfaces(settings)) as engine:
        yield build_tool_registry(engine)


def test_the_served_tools(tools):
    assert tools.names() == ["core_search", "core_get_document", "datasets_search", "datasets_check_ids"]
    schema = tools.get("core_search").input_schema
    assert schema["properties"]["top_k"]["default"] == 5 and schema["properties"]["top_k"]["maximum"] == 50
    assert schema["required"] == ["query"] and schema["additionalProperties"] is False


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

"""``GET /tools`` and ``POST /tools/{name}`` (the server's MCP tools over its HTTP API) and the
:class:`RemoteToolRegistry` that ``eagle-rag mcp`` serves from them while a server owns the folder."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.client.http import EagleClient
from eagle_rag.engine import Engine
from eagle_rag.hookspecs import hookimpl
from eagle_rag.mcp.remote import RemoteToolRegistry
from eagle_rag.service.core_tools import build_tool_registry
from eagle_rag.service.tools import McpTool, ToolRegistrationError, tool_error
from tests.api.helpers import assert_error_shape, make_settings
from tests.mcp.conftest import private_copy

pytestmark = pytest.mark.integration
SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


class _Tools:
    @hookimpl
    def eagle_mcp_tools(self, engine):
        def boom(q: str) -> dict[str, Any]:
            raise RuntimeError("secret /etc/shadow")

        return [McpTool("core_unreadable", "answers encode_failed", SCHEMA,
                        lambda q: tool_error("encode_failed", f"cannot read {q!r}")),
                McpTool("core_boom", "fails", SCHEMA, boom)]


@pytest.fixture(scope="module")
def app_engine(mcp_data_dir, tmp_path_factory):
    data = private_copy(mcp_data_dir, tmp_path_factory.mktemp("http-tools") / "data")
    with Engine(make_settings(data), extra_plugins=[("tools", _Tools())]) as engine:
        yield engine


@pytest.fixture(scope="module")
def client(app_engine):
    with TestClient(create_app(app_engine)) as http:
        yield http


def test_the_tools_are_listed_with_their_schemas(client, app_engine):
    body = client.get("/tools").json()
    names = [t["name"] for t in body["tools"]]
    assert names == build_tool_registry(app_engine).names() == ["core_search", "core_get_document",
                                                                "core_unreadable", "core_boom"]
    search = body["tools"][0]
    assert search["namespace"] == "core" and search["title"] == "Search documents"
    assert search["input_schema"]["properties"]["mode"]["enum"] == ["bm25", "dense", "hybrid", "full"]


def test_a_tool_answers_as_over_mcp(client, app_engine):
    args = {"query": "warfarin bleeding", "kb_name": "demo", "top_k": 3}
    over_http = client.post("/tools/core_search", json=args)
    assert over_http.status_code == 200
    in_process = build_tool_registry(app_engine).call("core_search", args)
    assert [h["chunk_id"] for h in over_http.json()["hits"]] == [h["chunk_id"] for h in in_process["hits"]]
    assert over_http.json()["hits"][0]["document_id"].startswith("label_warfarin")


@pytest.mark.parametrize("name, args, status, code", [
    ("core_search", {"query": "x", "top_k": 51}, 400, "invalid_request"),
    ("core_search", {"query": "x", "kb_name": "nope"}, 404, "not_found"),
    ("core_search", None, 400, "invalid_request"),
    ("core_drop_everything", {}, 404, "not_found"),
    ("core_unreadable", {"q": "C1CC"}, 422, "encode_failed"),
    ("core_boom", {"q": "x"}, 500, "search_failed"),
])
def test_tool_errors_keep_the_one_shape_with_a_status(client, name, args, status, code):
    response = client.post(f"/tools/{name}", json=args)
    assert_error_shape(response, status, code)
    assert "secret" not in response.text


def test_a_body_that_is_not_an_object_is_refused(client):
    assert_error_shape(client.post("/tools/core_search", json=["x"]), 422, "invalid_request")


def test_the_remote_registry_serves_the_servers_tools(client):
    http = EagleClient("http://testserver", retries=0)
    http._http.close()
    http._http = client  # the app in this process (a TestClient is an httpx.Client; the fixture closes it)
    remote = RemoteToolRegistry(http)
    assert remote.names() == ["core_search", "core_get_document", "core_unreadable", "core_boom"]
    assert remote.tools()[0].input_schema["required"] == ["query"]
    hits = remote.call("core_search", {"query": "warfarin bleeding", "kb_name": "demo", "top_k": 2})["hits"]
    assert len(hits) == 2 and hits[0]["document_id"].startswith("label_warfarin")
    assert remote.call("core_search", {"query": "x", "top_k": 51})["error"]["code"] == "invalid_request"
    assert remote.call("core_unreadable", {"q": "C1CC"}) == tool_error("encode_failed", "cannot read 'C1CC'")
    assert remote.call("core_nope", {})["error"]["code"] == "not_found"


def test_the_remote_registry_refuses_a_server_that_lists_a_mutating_tool():
    class _Server:
        def mcp_tools(self) -> list[dict[str, Any]]:
            return [{"name": "core_delete_all", "input_schema": {"type": "object"}}]

    with pytest.raises(ToolRegistrationError, match="RAG-only"):
        RemoteToolRegistry(_Server())  # type: ignore[arg-type]


def test_the_tools_need_the_api_key_when_the_server_sets_one(mcp_data_dir, tmp_path):
    data = private_copy(mcp_data_dir, tmp_path / "data")
    with Engine(make_settings(data, api={"api_key": "k" * 32})) as engine, TestClient(create_app(engine)) as http:
        assert_error_shape(http.get("/tools"), 401, "unauthorized")
        assert_error_shape(http.post("/tools/core_search", json={"query": "x"}), 401, "unauthorized")
        answer = http.post("/tools/core_search", json={"query": "warfarin", "kb_name": "demo"},
                           headers={"X-API-Key": "k" * 32})
        assert answer.status_code == 200 and answer.json()["hits"]

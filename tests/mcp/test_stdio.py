"""The MCP server driven by the SDK's client: over stdio (``python -m eagle_rag.mcp.server``) and over
streamable HTTP (``--transport http``)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.mcp.conftest import stdio_session
from tests.servers import free_port, port_open, wait_ready

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


async def test_stdio_server_lists_read_only_tools_and_answers(server_env, server_cwd):
    async with stdio_session(server_env, ["-m", "eagle_rag.mcp.server"], server_cwd) as session:
        listed = await session.list_tools()
        tools = {t.name: t for t in listed.tools}
        assert set(tools) == {"core_search", "core_get_document"}
        assert all(t.annotations.read_only_hint and not t.annotations.destructive_hint for t in tools.values())
        top_k = tools["core_search"].input_schema["properties"]["top_k"]
        assert (top_k["default"], top_k["maximum"]) == (5, 50)

        result = await session.call_tool("core_search", {"query": "warfarin bleeding", "kb_name": "demo"})
        assert result.is_error is False
        body = result.structured_content
        assert body["hits"][0]["document_id"].startswith("label_warfarin") and len(body["hits"]) == 5
        assert isinstance(body["exhaustive"], bool) and body["guidance"]

        too_many = await session.call_tool("core_search", {"query": "x", "top_k": 51})
        assert too_many.is_error is True
        assert too_many.structured_content["error"]["code"] == "invalid_request"

        unknown = await session.call_tool("core_search", {"query": "x", "kb_name": "nope"})
        assert unknown.is_error and unknown.structured_content["error"]["code"] == "not_found"

        doc = await session.call_tool("core_get_document", {"document_id": body["hits"][0]["document_id"]})
        assert doc.structured_content["kb_name"] == "demo"

        missing = await session.call_tool("core_drop_everything", {})
        assert missing.is_error and missing.structured_content["error"]["code"] == "not_found"


async def test_streamable_http_transport(server_env, server_cwd):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "eagle_rag.mcp.server", "--transport", "http",
                             "--port", str(port)], env=server_env, cwd=server_cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_ready(proc, lambda: port_open(port), None, 30)
        async with (streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
                    ClientSession(read, write) as session):
            await session.initialize()
            assert {t.name for t in (await session.list_tools()).tools} == {"core_search", "core_get_document"}
            result = await session.call_tool("core_search", {"query": "imatinib", "kb_name": "demo", "top_k": 2})
            assert not result.is_error and len(result.structured_content["hits"]) == 2
    finally:
        proc.terminate()
        proc.wait(timeout=10)

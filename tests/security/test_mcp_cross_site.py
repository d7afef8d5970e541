"""Item 2 for the MCP HTTP transport, against a real ``eagle-rag mcp --transport http`` without a key: a
request from another site's page, or naming a host this server is not (DNS rebinding), is refused in
the one error shape; a program without ``Origin`` and the loopback origin are served."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.security.server import Server, error_of, serve_mcp
from tests.security.test_exposure import INITIALIZE, MCP_HEADERS

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def mcp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serve_mcp(tmp_path_factory.mktemp("mcp-cross-site") / "data") as running:
        yield running


def _initialize(server: Server, **headers: str) -> httpx.Response:
    return httpx.post(f"{server.url}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **headers}, timeout=30)


def test_other_sites_are_refused(mcp_server: Server) -> None:
    error_of(_initialize(mcp_server, Origin="https://evil.example"), 403, "cross_site_refused")
    rebound = f"evil.example:{mcp_server.port}"
    # a rebound name is refused before the origin is looked at: without an API key every route checks Host
    error_of(_initialize(mcp_server, Origin=f"http://{rebound}", Host=rebound), 403, "host_refused")
    sse = httpx.get(f"{mcp_server.url}/mcp", headers={"Accept": "text/event-stream", "Origin": "https://evil.example"},
                    timeout=30)
    error_of(sse, 403, "cross_site_refused")


def test_programs_and_the_loopback_origin_are_served(mcp_server: Server) -> None:
    assert "serverInfo" in _initialize(mcp_server).text
    assert "serverInfo" in _initialize(mcp_server, Origin=f"http://127.0.0.1:{mcp_server.port}").text

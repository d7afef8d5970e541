"""Item 7 (and the key exception of item 2): exposure, against a real ``eagle-rag serve`` and
``eagle-rag mcp --transport http``. A non-loopback bind without a key is refused (exit 2, one line)
unless ``--insecure-no-key``; with a key, the schema and docs pages need it (unless
``api.public_docs``), a keyed caller may write from any origin, and the MCP transport takes the key."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.security.server import Server, cli, error_of, serve, serve_mcp, server_env, upload

pytestmark = pytest.mark.integration
KEY = "exposure-test-key-91c2"


def _refused(args: list[str], data: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cli(*args), env=server_env(data), cwd=data, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("command", [["serve", "--host", "0.0.0.0", "--port", "1"],
                                     ["mcp", "--transport", "http", "--local", "--host", "0.0.0.0", "--port", "1"]])
def test_a_public_bind_without_a_key_is_refused(command: list[str], tmp_path: Path) -> None:
    done = _refused(command, tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "without an API key" in lines[0] and "--insecure-no-key" in lines[0], done.stderr
    assert not (tmp_path / "registry.db").exists()  # refused before the folder was opened


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("keyed") / "data"
    with serve(data, {"EAGLE_RAG_API__API_KEY": KEY}) as running:
        yield running


@pytest.mark.parametrize("path", ["/openapi.json", "/docs", "/redoc"])
def test_schema_and_docs_need_the_key(keyed: Server, path: str) -> None:
    with keyed.client() as client:
        error_of(client.get(path), 401, "unauthorized")
        assert client.get(path, headers={"X-API-Key": KEY}).status_code == 200
        assert client.get("/health").status_code == 200


def test_a_keyed_caller_may_write_from_any_origin(keyed: Server) -> None:
    with keyed.client() as client:
        error_of(upload(client, "k", "k.md", "# K\n\nkeyed note", Origin="https://elsewhere.example"),
                 403, "cross_site_refused")
        error_of(upload(client, "k", "k.md", "# K\n\nkeyed note"), 401, "unauthorized")
        written = upload(client, "k", "k.md", "# K\n\nkeyed note", Origin="https://elsewhere.example",
                         **{"X-API-Key": KEY})
        assert written.status_code == 200, written.text


@pytest.fixture(scope="module")
def keyed_mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("keyed-mcp") / "data"
    with serve_mcp(data, {"EAGLE_RAG_API__API_KEY": KEY}) as running:
        yield running


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "1"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def test_the_mcp_transport_takes_the_key(keyed_mcp: Server) -> None:
    url = f"{keyed_mcp.url}/mcp"
    error_of(httpx.post(url, json=INITIALIZE, headers=MCP_HEADERS, timeout=30), 401, "unauthorized")
    wrong = httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, "X-API-Key": "nope"}, timeout=30)
    error_of(wrong, 401, "unauthorized")
    for auth in ({"X-API-Key": KEY}, {"Authorization": f"Bearer {KEY}"}):
        ok = httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **auth}, timeout=30)
        assert ok.status_code == 200 and "serverInfo" in ok.text, ok.text


def test_the_mcp_transport_refuses_other_sites(keyed_mcp: Server) -> None:
    url = f"{keyed_mcp.url}/mcp"
    rebound = f"evil.example:{keyed_mcp.port}"
    # with the key a program may call from anywhere; the guard is for browsers without it
    assert httpx.post(url, json=INITIALIZE, timeout=30, headers={**MCP_HEADERS, "X-API-Key": KEY,
                                                                 "Origin": "https://evil.example"}).status_code == 200
    error_of(httpx.post(url, json=INITIALIZE, timeout=30,
                        headers={**MCP_HEADERS, "Origin": f"http://{rebound}", "Host": rebound}), 401, "unauthorized")

"""Thin front ends: one query gives the same hits through the Python service, the CLI, MCP and HTTP."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

from eagle_rag import service
from eagle_rag.api import create_app
from eagle_rag.engine import Engine
from eagle_rag.types import SearchRequest
from tests.api.helpers import make_settings
from tests.mcp.conftest import private_copy, stdio_session

pytestmark = [pytest.mark.integration, pytest.mark.anyio]
QUERY = "imatinib dosage for chronic myeloid leukemia"
K = 5


async def test_python_cli_mcp_and_http_agree(mcp_data_dir, server_env, server_cwd, tmp_path):
    cli = subprocess.run([sys.executable, "-m", "eagle_rag.cli.app", "search", QUERY, "--k", str(K), "--kb", "demo",
                          "--json"], env=server_env, cwd=server_cwd, capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    via_cli = [(h["id"], h["document_id"], round(h["score"], 6)) for h in json.loads(cli.stdout)["hits"]]

    async with stdio_session(server_env, ["-m", "eagle_rag.cli.app", "mcp"], server_cwd) as session:
        result = await session.call_tool("core_search", {"query": QUERY, "top_k": K, "kb_name": "demo"})
    via_mcp = [(h["chunk_id"], h["document_id"], round(h["score"], 6)) for h in result.structured_content["hits"]]

    with Engine(make_settings(private_copy(mcp_data_dir, tmp_path / "data"))) as engine:
        response = service.search(engine, SearchRequest(query=QUERY, top_k=K, kb_names=("demo",)))
        via_python = [(h.id, h.document_id, round(h.score, 6)) for h in response.hits]
        with TestClient(create_app(engine)) as client:
            body = client.post("/search", json={"query": QUERY, "top_k": K, "kb_names": ["demo"]}).json()
        via_http = [(h["id"], h["document_id"], round(h["score"], 6)) for h in body["hits"]]

    assert len(via_python) == K and via_python[0][1].startswith("label_imatinib")
    assert via_cli == via_python
    assert via_mcp == via_python
    assert via_http == via_python

"""Every read-only tool under ``EAGLE_RAG_PROFILE=biomed`` on the demo corpus, driven by the official MCP SDK
client: over stdio on the folder itself, and over streamable HTTP while ``eagle-rag serve`` owns it (the
MCP process then answers every tool through the server's HTTP API)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.integrations.biomed_demo import biomed_demo_folder, biomed_env, serving
from tests.mcp.conftest import stdio_session
from tests.servers import free_port, port_open, wait_ready

pytestmark = [pytest.mark.integration, pytest.mark.anyio]
EXPECTED = {"core_search", "core_get_document", "biomed_query_entities", "biomed_retrieve_compounds",
            "datasets_search", "datasets_check_ids"}
ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"
QUERY = "imatinib dosage for chronic myeloid leukemia"
DOSAGE = "Imatinib (Gleevec) prescribing information > Dosage and Administration"


@pytest.fixture(scope="module")
def biomed_demo(tmp_path_factory):
    return biomed_demo_folder(tmp_path_factory)


async def _call(session: ClientSession, name: str, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    result = await session.call_tool(name, args)
    return bool(result.is_error), result.structured_content


async def exercise_every_tool(session: ClientSession) -> None:
    """List the tools and call each one as an agent would; the answers are checked against the demo corpus."""
    listed = {t.name: t for t in (await session.list_tools()).tools}
    assert set(listed) >= EXPECTED, sorted(listed)
    assert all(t.annotations.read_only_hint and not t.annotations.destructive_hint for t in listed.values())

    failed, her2 = await _call(session, "biomed_query_entities", {"entity": "HER2"})
    assert not failed and her2["found"] is True and her2["entity"] == "HER2" and her2["type"] == "gene"
    assert {"ERBB2", "HER2/neu"} <= set(her2["aliases"]) and "trastuzumab" in her2["related_drugs"]
    failed, near = await _call(session, "biomed_query_entities", {"entity": "imatinb"})
    assert not failed and near["found"] is False and near["close_matches"][0]["entity"] == "imatinib"
    failed, scoped = await _call(session, "biomed_query_entities", {"entity": "Gleevec", "kb_name": "demo"})
    mentions = scoped["kb_mentions"]
    assert scoped["entity"] == "imatinib" and mentions["kb_name"] == "demo" and mentions["complete"] is True
    assert any(d.startswith("label_imatinib") for d in mentions["documents"]) and mentions["document_count"] >= 1

    for query in ("aspirin", ASPIRIN):
        failed, found = await _call(session, "biomed_retrieve_compounds", {"smiles_or_name": query, "top_k": 3})
        assert not failed and found["method"] == "morgan_tanimoto" and found["collection"] == "eagle_chemical"
        first = found["hits"][0]
        assert (first["compound_id"], first["name"], first["score"]) == ("cmp-aspirin", "Aspirin", 1.0)
        assert first["kb_name"] == "demo" and first["document_id"] == "cmp-aspirin" and len(found["hits"]) == 3
        assert all(h["score"] < 1.0 for h in found["hits"][1:])
    failed, invalid = await _call(session, "biomed_retrieve_compounds", {"smiles_or_name": "C1CC(("})
    assert failed and invalid["error"]["code"] == "encode_failed"
    failed, unknown_kb = await _call(session, "biomed_retrieve_compounds", {"smiles_or_name": "aspirin",
                                                                            "kb_name": "nope"})
    assert failed and unknown_kb["error"]["code"] == "not_found"
    failed, too_many = await _call(session, "biomed_retrieve_compounds", {"smiles_or_name": "aspirin", "top_k": 51})
    assert failed and too_many["error"]["code"] == "invalid_request"

    failed, full = await _call(session, "core_search", {"query": QUERY, "mode": "full", "explain": True,
                                                        "kb_name": "demo", "top_k": 3})
    assert not failed and full["mode"] == "full" and full["hits"][0]["path"] == DOSAGE
    stages = [entry["stage"] for entry in full["hits"][0]["trail"]]
    assert "cross_encoder" in stages and stages.index("cross_encoder") < stages.index("rerank_t2")
    assert full["guidance"]
    failed, hybrid = await _call(session, "core_search", {"query": QUERY, "explain": True, "kb_name": "demo"})
    assert "cross_encoder" not in {entry["stage"] for entry in hybrid["hits"][0]["trail"]}
    failed, record = await _call(session, "core_get_document", {"document_id": full["hits"][0]["document_id"]})
    assert not failed and record["kb_name"] == "demo" and record["status"] == "complete"

    failed, cards = await _call(session, "datasets_search", {"query": "BC5CDR chemical disease", "top_k": 2})
    assert not failed and cards["hits"][0]["id"] == "bigbio/bc5cdr"
    failed, checked = await _call(session, "datasets_check_ids", {"ids": ["bigbio/bc5cdr", "nope"]})
    assert not failed and checked["known"] == ["bigbio/bc5cdr"] and checked["unknown"] == ["nope"]


async def test_every_tool_over_stdio(biomed_demo):
    async with stdio_session(biomed_env(biomed_demo), ["-m", "eagle_rag.cli.app", "mcp"], biomed_demo) as session:
        await exercise_every_tool(session)


async def test_every_tool_over_streamable_http_while_serve_owns_the_folder(biomed_demo):
    with serving(biomed_demo) as served:
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-m", "eagle_rag.cli.app", "mcp", "--transport", "http",
                                 "--port", str(port)], env=biomed_env(biomed_demo), cwd=biomed_demo,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            wait_ready(proc, lambda: port_open(port), None, 120)
            async with (streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
                        ClientSession(read, write) as session):
                await session.initialize()
                await exercise_every_tool(session)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        assert served.request_count("/tools/{name}") == 13  # every call of exercise_every_tool
        assert served.request_count("/tools", "GET") == 1

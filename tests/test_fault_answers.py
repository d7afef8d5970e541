"""Honest answers under faults (issue 39): a store that cannot be reached is 503 ``store_unavailable`` with
``Retry-After`` over HTTP, exit 1 and one line from the CLI, an error result over MCP, never "the index is
empty"; documents left ``pending`` make ``/health`` degraded unless this process is ingesting them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.engine import Engine
from eagle_rag.service import health as index_health
from eagle_rag.service.core_tools import build_tool_registry
from eagle_rag.settings import Settings, load_settings
from eagle_rag.types import DocumentStatus
from tests.profiles import GENERAL

NOTE = "# Warfarin note\n\nWarfarin bleeding risk rises with aspirin.\n"
DOWN = "http://127.0.0.1:1"  # nothing listens on port 1


def _settings(data: Path, **overrides: object) -> Settings:
    return load_settings(environ=GENERAL, overrides={"data_dir": str(data), "encoders": {"mode": "deterministic"},
                                                     "plugins": {"enabled": []}, **overrides})


def test_pending_documents_degrade_health_unless_this_process_is_ingesting(tmp_path: Path) -> None:
    note = tmp_path / "warfarin.md"
    note.write_text(NOTE, encoding="utf-8")
    with Engine(_settings(tmp_path / "data")) as engine, TestClient(create_app(engine)) as client:
        engine.ingest([note], kb_name="demo")
        assert client.get("/health").json()["status"] == "ok"
        doc = engine.registry.list()[0]
        engine.registry.set_status(doc.id, DocumentStatus.PENDING)  # what a SIGKILL mid-ingest leaves
        index_health.invalidate(engine)
        body = client.get("/health").json()
        assert body["status"] == "degraded"
        assert body["reasons"] == ["1 documents are pending: an ingest was interrupted, or runs in another process "
                                   "(ingest the same files again, or eagle-rag doctor --repair)"]
        with index_health.ingesting(engine):
            assert client.get("/health").json()["status"] == "ok"


def test_a_vector_server_that_is_down_is_503_with_retry_after_not_an_empty_index(tmp_path: Path) -> None:
    """Before: 200 with empty_reason "the index is empty: ingest documents first; but the index is degraded"."""
    settings = _settings(tmp_path / "data", milvus={"uri": DOWN})
    with Engine(settings) as engine, TestClient(create_app(engine), raise_server_exceptions=False) as client:
        for mode in ("hybrid", "bm25", "dense"):
            index_health.invalidate(engine)
            response = client.post("/search", json={"query": "warfarin", "mode": mode})
            assert response.status_code == 503, response.text
            assert response.headers["Retry-After"] == "5"
            error = response.json()["error"]
            assert error["code"] == "store_unavailable"
            assert error["message"].startswith(f"the Milvus server at {DOWN} is unreachable")
            assert "empty" not in response.text
        tool = build_tool_registry(engine).call("core_search", {"query": "warfarin"})
        assert tool["error"]["code"] == "store_unavailable"


def test_the_cli_says_one_line_and_exits_1(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
    env.update({**GENERAL, "EAGLE_RAG_DATA_DIR": str(tmp_path / "data"), "EAGLE_RAG_ENCODERS__MODE": "deterministic",
                "EAGLE_RAG_PLUGINS__ENABLED": "[]", "EAGLE_RAG_MILVUS__URI": DOWN})
    done = subprocess.run([sys.executable, "-c", "from eagle_rag.cli.app import main; main()", "search", "warfarin",
                           "--local"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error (store_unavailable): the Milvus server at"), lines
    assert "no results" not in done.stdout


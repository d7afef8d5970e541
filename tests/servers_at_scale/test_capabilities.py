"""Server capabilities against real servers: Milvus 2.3.5 gets Trie scalar indexes (it refuses INVERTED), and
``lexical.backend: milvus`` on it is one line naming the BM25 function and Milvus 2.5 (exit 2 from the CLI,
``serve`` refuses to start), never "no results: the index is empty ... _InactiveRpcError"."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from eagle_rag.stores.milvus import MilvusVectorStore

pytestmark = pytest.mark.integration


def _cli_env(data: Path, uri: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
    env.update({"EAGLE_RAG_DATA_DIR": str(data), "EAGLE_RAG_ENCODERS__MODE": "deterministic",
                "EAGLE_RAG_PLUGINS__ENABLED": "[]", "EAGLE_RAG_MILVUS__URI": uri, **extra})
    return env


def test_milvus_235_gets_trie_scalar_indexes(milvus235_uri: str) -> None:
    store = MilvusVectorStore(milvus235_uri, timeout=30)
    try:
        assert store.capabilities.server == "v2.3.5-lite" and store.capabilities.scalar_index == "Trie"
        name = f"t_{uuid.uuid4().hex[:12]}"
        store.ensure_collection(name, 8)
        physical = store.physical_name(name)
        assert store.client.describe_index(physical, "kb_name")["index_type"] == "Trie"
        store.drop_collection(name)
    finally:
        store.close()


@pytest.mark.parametrize("command", [["search", "warfarin", "--local"], ["serve", "--port", "0"]])
def test_the_milvus_bm25_backend_on_235_is_one_line_exit_2(milvus235_uri: str, tmp_path: Path,
                                                            command: list[str]) -> None:
    env = _cli_env(tmp_path / "data", milvus235_uri, EAGLE_RAG_LEXICAL__BACKEND="milvus",
                   EAGLE_RAG_API__WARM_UP="false")
    done = subprocess.run([sys.executable, "-c", "from eagle_rag.cli.app import main; main()", *command], env=env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 2, (done.stdout, done.stderr[-3000:])
    lines = [line for line in done.stderr.splitlines() if line.strip() and not line.startswith("{")]
    assert lines == [f"error (server_unsupported): the BM25 function (lexical.backend: milvus) needs Milvus 2.5.0 "
                     f"or newer, and the server at {milvus235_uri} runs v2.3.5-lite; change lexical.backend or "
                     "upgrade the server"], done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "no results" not in done.stdout


@pytest.mark.parametrize(("settings", "private"), [
    ({}, "the vector store (Milvus Lite milvus.db) and the lexical index (tantivy lexical/)"),
    ({"EAGLE_RAG_LEXICAL__BACKEND": "milvus"}, "the vector store (Milvus Lite milvus.db) and the lexical index "
                                               "(in milvus.db)"),
    ({"EAGLE_RAG_MILVUS__URI": "http://127.0.0.1:1"}, "the lexical index (tantivy lexical/)"),
])
def test_serve_refuses_a_shared_registry_with_private_stores(tmp_path: Path, settings: dict[str, str],
                                                             private: str) -> None:
    """Two replicas sharing a PostgreSQL registry but each with its own Milvus Lite or tantivy diverged
    silently (an upload to B skipped_unchanged on A and never indexed there): serve now refuses in one line."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
    data = tmp_path / "data"
    env.update({"EAGLE_RAG_DATA_DIR": str(data), "EAGLE_RAG_PLUGINS__ENABLED": "[]",
                "EAGLE_RAG_REGISTRY__URL": "postgresql+psycopg://app:secret@db.example:5432/eagle", **settings})
    done = subprocess.run([sys.executable, "-c", "from eagle_rag.cli.app import main; main()", "serve", "--port", "0"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, (done.stdout, done.stderr[-2000:])
    assert done.stderr.strip().splitlines() == [
        "error: the document registry postgresql+psycopg://app:***@db.example:5432/eagle is shared, but "
        f"{private} live in this process's data folder {data}: replicas would diverge; set milvus.uri to a Milvus "
        "server and lexical.backend: milvus, or use the embedded registry (registry.url empty)"]
    assert not (data / "server.json").exists()

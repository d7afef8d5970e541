"""Item 3: a server started over a folder whose registry or vector store was deleted says so, against a
real ``eagle-rag serve``: ``/health`` is ``degraded`` with the reason, and a search's empty answer no
longer reads "the index is empty" or "no indexed text matched the query" as if nothing was wrong: it says the
answer cannot be trusted, and is not exhaustive."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.server import Server, cli, serve, server_env

pytestmark = pytest.mark.integration
NOTE = "# Warfarin note\n\nWarfarin bleeding risk rises with aspirin.\n\n## Dosing\n\nStart at 5 mg daily.\n"


def _ingested_folder(root: Path) -> Path:
    data = root / "data"
    data.mkdir(parents=True)
    (root / "warfarin.md").write_text(NOTE, encoding="utf-8")
    done = subprocess.run(cli("ingest", str(root / "warfarin.md"), "--kb", "demo"), env=server_env(data),
                          cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return data


@pytest.fixture(scope="module", params=["registry.db", "milvus.db"])
def broken(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Server]]:
    """A server over a folder whose ``request.param`` was deleted after the ingest."""
    data = _ingested_folder(tmp_path_factory.mktemp("counts"))
    target = data / request.param
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    with serve(data) as running:
        yield request.param, running


def test_health_and_search_name_the_missing_store(broken: tuple[str, Server]) -> None:
    deleted, server = broken
    with server.client() as client:
        health = client.get("/health").json()
        answer = client.post("/search", json={"query": "warfarin bleeding"}).json()
    assert health["status"] == "degraded"
    if deleted == "registry.db":
        assert health["reasons"] == ["the registry lists no document but the stores hold 2 chunks "
                                     "(the registry was deleted or replaced)"]
        assert answer["empty_reason"].startswith("nothing was found, but the answer cannot be trusted: the index "
                                                 "is degraded: the registry lists no document")
        assert answer["exhaustive"] is False
    else:
        assert health["reasons"] == [
            "collection eagle_text: the vector store holds 0 chunks, the lexical index 2",
            "the registry lists 1 complete documents but the vector store holds no chunk"]
        assert any("the vector store holds no chunk" in w for w in answer["warnings"]), answer
        if not answer["hits"]:
            assert "the index is degraded" in answer["empty_reason"]
        with server.client() as client:  # tantivy holds every chunk: no answer may say nothing matched
            lexical = client.post("/search", json={"query": "warfarin bleeding", "mode": "bm25"}).json()
        assert lexical["hits"] or (lexical["empty_reason"].startswith("nothing was found, but the answer cannot be "
                                                                     "trusted") and lexical["exhaustive"] is False)

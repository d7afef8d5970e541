"""Item 3: ``/health`` and searches tell the truth about a broken index, against a real ``eagle-rag serve``.

A store file deleted under the running server: ``/health`` says ``degraded`` and why, searches carry
the reason in ``warnings``, and an ingest that the broken store makes fail is a 503
``store_unavailable`` (not a 422 ``ingest_failed``) that names no server path.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.security.server import Server, error_of, serve, upload

pytestmark = pytest.mark.integration
NOTES = {f"note{i}.md": f"# Note {i}\n\nWarfarin bleeding note number {i}.\n\n## Dosing\n\nDose {i} mg daily.\n"
         for i in range(3)}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("health") / "data"
    with serve(data) as running:
        with running.client() as client:
            for name, text in NOTES.items():
                assert upload(client, "demo", name, text).status_code == 200
        yield running


def _health_after_cache(client: Any) -> dict[str, Any]:
    """``/health`` once the index check's cache (a few seconds) has expired."""
    deadline = time.monotonic() + 10
    while True:
        body: dict[str, Any] = client.get("/health").json()
        if body["status"] == "degraded" or time.monotonic() > deadline:
            return body
        time.sleep(0.5)


def test_a_deleted_vector_store_is_reported(server: Server) -> None:
    with server.client() as client:
        before = client.get("/health").json()
        assert before["status"] == "ok" and before["reasons"] == []
        found = client.post("/search", json={"query": "warfarin bleeding"}).json()
        assert found["hits"] and found["warnings"] == []

        shutil.rmtree(server.data_dir / "milvus.db")
        health = _health_after_cache(client)
        assert health["status"] == "degraded"
        assert health["reasons"] == ["the vector store file milvus.db is missing from the data folder"]

        answer = client.post("/search", json={"query": "warfarin bleeding"}).json()
        assert any("degraded" in w and "milvus.db" in w for w in answer["warnings"]), answer["warnings"]
        nothing = client.post("/search", json={"query": "warfarin", "document_ids": ["no-such-doc"]}).json()
        assert nothing["hits"] == [] and "the index is degraded" in nothing["empty_reason"]

        failed = upload(client, "demo", "late.md", "# Late\n\nA note written after the store was deleted.\n")
        error = error_of(failed, 503, "store_unavailable")
        assert "milvus.db" in error["message"]
        assert str(server.data_dir) not in failed.text and "/wal/" not in failed.text
        assert not list((server.data_dir / "uploads" / "demo").rglob("late.md"))  # the rejected upload is gone

"""Item 4: nothing of the server's file system leaks, against a real ``eagle-rag serve``: error bodies
and ingest reports name uploads by their name, ``source_uri`` is never an absolute server path, and an
unknown kb is not answered with the list of every kb."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.server import Server, error_of, serve, upload

pytestmark = pytest.mark.integration
NOTE = "# Secret sauce\n\nThe kanamycin protocol of the sec kb.\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("leaks")
    corpus = root / "corpus"
    corpus.mkdir()
    (corpus / "served.md").write_text("# Served\n\nA server-side file about kanamycin.\n", encoding="utf-8")
    with serve(root / "data", {"EAGLE_RAG_INGEST__ALLOWED_ROOTS": str(corpus)}) as running:
        with running.client() as client:
            assert upload(client, "sec", "g.md", NOTE).status_code == 200
            served = client.post("/ingest", data={"kb_name": "srv", "paths": str(corpus / "served.md")})
            assert served.status_code == 200, served.text
        yield running


def _no_server_path(text: str, server: Server) -> None:
    for path in (str(server.data_dir), str(server.data_dir.resolve()), str(server.data_dir.parent)):
        assert path not in text, text


def test_a_failed_upload_is_named_by_its_name(server: Server) -> None:
    with server.client() as client:
        failed = upload(client, "sec", "g2.md", "   \n")
    error = error_of(failed, 422, "ingest_failed")
    _no_server_path(failed.text, server)
    assert [f["path"] for f in error["details"]["report"]["failures"]] == ["g2.md"]  # type: ignore[index]


def test_source_uri_is_relative(server: Server) -> None:
    with server.client() as client:
        hits = {h["metadata"]["kb_name"]: h["document_id"]
                for h in client.post("/search", json={"query": "kanamycin", "top_k": 10}).json()["hits"]}
        uploaded = client.get(f"/documents/{hits['sec']}").json()
        served = client.get(f"/documents/{hits['srv']}").json()
    assert uploaded["source_uri"] == "g.md"
    assert served["source_uri"] == "served.md"
    assert not Path(uploaded["source_uri"]).is_absolute() and not Path(served["source_uri"]).is_absolute()


def test_an_unknown_kb_is_not_answered_with_every_kb(server: Server) -> None:
    with server.client() as client:
        missing = client.post("/search", json={"query": "kanamycin", "kb_names": ["nope"]})
    error = error_of(missing, 404, "not_found")
    assert error["details"] == {"field": "kb_names", "unknown": ["nope"]}
    assert "sec" not in str(error["message"]) and "srv" not in str(error["message"])


def test_a_path_outside_the_roots_is_named_as_given(server: Server) -> None:
    with server.client() as client:
        refused = client.post("/ingest", data={"kb_name": "sec", "paths": "../data/registry.db"})
    error_of(refused, 403, "path_not_allowed")
    _no_server_path(refused.text, server)

"""Item 1: knowledge bases are isolated, against a real ``eagle-rag serve``. A record id uploaded into
kb ``evil`` that kb ``demo`` already holds is a new document of ``evil`` (``replaced: 0``, ``added: 1``)
and ``demo`` keeps its own; ``/kbs/{kb}/documents/{id}`` names one of them (GET, DELETE, chunks); the
alias ``/documents/{id}`` answers a unique id, refuses an ambiguous one with 409 without naming the
kbs, and takes ``kb_name``; the MCP get tool takes a kb (and names the source as HTTP does)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from tests.security.server import Server, error_of, serve

pytestmark = pytest.mark.integration
DEMO = [{"id": "abs-008", "title": "Imatinib dosing", "text": "Imatinib 400 mg daily is the usual adult dose."},
        {"id": "abs-010", "title": "Warfarin", "text": "Warfarin needs INR monitoring."}]
HIJACK = [{"id": "abs-008", "title": "Hijacked", "text": "hijacked text that replaces nothing."}]


def jsonl(rows: list[dict[str, str]]) -> bytes:
    return ("\n".join(json.dumps(r) for r in rows) + "\n").encode()


def ingest(client: httpx.Client, kb: str, name: str, rows: list[dict[str, str]]) -> dict[str, object]:
    answer = client.post("/ingest", data={"kb_name": kb},
                         files={"files": (name, jsonl(rows), "application/x-ndjson")})
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serve(tmp_path_factory.mktemp("kb-isolation") / "data") as running:
        with running.client() as client:
            assert ingest(client, "demo", "demo.jsonl", DEMO)["added"] == 2
        yield running


@pytest.fixture(scope="module")
def hijack(server: Server) -> dict[str, object]:
    with server.client() as client:
        return ingest(client, "evil", "hijack.jsonl", HIJACK)


def test_an_upload_into_another_kb_replaces_nothing(server: Server, hijack: dict[str, object]) -> None:
    assert (hijack["replaced"], hijack["added"], hijack["documents"]) == (0, 1, 1), hijack
    with server.client() as client:
        demo = client.get("/kbs/demo/documents/abs-008").json()
        evil = client.get("/kbs/evil/documents/abs-008").json()
        found = client.post("/search", json={"query": "imatinib dose", "kb_names": ["demo"], "mode": "bm25"}).json()
    assert (demo["id"], demo["kb_name"], demo["name"]) == ("abs-008", "demo", "Imatinib dosing")
    assert (evil["id"], evil["kb_name"], evil["name"]) == ("abs-008", "evil", "Hijacked")
    assert [(h["document_id"], h["kb_name"]) for h in found["hits"]] == [("abs-008", "demo")]


def test_the_alias_refuses_an_ambiguous_id_and_answers_a_unique_one(server: Server, hijack: dict[str, object]) -> None:
    with server.client() as client:
        ambiguous = client.get("/documents/abs-008")
        chunks = client.get("/documents/abs-008/chunks")
        deleted = client.delete("/documents/abs-008")
        unique = client.get("/documents/abs-010")
        chosen = client.get("/documents/abs-008", params={"kb_name": "evil"})
    for refused in (ambiguous, chunks, deleted):
        error = error_of(refused, 409, "ambiguous_document")
        assert "/kbs/{kb}/documents/{id}" in str(error["message"])
        assert "demo" not in refused.text and "evil" not in refused.text  # no other kb's name leaks
    assert unique.status_code == 200 and unique.json()["kb_name"] == "demo"
    assert chosen.status_code == 200 and chosen.json()["name"] == "Hijacked"


def test_the_kb_path_reads_and_deletes_only_that_kbs_copy(server: Server, hijack: dict[str, object]) -> None:
    with server.client() as client:
        chunks = client.get("/kbs/evil/documents/abs-008/chunks").json()
        assert chunks["document"]["kb_name"] == "evil" and "hijacked" in chunks["chunks"][0]["text"]
        error_of(client.get("/kbs/evil/documents/abs-010"), 404, "not_found")
        gone = client.delete("/kbs/evil/documents/abs-008")
        assert gone.status_code == 200 and gone.json() == {"document_id": "abs-008", "kb_name": "evil",
                                                           "deleted": True}
        error_of(client.get("/kbs/evil/documents/abs-008"), 404, "not_found")
        assert client.get("/kbs/demo/documents/abs-008").json()["name"] == "Imatinib dosing"
        assert client.get("/documents/abs-008").json()["kb_name"] == "demo"  # unique again
        hits = client.post("/search", json={"query": "imatinib", "mode": "bm25"}).json()["hits"]
        assert [(h["document_id"], h["kb_name"]) for h in hits] == [("abs-008", "demo")]
        allowed = client.options("/kbs/demo/documents/abs-008")
        assert {"GET", "DELETE"} <= set(allowed.headers["allow"].replace(" ", "").split(","))


def test_the_mcp_get_tool_takes_a_kb(server: Server) -> None:
    with server.client() as client:
        client.delete("/kbs/evil/documents/abs-008")  # the hijack upload's copy, where a test left it (404 if not)
        ingest(client, "evil", "again.jsonl", HIJACK)
        ambiguous = client.post("/tools/core_get_document", json={"document_id": "abs-008"})
        chosen = client.post("/tools/core_get_document", json={"document_id": "abs-008", "kb_name": "evil"})
    error_of(ambiguous, 409, "ambiguous_document")
    assert chosen.status_code == 200 and (chosen.json()["kb_name"], chosen.json()["name"]) == ("evil", "Hijacked")
    assert chosen.json()["source_uri"] == "again.jsonl#1"  # as over HTTP: never a server path (item 4)

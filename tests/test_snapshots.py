"""Snapshots of the embedded stores (Milvus Lite, tantivy, SQLite registry and token vectors, uploads), taken
while a server ingests and answers searches, and restored whole or not at all."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.engine import Engine
from eagle_rag.errors import InvalidRequest, NotFound
from eagle_rag.ops import doctor, snapshot_restore, snapshots
from eagle_rag.service import health as index_health
from eagle_rag.settings import Settings
from eagle_rag.types import DocumentStatus, SearchRequest
from tests.api.helpers import assert_error_shape, make_settings

pytestmark = pytest.mark.integration
FIRST = {f"a-{i}": f"Imatinib {i} inhibits BCR-ABL kinase in chronic myeloid leukaemia, trial {i}." for i in range(6)}
SECOND = {f"b-{i}": f"Warfarin {i} needs INR monitoring; bleeding is the main risk, cohort {i}." for i in range(40)}


def write(path: Path, records: dict[str, str]) -> Path:
    path.write_text("\n".join(json.dumps({"id": i, "title": f"Record {i}", "text": t}) for i, t in records.items()))
    return path


def settings_for(tmp_path: Path) -> Settings:
    return make_settings(tmp_path / "data", ingest={"token_vector_collections": []})


def state(engine: Engine) -> dict[str, Any]:
    """What a restore must bring back: complete document ids, chunk ids per store, one search's hits."""
    records = engine.registry.list(status=DocumentStatus.COMPLETE, limit=1000)
    response = engine.search(SearchRequest("imatinib kinase", top_k=5))
    return {"documents": sorted(r.id for r in records),
            "vectors": sorted(c for c, _ in engine.vectors.chunk_refs("eagle_text")),
            "lexical": sorted(c for c, _ in engine.lexical_for("eagle_text").chunk_refs()),
            "hits": [(h.id, round(h.score, 6)) for h in response.hits]}


def test_snapshot_under_a_concurrent_ingest_restores_that_state(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """An ingest runs while the snapshot is asked for: the snapshot waits for it (the writer lock) and holds
    all of it; a search during the copy is answered (searches do not wait); after more writes, a restore
    brings back exactly the state at the snapshot, and doctor finds it consistent."""
    settings = settings_for(tmp_path)
    copying, searched = threading.Event(), threading.Event()
    real_copy = snapshots.copy_file

    def slow_copy(source: Path, target: Path) -> None:
        copying.set()
        searched.wait(10)  # the copy holds the writer lock until the search below has been answered
        real_copy(source, target)

    with Engine(settings) as engine, TestClient(create_app(engine)) as client:
        assert engine.ingest([write(tmp_path / "first.jsonl", FIRST)], kb_name="kb").documents == 6
        ingest = threading.Thread(target=lambda: client.post(
            "/ingest", data={"kb_name": "kb"}, files=[("files", ("second.jsonl", write(
                tmp_path / "second.jsonl", SECOND).read_bytes(), "application/jsonl"))]))
        ingest.start()
        deadline = time.monotonic() + 30
        while not engine.registry.count(status=DocumentStatus.PENDING) and time.monotonic() < deadline:
            time.sleep(0.005)  # the ingest has begun writing
        monkeypatch.setattr(snapshots, "copy_file", slow_copy)
        answer: dict[str, Any] = {}
        snap = threading.Thread(target=lambda: answer.update(client.post("/snapshots", json={"name": "s1"}).json()))
        snap.start()
        assert copying.wait(60)
        started = time.monotonic()
        found = client.post("/search", json={"query": "imatinib kinase", "top_k": 3})
        search_s = time.monotonic() - started
        searched.set()
        snap.join(60)
        ingest.join(60)
        monkeypatch.setattr(snapshots, "copy_file", real_copy)
        assert found.status_code == 200 and found.json()["hits"] and search_s < 5
        assert answer["documents"] == {"complete": 46}  # the whole ingest, never a part of it
        assert answer["chunks"]["eagle_text"] == {"vectors": 46, "lexical": 46}
        assert {f["path"] for f in answer["files"]} >= {"registry.db", "milvus.db/aliases.json",
                                                        "lexical/eagle_text/meta.json"}
        assert not any(f["path"].startswith(("server.json", "audit.jsonl")) for f in answer["files"])
        at_snapshot = state(engine)
        assert len(at_snapshot["documents"]) == 46
        listed = client.get("/snapshots").json()
        assert [(s["name"], s["files"]) for s in listed] == [("s1", len(answer["files"]))]
        client.post("/ingest", data={"kb_name": "kb"}, files=[("files", ("third.jsonl", b'{"id": "c-1", "text": '
                                                                        b'"Metformin lowers glucose."}', "x"))])
        client.delete("/kbs/kb/documents/a-0")
        assert state(engine)["documents"] != at_snapshot["documents"]
    audit_before = (settings.data_path / "audit.jsonl").read_bytes()
    manifest = snapshot_restore.restore_snapshot(settings, "s1")
    assert manifest.name == "s1"
    assert (settings.data_path / "audit.jsonl").read_bytes() == audit_before  # the audit log stays
    assert not {snapshot_restore.STAGING, snapshot_restore.REPLACED, snapshot_restore.JOURNAL} & set(
        os.listdir(settings.data_path))
    with Engine(settings) as engine:
        assert state(engine) == at_snapshot
        report = doctor.check(engine)
        assert report.ok and not report.findings
        assert not index_health.check_index(engine).problems


@pytest.fixture
def snapped(tmp_path: Path) -> tuple[Settings, dict[str, Any]]:
    """A data folder with a snapshot ``s1`` of six documents, then a seventh document written after it."""
    settings = settings_for(tmp_path)
    with Engine(settings) as engine:
        engine.ingest([write(tmp_path / "first.jsonl", FIRST)], kb_name="kb")
        snapshots.create_snapshot(engine, "s1")
        before = state(engine)
        engine.ingest([write(tmp_path / "more.jsonl", {"c-1": "Metformin lowers hepatic glucose output."})],
                      kb_name="kb")
    return settings, before


def folder_bytes(settings: Settings) -> dict[str, bytes]:
    data = settings.data_path
    return {str(p.relative_to(data)): p.read_bytes() for p in sorted(data.rglob("*")) if p.is_file()}


def test_restore_refuses_another_layout_or_a_damaged_snapshot_before_anything_changes(
        snapped: tuple[Settings, dict[str, Any]]) -> None:
    settings, _ = snapped
    folder = settings.snapshot_path / "s1"
    untouched = folder_bytes(settings)
    manifest_file = folder / snapshots.MANIFEST
    original = manifest_file.read_text()
    manifest_file.write_text(original.replace('"layout_version": 1', '"layout_version": 2'))
    with pytest.raises(InvalidRequest) as refused:
        snapshot_restore.restore_snapshot(settings, "s1")
    assert "\n" not in refused.value.message
    assert refused.value.message == ("snapshot 's1' was written by Eagle-RAG 0.1.0 with store layout 2; this "
                                     "Eagle-RAG 0.1.0 reads layout 1: restore it with Eagle-RAG 0.1.0")
    manifest_file.write_text(original)
    with (folder / snapshots.FILES / "registry.db").open("ab") as damaged:
        damaged.write(b"x")
    with pytest.raises(InvalidRequest, match=r"snapshot 's1' is damaged: registry.db is missing or differs"):
        snapshot_restore.restore_snapshot(settings, "s1")
    assert folder_bytes(settings) == untouched
    with pytest.raises(NotFound):
        snapshot_restore.restore_snapshot(settings, "nope")


def test_a_restore_killed_while_swapping_is_finished_from_its_journal(
        snapped: tuple[Settings, dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    settings, before = snapped
    real_replace, calls = os.replace, []

    def dies_midway(src: Any, dst: Any) -> None:
        calls.append(src)
        if len(calls) == 5:  # the journal is written (1), some entries are moved aside, none is in place yet
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(snapshot_restore.os, "replace", dies_midway)
    with pytest.raises(KeyboardInterrupt):
        snapshot_restore.restore_snapshot(settings, "s1")
    monkeypatch.setattr(snapshot_restore.os, "replace", real_replace)
    assert (settings.data_path / snapshot_restore.JOURNAL).exists()
    with Engine(settings) as engine:
        assert any("snapshot restore was interrupted" in p for p in index_health.check_index(engine).problems)
    assert snapshot_restore.finish_interrupted(settings)
    with Engine(settings) as engine:
        assert state(engine) == before
        assert doctor.check(engine).ok and not index_health.check_index(engine).problems


@pytest.mark.unit
def test_names_listing_deleting_and_server_configurations(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    assert settings.snapshot_path == tmp_path / "data-snapshots"
    for bad in ("", "../x", ".partial-x", "a/b", "x" * 65, "a b"):
        with pytest.raises(InvalidRequest, match="invalid snapshot name"):
            snapshots.check_name(bad)
    assert snapshots.list_snapshots(settings) == []
    with pytest.raises(NotFound, match="no snapshot named 'gone'"):
        snapshots.delete_snapshot(settings, "gone")
    served = make_settings(tmp_path / "data", registry={"url": "postgresql+psycopg://u@h/db"})
    with pytest.raises(InvalidRequest, match="use pg_dump and Milvus backup tooling instead"):
        snapshots.require_embedded(served)
    lite_on_server = make_settings(tmp_path / "data", milvus={"uri": "http://milvus:19530"})
    with pytest.raises(InvalidRequest, match="docs/deploy.md"):
        snapshot_restore.restore_snapshot(lite_on_server, "s1")


def test_http_routes_and_their_errors(snapped: tuple[Settings, dict[str, Any]]) -> None:
    settings, _ = snapped
    with Engine(settings) as engine, TestClient(create_app(engine), raise_server_exceptions=False) as client:
        assert_error_shape(client.post("/snapshots", json={"name": "s1"}), 400, "invalid_request")  # taken
        assert_error_shape(client.post("/snapshots", json={"name": "../up"}), 422, "invalid_request")
        assert_error_shape(client.delete("/snapshots/nope"), 404, "not_found")
        made = client.post("/snapshots", json={}).json()
        assert made["name"].startswith("snap-") and made["documents"] == {"complete": 7}
        assert [s["name"] for s in client.get("/snapshots").json()] == ["s1", made["name"]]
        assert client.delete(f"/snapshots/{made['name']}").json() == {"name": made["name"], "deleted": True}
        assert [s["name"] for s in client.get("/snapshots").json()] == ["s1"]

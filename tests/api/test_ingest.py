"""POST /ingest (uploads and server-side paths), GET and DELETE /documents/{id}; path traversal refused."""

from __future__ import annotations

import os

import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.api.uploads import UPLOADS_DIR, safe_filename, upload_path
from eagle_rag.engine import Engine
from eagle_rag.errors import InvalidRequest
from tests.api.helpers import assert_error_shape, make_settings

pytestmark = pytest.mark.integration

NOTE = b"# Ruxolitinib note\n\n## Dosage\nRuxolitinib 20 mg twice daily for myelofibrosis.\n"


def _upload(client, name: str, data: bytes, kb: str = "uploads"):
    return client.post("/ingest", data={"kb_name": kb}, files=[("files", (name, data, "text/markdown"))])


def test_upload_then_get_search_reupload_and_delete(client, api_engine):
    report = _upload(client, "ruxolitinib.md", NOTE).json()
    assert report["documents"] == 1 and report["failures"] == [] and report["kb_name"] == "uploads"
    hit = client.post("/search", json={"query": "ruxolitinib myelofibrosis", "kb_names": ["uploads"]}).json()
    doc_id = hit["hits"][0]["document_id"]
    record = client.get(f"/documents/{doc_id}").json()
    assert record["kb_name"] == "uploads" and record["status"] == "complete"
    stored = upload_path(api_engine.settings.data_path / UPLOADS_DIR / "uploads", "ruxolitinib.md")
    assert record["source_uri"] == "ruxolitinib.md" and stored.read_bytes() == NOTE  # the name, not the path

    again = _upload(client, "ruxolitinib.md", NOTE).json()
    assert again["skipped_unchanged"] == 1 and again["documents"] == 0
    changed = _upload(client, "ruxolitinib.md", NOTE + b"\nTake with food.\n").json()
    assert changed["replaced"] == 1

    assert client.delete(f"/documents/{doc_id}").json() == {"document_id": doc_id, "kb_name": "uploads",
                                                            "deleted": True}
    assert_error_shape(client.get(f"/documents/{doc_id}"), 404, "not_found")
    assert not stored.exists()
    after = client.post("/search", json={"query": "ruxolitinib", "mode": "bm25", "top_k": 100}).json()
    assert doc_id not in {h["document_id"] for h in after["hits"]}
    gone = client.post("/search", json={"query": "ruxolitinib", "kb_names": ["uploads"]})
    assert_error_shape(gone, 404, "not_found")  # its only document is gone, and so is the kb
    assert_error_shape(client.delete(f"/documents/{doc_id}"), 404, "not_found")


def test_upload_file_name_cannot_escape_the_uploads_folder(client, api_engine):
    report = _upload(client, "../../../evil.md", b"# Evil\n\nnothing to see\n", kb="escape").json()
    assert report["documents"] == 1
    stored = upload_path(api_engine.settings.data_path / UPLOADS_DIR / "escape", "../../../evil.md")
    assert stored.name == "evil.md" and stored.is_file()
    assert not (api_engine.settings.data_path.parent / "evil.md").exists()


@pytest.mark.parametrize("names", [("note.md", "note.md"), ("d1/note.md", "d2/note.md")])
def test_two_uploads_of_one_file_name_are_two_documents(client, names):
    kb = "same-name-" + str(len(names[0]))
    texts = (b"# Note\n\nNumbat burrows in the wheatbelt.\n", b"# Note\n\nQuokka colonies on Rottnest.\n")
    files = [("files", (name, text, "text/markdown")) for name, text in zip(names, texts, strict=True)]
    report = client.post("/ingest", data={"kb_name": kb}, files=files).json()
    assert (report["files"], report["documents"], report["added"], report["failures"]) == (2, 2, 2, [])
    listed = client.get("/documents", params={"kb_name": kb}).json()
    assert listed["total"] == 2 and len({d["id"] for d in listed["documents"]}) == 2
    assert {d["source_uri"] for d in listed["documents"]} == {"note.md"}
    for word in ("numbat", "quokka"):
        hits = client.post("/search", json={"query": word, "mode": "bm25", "kb_names": [kb]}).json()["hits"]
        assert len(hits) == 1 and word in hits[0]["text"].lower()
    again = client.post("/ingest", data={"kb_name": kb}, files=files).json()  # the same request: no new document
    assert (again["documents"], again["skipped_unchanged"], again["added"]) == (0, 2, 0)
    assert client.get("/documents", params={"kb_name": kb}).json()["total"] == 2


@pytest.mark.parametrize("raw, expected", [
    ("../../etc/passwd", "passwd"), ("..\\..\\boot.ini", "boot.ini"), ("a b.md", "a b.md"),
    (".hidden.md", "hidden.md"), ("二甲双胍.md", "二甲双胍.md"), ("x;rm -rf.md", "x_rm -rf.md"),
])
def test_safe_filename(raw, expected):
    assert safe_filename(raw) == expected


@pytest.mark.parametrize("raw", ["", "..", "/", "...", None])
def test_safe_filename_refuses_names_without_a_base(raw):
    with pytest.raises(InvalidRequest):
        safe_filename(raw)


def test_unsupported_upload_is_422_with_the_report(client):
    error = assert_error_shape(_upload(client, "blob.exe", b"MZ\x00\x01"), 422, "ingest_failed")
    assert error["details"]["report"]["failures"][0]["error"]


def test_server_side_path_inside_an_allowed_root(client):
    report = client.post("/ingest", data={"kb_name": "paths", "paths": ["other/combination_therapy.md"]}).json()
    assert report["documents"] == 1 and report["failures"] == []


@pytest.mark.parametrize("path", [
    "../../../../etc/passwd", "/etc/passwd", "labels/../../../../../etc", "/", "..",
    "labels/../../../../../../../../../../../../etc/shadow",
])
def test_path_traversal_is_refused(client, path):
    error = assert_error_shape(client.post("/ingest", data={"kb_name": "x", "paths": [path]}), 403,
                               "path_not_allowed")
    assert error["details"] == {"path": path}  # the path as given; never the roots or the resolved path
    assert "sample" not in error["message"]


def test_nothing_to_ingest_and_bad_kb_names_are_400(client):
    assert_error_shape(client.post("/ingest", data={"kb_name": "x"}), 400, "invalid_request")
    for kb in ("..", "a/b", "x' or 1=1"):
        assert client.post("/ingest", data={"kb_name": kb, "paths": ["labels"]}).status_code in (400, 422)
    assert_error_shape(_upload(client, "a.md", b"# A\n\ntext\n", kb=".."), 400, "invalid_request")


def test_document_ids_with_nul_or_unknown(client):
    assert_error_shape(client.get("/documents/a%00b"), 400, "invalid_request")
    assert_error_shape(client.get("/documents/no-such-doc"), 404, "not_found")
    assert_error_shape(client.get("/documents/" + "x" * 300), 422, "invalid_request")


@pytest.fixture
def restricted_app(tmp_path):
    """An app whose only allowed root is ``tmp_path/root`` (with a link pointing out of it)."""
    root = tmp_path / "root"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "ok.md").write_text("# OK\n\nfine\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nprivate\n")
    os.symlink(outside / "secret.md", root / "docs" / "link.md")
    os.symlink(outside, root / "dirlink")
    settings = make_settings(tmp_path / "data", ingest={"allowed_roots": [str(root)]},
                             api={"max_upload_bytes": 2000})
    with Engine(settings) as engine:
        yield create_app(engine), root


def test_symbolic_links_out_of_the_root_are_refused(restricted_app):
    app, root = restricted_app
    with TestClient(app, raise_server_exceptions=False) as c:
        assert_error_shape(c.post("/ingest", data={"paths": ["docs"]}), 403, "path_not_allowed")
        assert_error_shape(c.post("/ingest", data={"paths": ["docs/link.md"]}), 403, "path_not_allowed")
        assert_error_shape(c.post("/ingest", data={"paths": ["dirlink/secret.md"]}), 403, "path_not_allowed")
        assert c.post("/ingest", data={"paths": [str(root / "docs" / "ok.md")]}).json()["documents"] == 1


def test_upload_over_the_limit_is_413(restricted_app):
    app, _ = restricted_app
    with TestClient(app, raise_server_exceptions=False) as c:
        assert_error_shape(_upload(c, "big.md", b"# Big\n\n" + b"x" * 5000), 413, "payload_too_large")


def test_server_side_paths_are_off_without_allowed_roots(tmp_path):
    with Engine(make_settings(tmp_path)) as engine, TestClient(create_app(engine)) as c:
        error = assert_error_shape(c.post("/ingest", data={"paths": ["/tmp"]}), 403, "path_not_allowed")
        assert "allowed_roots" in error["message"]

"""The read-only browse endpoints (``GET /documents``, ``/documents/{id}/chunks``, ``/kbs``, ``/config``)
and the console routes (``/``, ``/docs``, ``/redoc``, ``/static``), over the shared API engine."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.api.routes_browse import document_type
from eagle_rag.api.routes_console import CONSOLE_CSP
from eagle_rag.engine import Engine
from eagle_rag.redact import MASK, mask_secret
from eagle_rag.types import DocumentStatus, document_key, public_document_id
from tests.api.helpers import TAGGED_IDS, assert_error_shape, make_settings

pytestmark = pytest.mark.integration


def test_list_documents_pages_and_counts(client, api_engine):
    everything = api_engine.registry.count()
    first = client.get("/documents", params={"limit": 5}).json()
    second = client.get("/documents", params={"limit": 5, "offset": 5}).json()
    assert first["total"] == second["total"] == everything
    assert len(first["documents"]) == len(second["documents"]) == 5
    ids = [d["id"] for d in first["documents"] + second["documents"]]
    assert ids == sorted(ids) and len(set(ids)) == 10
    assert first["filters"] == {} and second["offset"] == 5


def test_list_documents_filters_by_kb_status_and_type(client, api_engine):
    tagged = client.get("/documents", params={"kb_name": "tagged"}).json()
    assert {d["id"] for d in tagged["documents"]} == TAGGED_IDS and tagged["total"] == 4
    assert {d["type"] for d in tagged["documents"]} == {"jsonl"}
    labels = client.get("/documents", params={"kb_name": "demo", "type": "md", "limit": 500}).json()
    assert labels["total"] == api_engine.registry.count(kb_name="demo") > 0
    assert all(d["type"] == "md" and d["kb_name"] == "demo" for d in labels["documents"])
    assert labels["filters"] == {"kb_name": "demo", "type": "md"}
    assert client.get("/documents", params={"type": "pdf"}).json()["total"] == 0
    paged = client.get("/documents", params={"type": "jsonl", "limit": 3, "offset": 2}).json()
    assert paged["total"] == 4 and [d["id"] for d in paged["documents"]] == sorted(TAGGED_IDS)[2:]
    done = client.get("/documents", params={"status": "complete", "limit": 1}).json()
    assert done["total"] == api_engine.registry.count(status=DocumentStatus.COMPLETE)
    assert client.get("/documents", params={"status": "failed"}).json()["total"] == 0


def test_list_documents_refuses_bad_filters(client):
    error = assert_error_shape(client.get("/documents", params={"kb_name": "nope"}), 404, "not_found")
    assert error["details"] == {"field": "kb_name"} and "tagged" not in error["message"]  # no list of kbs
    assert_error_shape(client.get("/documents", params={"kb_name": "a' or 1=1"}), 422, "invalid_request")
    assert_error_shape(client.get("/documents", params={"type": "../md"}), 422, "invalid_request")
    assert_error_shape(client.get("/documents", params={"status": "done"}), 422, "invalid_request")
    assert_error_shape(client.get("/documents", params={"limit": 0}), 422, "invalid_request")


def test_document_chunks(client, api_engine):
    doc_id = next(i for d in api_engine.registry.list(kb_name="demo")
                  if (i := public_document_id(d.id)).startswith("label_imatinib-"))
    reply = client.get(f"/documents/{doc_id}/chunks").json()
    assert client.get(f"/kbs/demo/documents/{doc_id}/chunks").json() == reply
    record = api_engine.registry.get(document_key("demo", doc_id))
    assert reply["total"] == record.chunk_count == len(reply["chunks"])
    assert reply["document"]["id"] == doc_id and reply["document"]["type"] == "md"
    assert "Imatinib (Gleevec) prescribing information > Dosage and Administration" in reply["sections"]
    assert [c["ordinal"] for c in reply["chunks"]] == sorted(c["ordinal"] for c in reply["chunks"])
    encoder = api_engine.encoders.collection("eagle_text").default_encoder
    assert {(c["collection"], c["encoder"]) for c in reply["chunks"]} == {("eagle_text", encoder)}
    assert all(c["primary_drugs"] == [] for c in reply["chunks"])  # no plugin writes them in this profile
    page = client.get(f"/documents/{doc_id}/chunks", params={"limit": 2, "offset": 1}).json()
    assert [c["id"] for c in page["chunks"]] == [c["id"] for c in reply["chunks"][1:3]]
    assert_error_shape(client.get("/documents/no-such-doc/chunks"), 404, "not_found")


def test_kbs(client, api_engine):
    kbs = {kb["name"]: kb for kb in client.get("/kbs").json()["kbs"]}
    assert {"demo", "tagged"} <= set(kbs)  # tests of the upload routes add kbs to this session's engine
    assert kbs["tagged"] == {"name": "tagged", "documents": 4, "complete": 4, "pending": 0, "failed": 0}
    assert kbs["demo"]["documents"] == api_engine.registry.count(kb_name="demo")


def test_config_lists_the_settings_in_force(client, api_engine):
    rows = {r["key"]: r for r in client.get("/config").json()["settings"]}
    assert rows["router.rrf_k"]["value"] == api_engine.settings.router.rrf_k
    assert rows["router.rrf_k"]["source"] == "default" and rows["router.rrf_k"]["help"]
    assert rows["encoders.mode"] == {**rows["encoders.mode"], "value": "deterministic", "source": "override"}
    assert rows["api.api_key"]["value"] == ""


def test_mask_secret():
    assert mask_secret("api.api_key", "s3cret") == MASK
    assert mask_secret("api.api_key", "") == ""
    assert mask_secret("registry.url", "postgresql+psycopg://eagle:pa55@db:5432/eagle") == (
        f"postgresql+psycopg://eagle:{MASK}@db:5432/eagle")
    assert mask_secret("audit.redis_url", "redis://:pw@cache:6379/0") == f"redis://:{MASK}@cache:6379/0"
    assert mask_secret("registry.url", "sqlite:////tmp/registry.db") == "sqlite:////tmp/registry.db"
    assert mask_secret("router.rrf_k", 60) == 60


def test_document_type():
    assert document_type("/srv/notes/a.MD") == "md"
    assert document_type("/srv/abstracts.jsonl#12") == "jsonl"
    assert document_type("/srv/README") == ""


def test_console_page_and_offline_docs(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.headers["content-security-policy"] == CONSOLE_CSP
    assert '<script type="module" src="/static/js/main.js"></script>' in page.text
    docs, redoc = client.get("/docs").text, client.get("/redoc").text
    assert "/static/vendor/swagger-ui/swagger-ui-bundle.js" in docs and '"validatorUrl": null' in docs
    assert "/static/vendor/redoc/redoc.standalone.js" in redoc
    for html in (page.text, docs, redoc):
        assert "cdn.jsdelivr.net" not in html and "fonts.googleapis.com" not in html and "tiangolo" not in html
    for asset in ("/static/js/main.js", "/static/console.css", "/static/vendor/swagger-ui/LICENSE",
                  "/static/vendor/redoc/LICENSE"):
        assert client.get(asset).status_code == 200, asset
    assert_error_shape(client.get("/static/no-such-file.js"), 404, "not_found")
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/documents", "/documents/{document_id}/chunks", "/kbs", "/config"} <= set(paths)
    assert not {"/", "/docs", "/redoc"} & set(paths)


def test_console_is_public_and_the_api_is_not_when_a_key_is_set(tmp_path):
    settings = make_settings(tmp_path, api={"api_key": "k3y-for-browse"})
    with Engine(settings) as engine, TestClient(create_app(engine), raise_server_exceptions=False) as c:
        for path in ("/", "/static/js/core.js"):
            assert c.get(path).status_code == 200, path
        for path in ("/documents", "/kbs", "/config", "/documents/x/chunks", "/docs", "/redoc", "/openapi.json"):
            assert_error_shape(c.get(path), 401, "unauthorized")  # the docs too, unless api.public_docs
        rows = {r["key"]: r for r in c.get("/config", headers={"X-API-Key": "k3y-for-browse"}).json()["settings"]}
        assert rows["api.api_key"]["value"] == MASK
        assert "k3y-for-browse" not in c.get("/config", headers={"X-API-Key": "k3y-for-browse"}).text

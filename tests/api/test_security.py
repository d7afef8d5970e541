"""API key (off by default, constant-time check), CORS (off by default), request ids, structured logs."""

from __future__ import annotations

import json
import logging

import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.engine import Engine
from eagle_rag.service.guard import key_matches
from eagle_rag.service.logs import JsonFormatter, RequestIdFilter, request_id_var
from eagle_rag.settings import load_settings
from tests.api.helpers import assert_error_shape, make_settings
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def keyed_client(tmp_path_factory):
    settings = make_settings(tmp_path_factory.mktemp("keyed"), api={"api_key": "s3cret-key",
                                                                     "cors_origins": ["https://app.example"]})
    with Engine(settings) as engine, TestClient(create_app(engine), raise_server_exceptions=False) as c:
        yield c


def test_api_key_is_off_by_default(client):
    assert load_settings(environ=GENERAL).api.api_key.get_secret_value() == ""
    assert client.get("/health/plugins").status_code == 200


def test_api_key_from_the_environment():
    settings = load_settings(environ={"EAGLE_RAG_API__API_KEY": "from-env"})
    assert settings.api.api_key.get_secret_value() == "from-env"
    assert "from-env" not in repr(settings.api)


def test_api_key_is_required_when_set(keyed_client):
    assert_error_shape(keyed_client.post("/search", json={"query": "x"}), 401, "unauthorized")
    assert_error_shape(keyed_client.post("/search", json={"query": "x"}, headers={"X-API-Key": "wrong"}),
                       401, "unauthorized")
    assert_error_shape(keyed_client.get("/metrics"), 401, "unauthorized")
    ok = keyed_client.post("/search", json={"query": "x"}, headers={"X-API-Key": "s3cret-key"})
    assert ok.status_code == 200 and ok.json()["empty_reason"].startswith("the index is empty")
    assert keyed_client.get("/health").status_code == 200
    for method, path, body in (("POST", "/snapshots", {"name": "x"}), ("GET", "/snapshots", None),
                               ("DELETE", "/snapshots/x", None), ("POST", "/reindex", {"rollback": True})):
        assert_error_shape(keyed_client.request(method, path, json=body), 401, "unauthorized")  # operator routes


def test_openapi_declares_the_key(keyed_client):
    assert_error_shape(keyed_client.get("/openapi.json"), 401, "unauthorized")  # api.public_docs is off
    schema = keyed_client.get("/openapi.json", headers={"X-API-Key": "s3cret-key"}).json()
    assert schema["components"]["securitySchemes"]["APIKeyHeader"]["name"] == "X-API-Key"


def test_key_comparison():
    assert key_matches("abc", "abc")
    assert not key_matches("abd", "abc") and not key_matches(None, "abc") and not key_matches("", "abc")
    assert not key_matches("ab\udcff", "abc")


def test_cors_is_off_by_default(client):
    response = client.options("/search", headers={"Origin": "https://evil.example",
                                                  "Access-Control-Request-Method": "POST"})
    assert "access-control-allow-origin" not in response.headers


def test_cors_allows_only_the_configured_origins(keyed_client):
    preflight = {"Access-Control-Request-Method": "POST"}
    good = keyed_client.options("/search", headers={"Origin": "https://app.example", **preflight})
    assert good.headers["access-control-allow-origin"] == "https://app.example"
    bad = keyed_client.options("/search", headers={"Origin": "https://evil.example", **preflight})
    assert "access-control-allow-origin" not in bad.headers


def test_request_id_in_and_out(client):
    assert client.get("/health", headers={"X-Request-ID": "abc-123"}).headers["X-Request-ID"] == "abc-123"
    generated = client.get("/health").headers["X-Request-ID"]
    assert len(generated) == 32
    replaced = client.get("/health", headers={"X-Request-ID": "bad id\twith spaces"}).headers["X-Request-ID"]
    assert replaced != "bad id\twith spaces" and len(replaced) == 32
    assert client.get("/nowhere", headers={"X-Request-ID": "r-404"}).headers["X-Request-ID"] == "r-404"


def test_access_log_line_carries_request_id_and_fields(client, caplog):
    caplog.set_level(logging.INFO, logger="eagle_rag.api")
    client.post("/search", json={"query": "aspirin"}, headers={"X-Request-ID": "log-me"})
    record = next(r for r in caplog.records if getattr(r, "route", None) == "/search")
    RequestIdFilter().filter(record)
    line = json.loads(JsonFormatter().format(record))
    assert line["status"] == 200 and line["method"] == "POST" and line["duration_ms"] >= 0
    assert line["request_id"] in ("log-me", "")  # the filter ran after the request ended


def test_json_formatter_uses_the_current_request_id():
    token = request_id_var.set("rid-42")
    try:
        record = logging.LogRecord("eagle_rag.x", logging.INFO, __file__, 1, "hello %s", ("you",), None)
        RequestIdFilter().filter(record)
        line = json.loads(JsonFormatter().format(record))
    finally:
        request_id_var.reset(token)
    assert line["message"] == "hello you" and line["request_id"] == "rid-42" and line["level"] == "INFO"


def test_public_docs_setting(tmp_path):
    settings = make_settings(tmp_path, api={"api_key": "s3cret-key", "public_docs": True})
    with Engine(settings) as engine, TestClient(create_app(engine), raise_server_exceptions=False) as c:
        assert c.get("/openapi.json").status_code == 200 and c.get("/docs").status_code == 200
        assert_error_shape(c.post("/search", json={"query": "x"}), 401, "unauthorized")

"""GET /health (degraded, not crashed, when a store is down), /health/plugins and /metrics."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine

from eagle_rag.api import create_app
from eagle_rag.api.health import run_probe
from eagle_rag.engine import Engine
from eagle_rag.hookspecs import hookimpl
from tests.api.helpers import HERE, make_settings

pytestmark = pytest.mark.integration


def test_health_reports_each_store(client):
    body = client.get("/health").json()
    assert body["status"] == "ok"
    assert set(body["stores"]) == {"registry", "vectors", "lexical"}
    assert all(store["state"] == "ok" for store in body["stores"].values())
    assert body["stores"]["registry"]["info"]["documents"] >= 20
    assert body["stores"]["vectors"]["info"]["eagle_text"] is True


def test_head_health_answers_200_without_a_body(client):
    """Monitors probe with HEAD: it answers as GET does (``HEAD /`` already did), not 405."""
    response = client.head("/health")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    assert response.content == b""
    assert "head" not in client.get("/openapi.json").json()["paths"]["/health"]


def test_head_health_is_public_when_an_api_key_is_set(tmp_path):
    with Engine(make_settings(tmp_path, api={"api_key": "s3cret-key"})) as engine, \
            TestClient(create_app(engine), raise_server_exceptions=False) as c:
        assert c.head("/health").status_code == 200


def test_health_is_degraded_when_stores_are_down_or_slow(tmp_path, monkeypatch):
    settings = make_settings(tmp_path, api={"health_timeout_s": 0.5})
    with Engine(settings) as engine:
        # the registry's database goes away (a PostgreSQL port nobody listens on); Milvus hangs
        dead = create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none", connect_args={"connect_timeout": 1})
        monkeypatch.setattr(engine.registry, "_engine", dead)
        monkeypatch.setattr(engine.vectors, "has_collection", lambda name: time.sleep(3))
        with TestClient(create_app(engine), raise_server_exceptions=False) as c:
            started = time.perf_counter()
            response = c.get("/health")
            elapsed = time.perf_counter() - started
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert body["stores"]["registry"]["state"] == "down"
    assert "OperationalError" in body["stores"]["registry"]["error"]
    assert body["stores"]["vectors"]["state"] == "timeout"
    assert body["stores"]["lexical"]["state"] == "ok"
    assert elapsed < 2.5


def test_run_probe_states():
    assert run_probe(lambda: {"a": 1}, 1.0)["state"] == "ok"
    assert run_probe(lambda: 1 / 0, 1.0)["error"].startswith("ZeroDivisionError")
    assert run_probe(lambda: time.sleep(1) or {}, 0.05)["state"] == "timeout"


def test_health_plugins_lists_plugins_hooks_decisions_and_counts(client):
    client.post("/search", json={"query": "aspirin"})
    body = client.get("/health/plugins").json()
    plugins = {p["name"]: p["hooks"] for p in body["plugins"]}
    assert "eagle_classify_query" in plugins["core_defaults"]
    assert body["default_namespace"] == "default"
    assert {"core_search", "core_get_document"} <= set(body["mcp_tools"])
    assert body["audit"]["counts"]["route_query"] >= 1
    assert any(d["category"] == "route_query" for d in body["recent_decisions"])


def test_metrics_is_prometheus_text(client):
    client.post("/search", json={"query": "aspirin"})
    client.get("/no-such-route")
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    assert 'eagle_rag_http_requests_total{method="POST",route="/search",status="200"}' in text
    assert 'route="<unmatched>",status="404"' in text
    assert "eagle_rag_http_request_duration_seconds_bucket" in text


class _BrokenTier2:
    """A plugin whose RERANK_MERGED has a bug."""

    @hookimpl
    def eagle_rerank_merged(self, ctx, query, nodes, top_k):
        raise KeyError("tier1.pool")


def test_a_failing_plugin_shows_in_the_answer_health_and_metrics(tmp_path, monkeypatch):
    monkeypatch.setenv("EAGLE_RAG_STRICT_HOOKS", "0")  # in service, not in the test suite's strict mode
    settings = make_settings(tmp_path)
    with Engine(settings, extra_plugins=[("broken", _BrokenTier2())]) as engine:
        engine.ingest([HERE / "data" / "tagged.jsonl"], kb_name="k")
        with TestClient(create_app(engine), raise_server_exceptions=False) as c:
            assert c.get("/health").json()["status"] == "ok"
            answer = c.post("/search", json={"query": "aspirin", "top_k": 3})
            health = c.get("/health").json()
            metrics = c.get("/metrics").text
    assert answer.status_code == 200
    assert answer.json()["warnings"] == ["stage rerank_merged skipped: broken raised KeyError: 'tier1.pool'"]
    assert health["status"] == "degraded"
    assert health["degraded_plugins"] == {"broken": {"failures": {"eagle_rerank_merged": 1},
                                                     "last": "eagle_rerank_merged: KeyError: 'tier1.pool'"}}
    assert 'eagle_rag_hook_failures_total{expected="false",hook="eagle_rerank_merged",plugin="broken"} 1.0' in metrics


def test_health_plugins_shows_uploaded_paths_as_hits_show_them(tmp_path):
    """A failed upload's audit decision named ``<data folder>/uploads/<kb>/<hash>/empty.md``: the answer
    (and the console's Health tab, which draws it) shows ``empty.md``, as docs/api.md promises."""
    with Engine(make_settings(tmp_path / "data")) as engine, TestClient(create_app(engine)) as c:
        c.post("/ingest", data={"kb_name": "up"}, files=[("files", ("empty.md", b"", "text/markdown"))])
        response = c.get("/health/plugins")
    assert response.status_code == 200
    assert str(tmp_path) not in response.text and str(tmp_path.resolve()) not in response.text
    assert "empty.md" in response.text

"""Audit sinks: Prometheus counters (a registry per engine), the Redis list (local Redis), and the
contract that a failing sink never fails a request."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.engine import Engine
from eagle_rag.kernel.audit import JsonlSink, PluginAudit, RingSink
from eagle_rag.kernel.audit_sinks import (
    PrometheusSink,
    RedisListSink,
    SinkUnavailable,
    build_audit,
    prometheus_registry,
)
from tests.api.helpers import TAGGED, make_settings

REDIS_URL = "redis://127.0.0.1:6379/0"
DEAD_REDIS_URL = "redis://127.0.0.1:1/0"


@pytest.fixture
def redis_key() -> Iterator[tuple[object, str]]:
    """A live Redis client and a fresh list key (deleted afterwards); skips when Redis is unreachable."""
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis at {REDIS_URL} is unreachable: {exc}")
    key = f"eagle_rag:test:{uuid.uuid4().hex}"
    yield client, key
    client.delete(key)
    client.close()


def _value(registry, category: str, plugin: str = "core") -> float | None:
    return registry.get_sample_value("eagle_rag_audit_decisions_total", {"category": category, "plugin": plugin})


@pytest.mark.unit
def test_prometheus_counts_by_category_in_its_own_registry():
    first, second = PrometheusSink(), PrometheusSink()  # two engines: no "duplicated timeseries" clash
    audit = PluginAudit([first])
    audit.log_decision("route_query")
    audit.log_decision("route_query")
    audit.log_decision("rerank", plugin="biomed")
    assert _value(first.registry, "route_query") == 2.0
    assert _value(first.registry, "rerank", "biomed") == 1.0
    assert _value(second.registry, "route_query") is None
    assert prometheus_registry(audit) is first.registry and prometheus_registry(PluginAudit()) is None


@pytest.mark.unit
def test_build_audit_wires_the_configured_sinks(tmp_path):
    settings = make_settings(tmp_path, audit={"ring_size": 3, "redis_url": REDIS_URL})
    audit = build_audit(settings)
    kinds = [type(s) for s in audit.sinks]
    assert kinds == [RingSink, JsonlSink, PrometheusSink, RedisListSink]
    assert audit.sinks[0] is audit.ring
    audit.sinks = audit.sinks[:3]  # leave Redis out: this test is about the wiring
    for i in range(5):
        audit.log_decision("x", summary=str(i))
    assert [d.summary for d in audit.ring.recent(10)] == ["2", "3", "4"]
    off = build_audit(make_settings(tmp_path, audit={"prometheus": False}))
    assert [type(s) for s in off.sinks] == [RingSink, JsonlSink]


@pytest.mark.integration
def test_redis_list_sink_pushes_json_newest_first_and_trims(redis_key):
    client, key = redis_key
    sink = RedisListSink(REDIS_URL, key=key, max_len=3)
    audit = PluginAudit([sink])
    for i in range(5):
        audit.log_decision("route_query", summary=f"d{i}", request_id=f"r{i}", plans=["eagle_text"])
    items = [json.loads(raw) for raw in client.lrange(key, 0, -1)]
    assert [item["summary"] for item in items] == ["d4", "d3", "d2"]
    assert items[0]["category"] == "route_query" and items[0]["data"] == {"plans": ["eagle_text"]}
    assert items[0]["request_id"] == "r4"
    assert audit.stats()["sink_errors"] == {}
    sink.close()


@pytest.mark.integration
def test_a_dead_redis_never_raises_and_is_skipped_for_a_while():
    sink = RedisListSink(DEAD_REDIS_URL, timeout_s=0.2, retry_after_s=60)
    audit = PluginAudit([sink])
    started = time.perf_counter()
    for _ in range(50):
        audit.log_decision("route_query")
    assert time.perf_counter() - started < 1.0  # one failed connect, then the sink is skipped
    assert audit.stats()["sink_errors"]["redis"] == 50
    assert audit.counts["route_query"] == 50 and len(audit.ring.recent(100)) == 50
    with pytest.raises(SinkUnavailable):
        sink.write(audit.ring.recent(1)[0])


@pytest.mark.integration
def test_a_failing_sink_never_fails_a_request(tmp_path):
    settings = make_settings(tmp_path, audit={"redis_url": DEAD_REDIS_URL, "redis_timeout_s": 0.2})
    with Engine(settings) as engine:
        engine.audit = engine.ctx.audit = build_audit(settings)
        engine.ingest([TAGGED], kb_name="tagged")
        with TestClient(create_app(engine)) as client:
            response = client.post("/search", json={"query": "bleeding", "kb_names": ["tagged"]})
            metrics = client.get("/metrics").text
    assert response.status_code == 200 and response.json()["hits"]
    assert engine.audit.stats()["sink_errors"]["redis"] >= 1
    assert 'eagle_rag_audit_sink_errors_total{sink="redis"}' in metrics
    assert 'eagle_rag_audit_decisions_total{category="route_query",' in metrics

"""Audit sinks beyond the file and the ring: Prometheus counters and a Redis list.

Both are best-effort by contract (:class:`eagle_rag.kernel.audit.PluginAudit` catches what a sink raises):

- :class:`PrometheusSink` counts decisions in its own ``CollectorRegistry`` (one per engine, never
  the process-global registry, so two engines or two tests never clash);
- :class:`RedisListSink` pushes each decision as JSON with ``LPUSH`` and trims the list with
  ``LTRIM`` in one pipeline, with short socket timeouts; after a failure it stays off for
  ``retry_after_s`` seconds (each skipped write raises :class:`SinkUnavailable`, which the audit
  counts), so a Redis that is down costs one timeout per window, not one per decision.

:func:`build_audit` wires the sinks the settings ask for.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, Counter

from eagle_rag.kernel.audit import AuditSink, Decision, JsonlSink, PluginAudit, RingSink
from eagle_rag.settings import Settings


class SinkUnavailable(RuntimeError):
    """The sink is switched off for a while after a failure; the decision was not written."""


class PrometheusSink:
    """Counts decisions by category and plugin: ``eagle_rag_audit_decisions_total``."""

    name = "prometheus"

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry(auto_describe=True)
        self.decisions = Counter("eagle_rag_audit_decisions",
                                 "Audit decisions logged, by category and plugin",
                                 ["category", "plugin"], registry=self.registry)

    def write(self, decision: Decision) -> None:
        self.decisions.labels(category=decision.category[:64], plugin=decision.plugin[:64]).inc()


class RedisListSink:
    """Pushes decisions to a Redis list (newest first), trimmed to ``max_len`` entries.

    The client connects lazily; ``timeout_s`` bounds both the connect and each command.
    """

    name = "redis"

    def __init__(self, url: str, key: str = "eagle_rag:audit", max_len: int = 10_000,
                 timeout_s: float = 0.25, retry_after_s: float = 30.0) -> None:
        self.url = url
        self.key = key
        self.max_len = max_len
        self.timeout_s = timeout_s
        self.retry_after_s = retry_after_s
        self._client: Any = None
        self._down_until = 0.0
        self._lock = threading.Lock()

    def _redis(self) -> Any:
        if self._client is None:
            import redis

            self._client = redis.Redis.from_url(self.url, socket_timeout=self.timeout_s,
                                                socket_connect_timeout=self.timeout_s, retry_on_timeout=False)
        return self._client

    def write(self, decision: Decision) -> None:
        now = time.monotonic()
        if now < self._down_until:
            raise SinkUnavailable(f"redis sink is off until the retry window ends ({self.url})")
        payload = json.dumps(asdict(decision), ensure_ascii=False, default=str)
        try:
            with self._lock:
                pipe = self._redis().pipeline(transaction=False)
                pipe.lpush(self.key, payload)
                pipe.ltrim(self.key, 0, self.max_len - 1)
                pipe.execute()
        except Exception:
            self._down_until = time.monotonic() + self.retry_after_s
            raise

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def prometheus_registry(audit: PluginAudit) -> CollectorRegistry | None:
    """The CollectorRegistry of the audit's Prometheus sink, or None when it has none."""
    for sink in audit.sinks:
        if isinstance(sink, PrometheusSink):
            return sink.registry
    return None


def build_audit(settings: Settings) -> PluginAudit:
    """The audit of one engine: ring (``audit.ring_size``), JSONL file, Prometheus, Redis (when set)."""
    cfg = settings.audit
    sinks: list[AuditSink] = [JsonlSink(Path(cfg.jsonl_path or settings.data_path / "audit.jsonl"))]
    if cfg.prometheus:
        sinks.append(PrometheusSink())
    if cfg.redis_url:
        sinks.append(RedisListSink(cfg.redis_url, cfg.redis_key, cfg.redis_max_len, cfg.redis_timeout_s,
                                   cfg.redis_retry_after_s))
    audit = PluginAudit(sinks)
    ring = RingSink(cfg.ring_size)
    audit.sinks[audit.sinks.index(audit.ring)] = ring
    audit.ring = ring
    return audit

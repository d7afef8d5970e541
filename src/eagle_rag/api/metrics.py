"""Prometheus metrics of one app: HTTP requests, plus the engine's audit counters.

Every app has its own ``CollectorRegistry`` (never the process-global one). ``GET /metrics``
renders it followed by the audit sink's registry (:func:`eagle_rag.kernel.audit_sinks.prometheus_registry`).
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

from eagle_rag.kernel.audit import PluginAudit
from eagle_rag.kernel.audit_sinks import prometheus_registry

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class _AuditStatsCollector(Collector):
    """Sink failures of the audit (``eagle_rag_audit_sink_errors_total``), read at scrape time."""

    def __init__(self, audit: PluginAudit) -> None:
        self.audit = audit

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily("eagle_rag_audit_sink_errors", "Audit sink write failures, by sink",
                                     labels=["sink"])
        for sink, count in sorted(self.audit.stats()["sink_errors"].items()):
            family.add_metric([sink], count)
        yield family
        hooks = CounterMetricFamily("eagle_rag_hook_failures", "Plugin hook implementations that raised, by "
                                    "plugin, hook and whether the plugin declared the failure as expected",
                                    labels=["plugin", "hook", "expected"])
        for (plugin, hook, expected), count in sorted(self.audit.hook_failures.items()):
            hooks.add_metric([plugin, hook, str(expected).lower()], count)
        yield hooks


class HttpMetrics:
    """Request count and latency by method, route template and status."""

    def __init__(self, audit: PluginAudit | None = None) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter("eagle_rag_http_requests", "HTTP requests served",
                                ["method", "route", "status"], registry=self.registry)
        self.latency = Histogram("eagle_rag_http_request_duration_seconds", "HTTP request latency",
                                 ["method", "route"], registry=self.registry,
                                 buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
        self.audit = audit
        if audit is not None:
            self.registry.register(_AuditStatsCollector(audit))

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        self.requests.labels(method=method, route=route, status=str(status)).inc()
        self.latency.labels(method=method, route=route).observe(seconds)

    def render(self) -> bytes:
        """The Prometheus text exposition of the app's and the audit's registries."""
        out = generate_latest(self.registry)
        audit_registry = prometheus_registry(self.audit) if self.audit is not None else None
        if audit_registry is not None:
            out += generate_latest(audit_registry)
        return out

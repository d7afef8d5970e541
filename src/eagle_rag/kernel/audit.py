"""Audit of pipeline decisions: ``PluginAudit.log_decision`` fans out to best-effort sinks.

A failing sink never fails a request: its error is counted and logged once per sink.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Decision:
    category: str
    plugin: str
    summary: str
    data: Mapping[str, Any] = field(default_factory=dict)
    request_id: str = ""
    ts: float = field(default_factory=time.time)


class AuditSink(Protocol):
    name: str

    def write(self, decision: Decision) -> None: ...


class RingSink:
    """Keeps the most recent decisions in memory (for ``/health/plugins``)."""

    name = "ring"

    def __init__(self, size: int = 500) -> None:
        self._items: deque[Decision] = deque(maxlen=size)
        self._lock = threading.Lock()

    def write(self, decision: Decision) -> None:
        with self._lock:
            self._items.append(decision)

    def recent(self, limit: int = 50) -> list[Decision]:
        with self._lock:
            return list(self._items)[-limit:]


class JsonlSink:
    """Appends one JSON object per decision to a file."""

    name = "jsonl"

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def write(self, decision: Decision) -> None:
        line = json.dumps(asdict(decision), ensure_ascii=False, default=str)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(line + "\n")


class PluginAudit:
    """Records decisions; counts them by category; never raises from a sink."""

    def __init__(self, sinks: list[AuditSink] | None = None) -> None:
        self.ring = RingSink()
        self.sinks: list[AuditSink] = [self.ring, *(sinks or [])]
        self.counts: Counter[str] = Counter()
        self.sink_errors: Counter[str] = Counter()
        self.hook_failures: Counter[tuple[str, str, bool]] = Counter()
        self.last_hook_failure: dict[str, str] = {}
        self._lock = threading.Lock()

    def record_hook_failure(self, plugin: str, hook: str, error: str, expected: bool = False) -> None:
        """Count a failed hook implementation (per plugin, hook and whether the plugin declared it as
        expected) for ``/health`` and ``/metrics``."""
        with self._lock:
            self.hook_failures[(plugin, hook, expected)] += 1
            if not expected:
                self.last_hook_failure[plugin] = f"{hook}: {error}"

    def degraded_plugins(self) -> dict[str, dict[str, Any]]:
        """Plugin -> its unexpected failures by hook and the last one, for plugins that had any."""
        with self._lock:
            out: dict[str, dict[str, Any]] = {}
            for (plugin, hook, expected), count in sorted(self.hook_failures.items()):
                if expected:
                    continue
                entry = out.setdefault(plugin, {"failures": {}, "last": self.last_hook_failure.get(plugin, "")})
                entry["failures"][hook] = count
            return out

    def log_decision(self, category: str, plugin: str = "core", summary: str = "",
                     request_id: str = "", **data: Any) -> Decision:
        decision = Decision(category=category, plugin=plugin, summary=summary, data=data,
                            request_id=request_id)
        with self._lock:
            self.counts[category] += 1
        for sink in self.sinks:
            try:
                sink.write(decision)
            except Exception as exc:  # noqa: BLE001 - sinks are best-effort by contract
                with self._lock:
                    self.sink_errors[sink.name] += 1
                    first = self.sink_errors[sink.name] == 1
                if first:
                    log.warning("audit sink %s failed: %s", sink.name, exc)
        return decision

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {"counts": dict(self.counts), "sink_errors": dict(self.sink_errors)}

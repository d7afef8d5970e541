"""Store probes for ``GET /health``: each store answers within a timeout or is reported, never fatal.

A probe runs in a daemon thread; one that does not answer in time is reported as ``timeout`` and
left to finish on its own, so a hung store cannot hang the health check.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eagle_rag.engine import Engine


def run_probe(probe: Callable[[], dict[str, Any]], timeout_s: float) -> dict[str, Any]:
    """``{"state": ok|down|timeout, "latency_ms", "error", "info"}`` for one probe."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["info"] = probe()
        except Exception as exc:  # noqa: BLE001 - a failing store is reported, not raised
            box["error"] = f"{type(exc).__name__}: {str(exc)[:200]}"

    started = time.perf_counter()
    thread = threading.Thread(target=target, name="eagle-health-probe", daemon=True)
    thread.start()
    thread.join(timeout_s)
    latency = round((time.perf_counter() - started) * 1000, 2)
    if thread.is_alive():
        return {"state": "timeout", "latency_ms": latency, "error": f"no answer within {timeout_s}s",
                "info": {}}
    if "error" in box:
        return {"state": "down", "latency_ms": latency, "error": box["error"], "info": {}}
    return {"state": "ok", "latency_ms": latency, "error": None, "info": box.get("info", {})}


def _collections(engine: Engine) -> list[str]:
    return [profile.name for profile in engine.encoders.collections()]


def probes(engine: Engine) -> dict[str, Callable[[], dict[str, Any]]]:
    """The probe of each store: registry, vector collections, lexical indexes."""

    def registry() -> dict[str, Any]:
        return {"documents": engine.registry.count()}

    def vectors() -> dict[str, Any]:
        return {name: engine.vectors.has_collection(name) for name in _collections(engine)}

    def lexical() -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in _collections(engine):
            out[name] = engine.lexical_for(name).count() if engine.has_lexical_index(name) else "absent"
        return out

    return {"registry": registry, "vectors": vectors, "lexical": lexical}


def check_stores(engine: Engine, timeout_s: float) -> dict[str, dict[str, Any]]:
    """Run every probe concurrently, each bounded by ``timeout_s``."""
    results: dict[str, dict[str, Any]] = {}
    threads = []
    for name, probe in probes(engine).items():
        def run(name: str = name, probe: Callable[[], dict[str, Any]] = probe) -> None:
            results[name] = run_probe(probe, timeout_s)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join(timeout_s + 1.0)
    return {name: results.get(name, {"state": "timeout", "latency_ms": None, "error": "no answer",
                                     "info": {}}) for name in probes(engine)}

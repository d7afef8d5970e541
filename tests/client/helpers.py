"""A real ``eagle-rag serve`` for the client and CLI tests: populated folder, random port, clean stop.

The folder is filled by a subprocess (an in-process Milvus Lite keeps its file locked until the
process ends); tests that need an in-process engine open a copy of it. The settings are the same for
every process: the deterministic (hash) encoder and the general profile's plugins.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.api.helpers import TAGGED
from tests.profiles import GENERAL
from tests.servers import free_port, health_ok, wait_ready

HERE = Path(__file__).parent
DATED = HERE / "data" / "dated.jsonl"
POPULATE = """
import sys
from eagle_rag.ops.demo import sample_dir
from eagle_rag.engine import Engine
from eagle_rag.settings import load_settings
with Engine(load_settings()) as engine:
    assert not engine.ingest([sample_dir() / "labels"], kb_name="demo").failures
    assert not engine.ingest([sys.argv[1]], kb_name="tagged").failures
    assert not engine.ingest([sys.argv[2]], kb_name="dated").failures
"""


def cli_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of every process of a test: the data dir and the hash encoder, nothing else."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
    env.update({**GENERAL, "EAGLE_RAG_DATA_DIR": str(data_dir), "EAGLE_RAG_ENCODERS__MODE": "deterministic",
                "PYTHONUNBUFFERED": "1", "COLUMNS": "200", **extra})
    return env


def populate(data_dir: Path) -> Path:
    """Ingest kbs ``demo`` (the bundled labels), ``tagged`` and ``dated`` into ``data_dir`` (a subprocess)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-c", POPULATE, str(TAGGED), str(DATED)], env=cli_env(data_dir), check=True,
                   cwd=data_dir, timeout=180)
    return data_dir


def run_cli(data_dir: Path, *args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    """``eagle-rag ARGS`` in a subprocess on ``data_dir``."""
    return subprocess.run([sys.executable, "-m", "eagle_rag.cli.app", *args], env=cli_env(data_dir, **env),
                          cwd=data_dir, capture_output=True, text=True, timeout=timeout)


@dataclass
class Served:
    """A running ``eagle-rag serve``."""

    url: str
    data_dir: Path
    process: subprocess.Popen[bytes]
    log: Path

    def request_count(self, route: str | None, method: str = "POST") -> float:
        """How many requests the server answered on ``route`` with ``method`` (every request but
        ``/metrics`` when ``route`` is None), from its Prometheus counter."""
        total = 0.0
        for line in httpx.get(f"{self.url}/metrics", timeout=10).text.splitlines():
            if not line.startswith("eagle_rag_http_requests_total{") or 'route="/metrics"' in line:
                continue
            if route is None or (f'route="{route}"' in line and f'method="{method}"' in line):
                total += float(line.rsplit(" ", 1)[1])
        return total


def start_server(data_dir: Path, timeout: float = 90) -> Served:
    """Start ``eagle-rag serve`` on a random port and wait until ``/health`` answers."""
    port = free_port()
    log = data_dir.parent / f"serve-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "eagle_rag.cli.app", "serve", "--port", str(port)],
                                   env=cli_env(data_dir), cwd=data_dir, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    wait_ready(process, lambda: health_ok(url), log, timeout)
    return Served(url, data_dir, process, log)


def stop(served: Served, sig: int = signal.SIGTERM) -> int:
    """Send ``sig`` and wait for the process (reaped, so its PID is gone); returns its exit code."""
    if served.process.poll() is None:
        served.process.send_signal(sig)
    return served.process.wait(timeout=60)


@contextmanager
def serving(data_dir: Path) -> Iterator[Served]:
    served = start_server(data_dir)
    try:
        yield served
    finally:
        stop(served)


def server_json(data_dir: Path) -> dict[str, object] | None:
    path = data_dir / "server.json"
    return json.loads(path.read_text()) if path.exists() else None

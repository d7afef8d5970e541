"""A real ``eagle-rag serve`` (or ``eagle-rag mcp --transport http``) for the security tests.

Each test module starts one server on 127.0.0.1 and a free port, over its own temporary data folder,
with the deterministic (hash) encoder unless told otherwise and no entry-point plugins, and stops
it when the module ends. Settings come in as ``EAGLE_RAG_*`` environment variables.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.conftest import stop_process
from tests.profiles import GENERAL
from tests.servers import free_port, health_ok, port_open, wait_ready

START_TIMEOUT_S = 180
BASE_ENV = {"EAGLE_RAG_ENCODERS__MODE": "deterministic", "EAGLE_RAG_PLUGINS__ENABLED": "[]",
            "EAGLE_RAG_LOG_LEVEL": "WARNING", "OMP_NUM_THREADS": "1"}


@dataclass(frozen=True)
class Server:
    url: str
    port: int
    data_dir: Path
    log: Path

    def client(self, **headers: str) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)


def cli(*args: str) -> list[str]:
    return [sys.executable, "-c", "from eagle_rag.cli.app import main; main()", *args]


def server_env(data_dir: Path, settings: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
    env.update({**GENERAL, **BASE_ENV})
    env["EAGLE_RAG_DATA_DIR"] = str(data_dir)
    env.update(settings or {})
    return env


@contextmanager
def running(args: list[str], data_dir: Path, settings: Mapping[str, str] | None, port: int,
            ready: Callable[[], bool]) -> Iterator[subprocess.Popen[bytes]]:
    data_dir.mkdir(parents=True, exist_ok=True)
    log = data_dir.parent / f"{data_dir.name}-{port}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(args, env=server_env(data_dir, settings), cwd=data_dir, stdout=out,
                                stderr=subprocess.STDOUT)
        try:
            wait_ready(proc, ready, log, START_TIMEOUT_S)
            yield proc
        finally:
            stop_process(proc)


@contextmanager
def serve(data_dir: Path, settings: Mapping[str, str] | None = None) -> Iterator[Server]:
    """``eagle-rag serve --host 127.0.0.1 --port <free>`` over ``data_dir`` until the block ends."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with running(cli("serve", "--host", "127.0.0.1", "--port", str(port)), data_dir, settings, port,
                 lambda: health_ok(url)):
        yield Server(url, port, data_dir, data_dir.parent / f"{data_dir.name}-{port}.log")


@contextmanager
def serve_mcp(data_dir: Path, settings: Mapping[str, str] | None = None) -> Iterator[Server]:
    """``eagle-rag mcp --transport http --local`` on 127.0.0.1 and a free port."""
    port = free_port()
    with running(cli("mcp", "--transport", "http", "--local", "--host", "127.0.0.1", "--port", str(port)),
                 data_dir, settings, port, lambda: port_open(port)):
        yield Server(f"http://127.0.0.1:{port}", port, data_dir, data_dir.parent / f"{data_dir.name}-{port}.log")


def upload(client: httpx.Client, kb: str, name: str, text: str | bytes, **headers: str) -> httpx.Response:
    body = text.encode() if isinstance(text, str) else text
    return client.post("/ingest", data={"kb_name": kb}, files={"files": (name, body, "text/markdown")},
                       headers=headers)


def error_of(response: httpx.Response, status: int, code: str) -> dict[str, object]:
    """The inner error object, after checking the status, the one shape and the code."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}, body
    assert body["error"]["code"] == code, body
    return dict(body["error"])

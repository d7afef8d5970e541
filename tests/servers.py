"""What every test that starts a real server process shares: a free port, readiness checks, the wait.

The starters themselves differ in what they run and with which settings (tests/client/helpers.py,
tests/security/server.py, tests/console/conftest.py, tests/integrations/biomed_demo.py,
tests/mcp/test_stdio.py); they all wait through :func:`wait_ready` and stop through
:func:`tests.conftest.stop_process`.
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def health_ok(url: str) -> bool:
    """True when ``GET {url}/health`` answers 200."""
    try:
        return httpx.get(f"{url}/health", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


def port_open(port: int) -> bool:
    """True when something accepts connections on 127.0.0.1:``port``."""
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def wait_ready(proc: subprocess.Popen[Any], ready: Callable[[], bool], log: Path | None, timeout: float) -> None:
    """Return once ``ready()`` is true. Raises AssertionError with the log's tail when the process
    exits first or ``timeout`` seconds pass (the process is killed then)."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited with {proc.returncode}: {_tail(proc, log)}")
        if ready():
            return
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"the server did not answer within {timeout} s: {_tail(proc, log)}")
        time.sleep(0.2)


def _tail(proc: subprocess.Popen[Any], log: Path | None) -> str:
    if log is not None and log.exists():
        return log.read_text(errors="replace")[-3000:]
    stream = proc.stderr
    return str(stream.read())[-3000:] if stream is not None and proc.poll() is not None else ""

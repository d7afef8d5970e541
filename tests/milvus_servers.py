"""Session fixtures that start real store servers for the tests of the at-scale configuration.

- ``milvus235_uri``: Milvus 2.3.5 standalone (the C++ server with embedded etcd from the PyPI wheel
  ``milvus==2.3.5``, run as ``milvus-server``), installed in its own virtual environment
  ``.venv-milvus`` (created here when missing) because its ``milvus`` package must not share one
  with milvus-lite; about 40 s to start.
- ``milvus_lite_server_uri``: milvus-lite's own gRPC server (``python -m milvus_lite server``), the
  Milvus 2.5+ API with the BM25 function, over TCP.
- ``milvus_cluster_uri``: a Milvus 2.5+/2.6 server or cluster of your own, named by
  ``EAGLE_RAG_TEST_MILVUS_URI`` (skipped when unset).
- ``postgres_admin_url``: the PostgreSQL server of this machine (``EAGLE_RAG_TEST_POSTGRES_URL``).

A server that cannot start skips its tests with the reason, except under ``CI=true``, where that
fails them: CI must never pass by skipping what it was meant to run.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import free_port, port_open, wait_ready

ROOT = Path(__file__).resolve().parents[1]
MILVUS_VENV = Path(os.environ.get("EAGLE_RAG_TEST_MILVUS_VENV", ROOT / ".venv-milvus"))
MILVUS_SERVER_VERSION = "2.3.5"
POSTGRES_URL = os.environ.get("EAGLE_RAG_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
START_TIMEOUT_S = 300.0


def unavailable(reason: str) -> None:
    """Skip with ``reason``; under CI=true fail instead (a server CI should start did not)."""
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"CI: {reason}", pytrace=False)
    pytest.skip(reason)


def _milvus_server_binary() -> Path | None:
    """``.venv-milvus/bin/milvus-server``, installed (``pip install milvus==2.3.5``) when missing."""
    binary = MILVUS_VENV / "bin" / "milvus-server"
    if binary.exists():
        return binary
    python = shutil.which("python3.11") or sys.executable
    try:
        subprocess.run([python, "-m", "venv", str(MILVUS_VENV)], check=True, capture_output=True, timeout=120)
        subprocess.run([str(MILVUS_VENV / "bin" / "pip"), "install", "-q", f"milvus=={MILVUS_SERVER_VERSION}"],
                       check=True, capture_output=True, timeout=600)
    except (subprocess.SubprocessError, OSError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        unavailable(f"could not install milvus=={MILVUS_SERVER_VERSION} into {MILVUS_VENV}: {exc} "
                    f"{detail.decode(errors='replace')[-500:]}")
    return binary if binary.exists() else None


def _answers(uri: str) -> bool:
    from pymilvus import MilvusClient

    try:
        client = MilvusClient(uri=uri, timeout=3, dedicated=True)
        client.get_server_version()
        client.close()
        return True
    except Exception:  # noqa: BLE001 - not ready yet
        return False


class MilvusProcess:
    """A Milvus server process the tests started; :meth:`stop` and :meth:`start` restart it on the same
    port and data folder (the outage test)."""

    def __init__(self, args: list[str], port: int, log: Path) -> None:
        self.args, self.port, self.log = args, port, log
        self.uri = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = START_TIMEOUT_S) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(self.args, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            wait_ready(self.proc, lambda: port_open(self.port) and _answers(self.uri), self.log, timeout)
        except AssertionError:
            self.stop()
            raise

    def stop(self) -> None:
        """SIGTERM the server's process group (milvus-server runs the ``milvus`` binary as a child), then
        SIGKILL what is left after 30 s."""
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            except ProcessLookupError:
                pass
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)  # children that outlived the wrapper
        self.proc = None


def _start(process: MilvusProcess, what: str) -> MilvusProcess:
    try:
        process.start()
    except AssertionError as exc:
        unavailable(f"{what} did not start: {str(exc)[-1500:]}")
    return process


@pytest.fixture(scope="session")
def milvus235(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MilvusProcess]:
    binary = _milvus_server_binary()
    if binary is None:
        unavailable(f"milvus-server is missing from {MILVUS_VENV}")
    assert binary is not None
    data = tmp_path_factory.mktemp("milvus235")
    port = free_port()
    args = [str(binary), "--data", str(data / "server"), "--proxy-port", str(port), "--etcd-port", str(free_port())]
    process = _start(MilvusProcess(args, port,
                                   data / "server.log"), f"Milvus {MILVUS_SERVER_VERSION} standalone")
    yield process
    process.stop()


@pytest.fixture(scope="session")
def milvus235_uri(milvus235: MilvusProcess) -> str:
    return milvus235.uri


def milvus_lite_server(data: Path) -> MilvusProcess:
    """milvus-lite's gRPC server over ``data`` on a free port (not started)."""
    port = free_port()
    return MilvusProcess([sys.executable, "-m", "milvus_lite", "server", "--data-dir", str(data / "server"),
                          "--host", "127.0.0.1", "--port", str(port)], port, data / "server.log")


@pytest.fixture(scope="session")
def milvus_lite_server_uri(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    process = _start(milvus_lite_server(tmp_path_factory.mktemp("milvus-lite-server")), "the milvus-lite server")
    yield process.uri
    process.stop()


@pytest.fixture(scope="session")
def milvus_cluster_uri() -> str:
    uri = os.environ.get("EAGLE_RAG_TEST_MILVUS_URI", "")
    if not uri:
        pytest.skip("EAGLE_RAG_TEST_MILVUS_URI is not set (a Milvus 2.5+/2.6 server of your own, http://host:19530)")
    return uri


def postgres_reachable() -> None:
    """Skip (fail under CI) unless the test PostgreSQL server answers."""
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(POSTGRES_URL)
    try:
        psycopg.connect(host=url.host, port=url.port or 5432, user=url.username, password=url.password,
                        dbname=url.database, connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        unavailable(f"PostgreSQL at {url.host}:{url.port} is unreachable: {exc}")


@contextlib.contextmanager
def fresh_postgres_database(name: str) -> Iterator[str]:
    """A PostgreSQL database ``name``, created empty (dropped first if a killed run left it) and dropped on
    exit: its ``postgresql+psycopg://.../<name>`` URL."""
    import psycopg
    from sqlalchemy.engine import make_url

    postgres_reachable()
    url = make_url(POSTGRES_URL)
    params = {"host": url.host, "port": url.port or 5432, "user": url.username, "password": url.password,
              "dbname": url.database, "autocommit": True}
    with psycopg.connect(**params) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(**params) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def postgres_database() -> Iterator[str]:
    """A fresh PostgreSQL database for one test (dropped after it): ``postgresql+psycopg://.../<name>``."""
    with fresh_postgres_database(f"eagle_{uuid.uuid4().hex[:10]}") as url:
        yield url


def wait_until(predicate: object, timeout: float, step: float = 0.25) -> bool:
    """True once ``predicate()`` is true, False after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(predicate) and predicate():
            return True
        time.sleep(step)
    return False

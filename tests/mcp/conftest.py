"""Fixtures of the MCP tests: a populated data dir (engine closed) for server subprocesses, and the
environment those subprocesses get."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.api.helpers import TAGGED
from tests.profiles import GENERAL

POPULATE = """
import sys
from eagle_rag.ops.demo import sample_dir
from eagle_rag.engine import Engine
from eagle_rag.settings import load_settings
with Engine(load_settings()) as engine:
    assert not engine.ingest([sample_dir() / "labels"], kb_name="demo").failures
    assert not engine.ingest([sys.argv[1]], kb_name="tagged").failures
"""


def subprocess_env(data_dir: Path) -> dict[str, str]:
    """The environment of an eagle-rag subprocess: the data dir, the hash encoder, no entry-point plugins."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
    env.update({**GENERAL, "EAGLE_RAG_DATA_DIR": str(data_dir), "EAGLE_RAG_ENCODERS__MODE": "deterministic",
                "EAGLE_RAG_PLUGINS__ENABLED": "[]", "PYTHONUNBUFFERED": "1"})
    return env


@pytest.fixture(scope="session")
def mcp_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir holding kb ``demo`` (the bundled labels) and kb ``tagged``.

    Filled by a subprocess: an in-process Milvus Lite keeps its file open until the process ends,
    which would lock the server subprocesses out. In-process tests use :func:`private_copy`.
    """
    data = tmp_path_factory.mktemp("mcp-data")
    subprocess.run([sys.executable, "-c", POPULATE, str(TAGGED)], env=subprocess_env(data), check=True,
                   cwd=data, timeout=120)
    return data


@pytest.fixture(scope="session")
def server_env(mcp_data_dir: Path) -> dict[str, str]:
    return subprocess_env(mcp_data_dir)


def private_copy(data_dir: Path, target: Path) -> Path:
    """A copy of a populated data dir for an in-process engine."""
    shutil.copytree(data_dir, target)
    return target


@asynccontextmanager
async def stdio_session(env: dict[str, str], args: list[str], cwd: Path) -> Any:
    """An initialised MCP client session with ``python ARGS`` spawned over stdio."""
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(cwd))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def server_cwd(tmp_path: Path) -> Iterator[Path]:
    """An empty working directory (so no stray eagle-rag.yaml is picked up)."""
    yield tmp_path

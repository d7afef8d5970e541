"""One data folder with the demo corpus's labels and compounds ingested under ``EAGLE_RAG_PROFILE=biomed``
(real bundled encoders), shared by every test of a session that asks for it (``tests/mcp``,
``tests/integrations``), and a real ``eagle-rag serve`` on it.

The folder is filled by a subprocess (an in-process Milvus Lite keeps its file locked until the
process ends); tests that need an in-process engine open a copy (:func:`private_copy`). The
sentence channel is off in every process of these tests: it triples the embedding work of the
ingest and plays no part in what they check.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from eagle_rag.settings import Settings, load_settings
from tests.client.helpers import Served, stop
from tests.servers import free_port, health_ok, wait_ready

POPULATE = """
from eagle_rag.ops.demo import sample_dir
from eagle_rag.engine import Engine
from eagle_rag.settings import load_settings
with Engine(load_settings()) as engine:
    report = engine.ingest([sample_dir() / "labels", sample_dir() / "compounds"], kb_name="demo")
    assert not report.failures, report.failures
"""
_FOLDER: dict[str, Path] = {}


def biomed_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of every process of these tests: the biomed profile on ``data_dir``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
    env.update({"EAGLE_RAG_PROFILE": "biomed", "EAGLE_RAG_DATA_DIR": str(data_dir),
                "EAGLE_RAG_INGEST__SENTENCE_COLLECTIONS": "[]", "PYTHONUNBUFFERED": "1", **extra})
    return env


def biomed_demo_folder(factory: pytest.TempPathFactory) -> Path:
    """The session's populated folder, ingested on first call (one ingest per test session)."""
    if "data" not in _FOLDER:
        data = factory.mktemp("biomed-demo") / "data"
        data.mkdir()
        subprocess.run([sys.executable, "-c", POPULATE], env=biomed_env(data), check=True, cwd=data, timeout=600)
        _FOLDER["data"] = data
    return _FOLDER["data"]


def private_copy(data_dir: Path, target: Path) -> Path:
    """A copy of the populated folder for an engine in the test process."""
    shutil.copytree(data_dir, target, ignore=shutil.ignore_patterns("server.json"))
    return target


def in_process_settings(data_dir: Path) -> Settings:
    """The settings of an in-process engine on a copy of the folder (the same as the subprocesses')."""
    return load_settings(environ={"EAGLE_RAG_INGEST__SENTENCE_COLLECTIONS": "[]"},
                         overrides={"profile": "biomed", "data_dir": str(data_dir)})


@contextmanager
def serving(data_dir: Path, timeout: float = 180) -> Iterator[Served]:
    """``eagle-rag serve`` under the biomed profile on ``data_dir`` (owning it) until the block ends."""
    port = free_port()
    log = data_dir.parent / f"serve-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "eagle_rag.cli.app", "serve", "--port", str(port)],
                                   env=biomed_env(data_dir), cwd=data_dir, stdout=out, stderr=subprocess.STDOUT)
    served = Served(f"http://127.0.0.1:{port}", data_dir, process, log)
    try:
        wait_ready(process, lambda: (data_dir / "server.json").exists() and health_ok(served.url), log, timeout)
        yield served
    finally:
        stop(served)

"""Shared fixtures: settings in a temporary data dir, an engine on real stores."""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from eagle_rag.settings import Settings, load_settings
from eagle_rag.types import Chunk, NodeWithScore
from tests.profiles import GENERAL

DATA = Path(__file__).parent / "data"
# A plugin failure that the plugin did not declare as expected fails the test (docs/architecture.md).
os.environ.setdefault("EAGLE_RAG_STRICT_HOOKS", "1")
# The tests of the core run the general profile; a plain install runs biomed (tests/profiles.py).
os.environ.setdefault("EAGLE_RAG_PROFILE", "general")
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture
def tmp_settings(tmp_path: Path) -> Settings:
    return load_settings(environ=GENERAL, overrides={"data_dir": str(tmp_path / "data")})


def node(node_id: str, score: float = 0.0, doc: str = "", path: str = "", source: str = "",
         text: str = "") -> NodeWithScore:
    """A NodeWithScore for fusion tests."""
    return NodeWithScore(node=Chunk(id=node_id, text=text or node_id, document_id=doc or f"doc-{node_id}",
                                    path=path, source_chunk_id=source), score=score)


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    """Stop a server the test started: SIGTERM, then SIGKILL after 30 s."""
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def local_ray() -> Iterator[None]:
    """One local Ray for the session, shared by the Ray ingest tests: 2 CPUs, as on the CI machines."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    yield
    ray.shutdown()


SHARED_SERVER_FILES = {
    "tests/ingest/test_ray_ingest.py": "ray",
    "tests/servers_at_scale/test_ray_writers.py": "ray",
    "tests/servers_at_scale/test_capabilities.py": "milvus235",
    "tests/servers_at_scale/test_store_suites.py": "milvus235",
}
"""Files whose session servers must not start twice when ``make test`` runs the suite on two workers
(pytest-xdist): one local Ray (2 CPUs) and one Milvus 2.3.5 standalone per run."""


@pytest.hookimpl(optionalhook=True)  # an xdist hook: pytest without xdist must not call it unknown
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """Schedule by file, as ``--dist loadfile`` does (a file's module fixtures are built once, on one worker),
    except that the files of SHARED_SERVER_FILES that name one server run on one worker. (xdist's own
    ``loadgroup`` with ``xdist_group`` marks did not keep a group on one worker with pytest 9.2 / xdist 3.8.)"""
    from xdist.scheduler import LoadFileScheduling

    class SharedServerScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return SHARED_SERVER_FILES.get(path, path)

    return SharedServerScheduling(config, log)

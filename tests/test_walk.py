"""One biomed hybrid query, traced from the HTTP route and from the CLI to the stores (``tests/walk.py``),
and docs/architecture.md's walk kept in step with it.

Measured on the layout before the service package (``394ddbd``), the same way: HTTP 14 files and
9 returns, CLI 16 files and 12 returns. The bounds below are today's walk; a change that adds a file
or a return to the path fails here and says which.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from eagle_rag.api import create_app
from eagle_rag.cli.app import app
from eagle_rag.engine import Engine
from eagle_rag.ops.demo import sample_dir
from tests.biomed.helpers import biomed_settings
from tests.walk import STORES, Walk, trace

ROOT = Path(__file__).resolve().parents[1]
QUERY = "aspirin bleeding risk"
HTTP_BOUND = (13, 7)
CLI_BOUND = (15, 8)


@pytest.fixture(scope="module")
def walks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Walk]]:
    data = tmp_path_factory.mktemp("walk") / "data"
    with Engine(biomed_settings(data)) as engine:
        labels = [sample_dir() / "labels" / f"label_{drug}.md" for drug in ("aspirin", "atorvastatin", "amiodarone")]
        assert not engine.ingest(labels, kb_name="demo").failures
    env = {"EAGLE_RAG_PROFILE": "biomed", "EAGLE_RAG_DATA_DIR": str(data), "EAGLE_RAG_ENCODERS__MODE": "deterministic",
           "EAGLE_RAG_PLUGINS__OPTIONS__BIOMED__ENCODER_MODE": "deterministic",
           "EAGLE_RAG_INGEST__TOKEN_VECTOR_COLLECTIONS": "[]"}
    cli, result = trace("eagle_rag/cli/app.py", lambda: CliRunner().invoke(app, ["search", QUERY, "--local"], env=env))
    assert result.exit_code == 0 and "Aspirin" in result.output, result.output
    with Engine(biomed_settings(data)) as engine, TestClient(create_app(engine)) as client:
        http, response = trace("eagle_rag/api/routes_search.py",
                               lambda: client.post("/search", json={"query": QUERY, "mode": "hybrid"}))
    assert response.status_code == 200 and response.json()["hits"][0]["document_id"].startswith("label_aspirin")
    yield {"http": http, "cli": cli}


@pytest.mark.parametrize(("entry", "bound"), [("http", HTTP_BOUND), ("cli", CLI_BOUND)])
def test_the_walk_to_the_stores_stays_short(walks: dict[str, Walk], entry: str, bound: tuple[int, int]) -> None:
    walk = walks[entry]
    assert (len(walk.files), walk.returns) <= bound or (len(walk.files) <= bound[0] and walk.returns <= bound[1]), (
        f"{entry}: {walk.summary()} (bound {bound[0]} files, {bound[1]} returns): {sorted(walk.edges)}")
    assert STORES in walk.files


def test_the_http_walk_goes_through_the_service_not_the_engine(walks: dict[str, Walk]) -> None:
    files = walks["http"].files
    assert {"eagle_rag/service/searching.py", "eagle_rag/retrieve/orchestrator.py"} <= files
    assert "eagle_rag/engine.py" not in files and "eagle_rag/kernel/runtime.py" not in files


def test_a_straight_chain_has_no_returns_and_a_hub_one_per_extra_call() -> None:
    walk = Walk("a.py")
    walk.add(["x.py", "a.py", "b.py", STORES])
    assert (len(walk.files), walk.returns) == (3, 0)  # x.py is above the entry
    walk.add(["a.py", "c.py", STORES])
    walk.add(["a.py", STORES])
    assert (len(walk.files), walk.returns) == (4, 2)  # a.py calls b, c and the stores: 3 - 1


def architecture_walk() -> list[str]:
    """The files named in docs/architecture.md's "Follow one biomed hybrid query" section."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("Follow one biomed hybrid query\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"`src/(eagle_rag[a-z_]*/[a-z_/]+\.py)`", section)


def test_the_architecture_walk_names_files_that_exist_and_are_on_the_path(walks: dict[str, Walk]) -> None:
    named = architecture_walk()
    assert len(named) >= 10
    missing = [name for name in named if not (ROOT / "src" / name).is_file()]
    assert not missing, f"docs/architecture.md names files that do not exist: {missing}"
    traced = walks["http"].entered | walks["cli"].entered
    off_path = [name for name in named if name not in traced]
    assert not off_path, f"docs/architecture.md walks through files the traced query does not cross: {off_path}"

"""Top-level record fields other than the id, title and text become metadata the filters read, and an
impossible date bound is a usage error on every surface (Python, HTTP, MCP, CLI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.engine import Engine
from eagle_rag.errors import InvalidRequest
from eagle_rag.ingest.records import record_document
from eagle_rag.service.core_tools import build_tool_registry
from eagle_rag.settings import load_settings
from eagle_rag.stores.filters import InvalidFilterError, validate_date_bound
from eagle_rag.types import SearchRequest

RECORDS = [
    {"id": "t-2020", "title": "Statin trial 2020", "text": "Atorvastatin lowered LDL cholesterol in a trial.",
     "doc_type": "trial", "year": 2020},
    {"id": "t-2015", "title": "Statin trial 2015", "text": "Simvastatin lowered LDL cholesterol in a trial.",
     "doc_type": "trial", "year": 2015},
    {"id": "r-2021", "title": "Statin review 2021", "text": "A review of statins and LDL cholesterol.",
     "doc_type": "review", "published": "2021-03-01"},
]


def settings_for(data: Path):  # the core's own pipeline
    return load_settings(environ={}, overrides={"profile": "general", "data_dir": str(data),
                                                "encoders": {"mode": "deterministic"}, "plugins": {"enabled": []}})


@pytest.mark.unit
def test_top_level_fields_join_the_metadata() -> None:
    doc = record_document({"id": "a", "text": "x", "doc_type": "trial", "year": 2020, "note": None,
                           "phase": "III", "metadata": {"phase": "II", "site": "Lyon"}}, "kb", "jsonl", "f#1")
    assert doc.metadata == {"doc_type": "trial", "year": 2020, "phase": "II", "site": "Lyon", "record_id": "a"}


@pytest.mark.unit
@pytest.mark.parametrize("bad", ["2020-02-30", "2019-02-29", "2021-04-31"])
def test_a_day_the_month_does_not_have_is_refused(bad: str) -> None:
    with pytest.raises(InvalidFilterError, match="days"):
        validate_date_bound(bad)
    assert validate_date_bound("2020-02-29") == "2020-02-29"  # a leap year


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("fields")
    (root / "studies.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    with Engine(settings_for(root / "data")) as eng:
        assert not eng.ingest([root / "studies.jsonl"], kb_name="studies").failures
        yield eng


@pytest.mark.integration
def test_record_fields_are_filterable(engine: Engine) -> None:
    def ids(**filters: object) -> set[str]:
        request = SearchRequest(query="statin LDL cholesterol", top_k=10, **filters)  # type: ignore[arg-type]
        return {h.document_id for h in engine.search(request).hits}

    assert ids(doc_types=("trial",)) == {"t-2020", "t-2015"}
    assert ids(doc_types=("Trials",), published_from="2019") == {"t-2020"}
    assert ids(published_from="2019", published_to="2022") == {"t-2020", "r-2021"}


@pytest.mark.integration
def test_an_impossible_date_is_a_usage_error_everywhere(engine: Engine, tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest, match="2020-02-30"):
        engine.search(SearchRequest(query="statin", published_from="2020-02-30"))
    with TestClient(create_app(engine)) as client:
        response = client.post("/search", json={"query": "statin", "published_to": "2020-02-30"})
    assert response.status_code == 400 and response.json()["error"]["details"]["field"] == "published_to"
    answer = build_tool_registry(engine).call("core_search", {"query": "statin", "published_from": "2020-02-30"})
    assert answer["error"]["code"] == "invalid_request" and "2020-02-30" in answer["error"]["message"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
    env.update({"EAGLE_RAG_PROFILE": "general", "EAGLE_RAG_DATA_DIR": str(tmp_path / "cli"),
                "EAGLE_RAG_ENCODERS__MODE": "deterministic", "EAGLE_RAG_PLUGINS__ENABLED": "[]"})
    cli = subprocess.run([sys.executable, "-m", "eagle_rag.cli.app", "search", "statin", "--from", "2020-02-30",
                          "--local"], env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert cli.returncode == 2 and "2020-02-30" in cli.stderr and "Traceback" not in cli.stderr

"""Fixtures of the HTTP API tests: one engine over a small corpus for the session, a TestClient per test.

The engine uses the deterministic (hash) encoder to stay fast; ``test_real_encoder.py`` runs the
real bundled model. Two knowledge bases: ``demo`` (the bundled drug labels) and ``tagged``
(``data/tagged.jsonl``: four records with tags, for filter and injection tests).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.engine import Engine
from eagle_rag.ops.demo import sample_dir
from tests.api.helpers import HERE, TAGGED, datasets_surfaces, default_plugins_or_none


@pytest.fixture(scope="session")
def api_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    data = tmp_path_factory.mktemp("api-data")
    roots = [str(sample_dir()), str(HERE / "data")]
    settings = default_plugins_or_none(data, ingest={"allowed_roots": roots})
    with Engine(settings, extra_plugins=datasets_surfaces(settings)) as engine:
        labels = engine.ingest([sample_dir() / "labels"], kb_name="demo")
        tagged = engine.ingest([TAGGED], kb_name="tagged")
        assert not labels.failures and not tagged.failures
        yield engine


@pytest.fixture(scope="session")
def api_app(api_engine: Engine) -> Any:
    return create_app(api_engine)


@pytest.fixture
def client(api_app: Any) -> Iterator[TestClient]:
    with TestClient(api_app, raise_server_exceptions=False) as c:
        yield c

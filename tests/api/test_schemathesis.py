"""Property-based tests from the OpenAPI schema (schemathesis) over every endpoint: no 5xx, every error in
the one shape, and the answers conform to the schema (status codes, content types, declared headers,
response bodies); schema-violating requests are refused.

Every operation of the schema (search, ingest, documents, browse, datasets, health, metrics, doctor)
gets a bounded, derandomized number of valid (positive) and schema-violating (negative) examples
(``EAGLE_RAG_SCHEMATHESIS_EXAMPLES`` raises it). The app runs over its own engine and corpus, so the
documents that random ingests add and random deletes remove touch no other test. Strategies are
driven through ``@given`` directly (schemathesis' pytest loader does not support pytest 9 yet).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from schemathesis import checks as st_checks
from schemathesis.generation.modes import GenerationMode

from eagle_rag.api import create_app
from eagle_rag.engine import Engine
from eagle_rag.ops.demo import sample_dir
from tests.api.helpers import HERE, TAGGED, datasets_surfaces, default_plugins_or_none

pytestmark = pytest.mark.integration
MAX_EXAMPLES = int(os.environ.get("EAGLE_RAG_SCHEMATHESIS_EXAMPLES", "20"))
SLOW_OPERATIONS = {"POST /ingest": 6, "GET /doctor": 3, "POST /snapshots": 3, "POST /reindex": 3}
"""Operations that write or scan the whole index get fewer examples (each call ingests or checks)."""
CONFORMANCE = [st_checks.not_a_server_error, st_checks.status_code_conformance, st_checks.content_type_conformance,
               st_checks.response_headers_conformance, st_checks.response_schema_conformance]


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    data = tmp_path_factory.mktemp("schemathesis-data")
    settings_ = default_plugins_or_none(data, ingest={"allowed_roots": [str(sample_dir()), str(HERE / "data")]})
    with Engine(settings_, extra_plugins=datasets_surfaces(settings_)) as engine:
        assert not engine.ingest([sample_dir() / "labels"], kb_name="demo").failures
        assert not engine.ingest([TAGGED], kb_name="tagged").failures
        yield create_app(engine)


def _operations(app: Any) -> list[Any]:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    return [result.ok() for result in schema.get_all_operations()]


def _has_inputs(operation: Any) -> bool:
    return bool(len(operation.path_parameters) or len(operation.query) or len(operation.headers)
                or len(operation.body))


def _one_error_shape(case: Any, response: Any) -> None:
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}, (
            f"{case.method} {case.formatted_path}", body)
        assert "Traceback" not in response.text


def test_schema_and_server_agree(fuzz_app: Any) -> None:
    """Every endpoint is fuzzed (the list below fails when a new one is not)."""
    names = {f"{op.method.upper()} {op.path}" for op in _operations(fuzz_app)}
    assert {"POST /search", "POST /search/batch", "POST /ingest", "GET /documents/{document_id}",
            "DELETE /documents/{document_id}", "GET /health", "GET /metrics"} <= names


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_server_errors_conformant_answers_one_error_shape(fuzz_app: Any, mode: GenerationMode) -> None:
    checks = [*CONFORMANCE, st_checks.negative_data_rejection] if mode is GenerationMode.NEGATIVE else CONFORMANCE
    with TestClient(fuzz_app, raise_server_exceptions=False):  # runs the app's lifespan once
        for operation in _operations(fuzz_app):
            if mode is GenerationMode.NEGATIVE and not _has_inputs(operation):
                continue  # nothing to violate (GET /kbs, GET /health)
            examples = SLOW_OPERATIONS.get(f"{operation.method.upper()} {operation.path}", MAX_EXAMPLES)

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(max_examples=examples, derandomize=True, deadline=None, database=None,
                      suppress_health_check=list(HealthCheck))
            def run(case: Any) -> None:
                response = case.call_and_validate(checks=checks)
                _one_error_shape(case, response)

            run()

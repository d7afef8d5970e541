"""Property-based tests from the OpenAPI schema (schemathesis): no 5xx, every error in the one shape.

Covers ``/search``, ``/documents/*`` and ``/datasets/*`` (when a plugin serves them) with valid
(positive) and schema-violating (negative) data: a bounded, derandomized number of examples per
operation (``EAGLE_RAG_SCHEMATHESIS_EXAMPLES`` raises it). DELETE is left out so the shared corpus
stays intact. Strategies are driven through ``@given`` directly (schemathesis' pytest loader does
not support pytest 9 yet).
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.generation.modes import GenerationMode

pytestmark = pytest.mark.integration
PATHS = re.compile(r"^/(search|documents|datasets)")
MAX_EXAMPLES = int(os.environ.get("EAGLE_RAG_SCHEMATHESIS_EXAMPLES", "30"))


def _operations(app: Any) -> list[Any]:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    out = []
    for result in schema.get_all_operations():
        operation = result.ok()
        if PATHS.match(operation.path) and operation.method.upper() != "DELETE":
            out.append(operation)
    return out


def _check(case: Any) -> None:
    response = case.call()
    where = f"{case.method} {case.formatted_path}"
    assert response.status_code < 500, f"{where}: {response.status_code} {response.text[:300]}"
    if response.status_code >= 400:
        body = response.json()
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}, (where, body)
        assert "Traceback" not in response.text


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_server_errors_and_one_error_shape(api_app, mode):
    operations = _operations(api_app)
    paths = {op.path for op in operations}
    assert {"/search", "/documents/{document_id}"} <= paths
    for operation in operations:
        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(max_examples=MAX_EXAMPLES, derandomize=True, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        def run(case: Any) -> None:
            _check(case)

        run()

"""The schema and the server agree where schemathesis (``--checks all``) found they did not: what the
server refuses, the schema states (a pattern, a minimum, an enum, a strict boolean), and what a 405 or
a 413 says matches the schema's paths and limits."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.api.helpers import assert_error_shape

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def schema(api_app: Any) -> dict[str, Any]:
    return api_app.openapi()


def _body_schema(schema: dict[str, Any], path: str) -> dict[str, Any]:
    content = schema["paths"][path]["post"]["requestBody"]["content"]
    ref = next(iter(content.values()))["schema"].get("$ref", "")
    return schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]


def test_a_405_allows_only_the_methods_the_schema_lists_for_the_path(client, schema):
    """``OPTIONS /documents/{id}/chunks`` allowed DELETE: ``/documents/{id:path}`` takes ``x/chunks`` too."""
    response = client.options("/documents/label_imatinib/chunks")
    error = assert_error_shape(response, 405, "method_not_allowed")
    listed = {m.upper() for m in schema["paths"]["/documents/{document_id}/chunks"]}
    assert set(error["details"]["allowed"]) - {"HEAD"} == listed == {"GET"}
    assert "DELETE" not in response.headers["Allow"]
    document = assert_error_shape(client.options("/documents/label_imatinib"), 405)
    assert set(document["details"]["allowed"]) >= {"GET", "DELETE"}  # the document route itself keeps both


@pytest.mark.parametrize("value", ["a\x01b", "tab\there", "\x7f"])
def test_a_filter_value_with_a_control_character_is_refused_and_the_schema_says_so(client, schema, value):
    pattern = _body_schema(schema, "/search")["properties"]["tags"]["items"]["pattern"]
    assert re.match(pattern, value) is None and re.match(pattern, "oncology")
    assert_error_shape(client.post("/search", json={"query": "aspirin", "tags": [value]}), 422)


def test_a_nul_in_the_query_is_refused_and_the_schema_says_so(client, schema):
    pattern = _body_schema(schema, "/search")["properties"]["query"]["pattern"]
    assert re.match(pattern, "a\x00b") is None and re.match(pattern, "a\x01b")
    assert_error_shape(client.post("/search", json={"query": "a\x00b"}), 422)


def test_an_empty_query_image_is_refused_and_the_schema_says_so(client, schema):
    image = _body_schema(schema, "/search")["properties"]["image"]["anyOf"][0]
    assert image["minLength"] == 1
    assert_error_shape(client.post("/search", json={"query": "aspirin", "image": ""}), 422)


def test_datasets_search_states_its_engines_and_takes_a_boolean_explain_only(client, schema):
    properties = _body_schema(schema, "/datasets/search")["properties"]
    assert set(properties["engine"]["enum"]) == {"index", "bm25", "substring"}
    assert_error_shape(client.post("/datasets/search", json={"query": "NER", "engine": "magic"}), 400, "unknown_engine")
    refused = assert_error_shape(client.post("/datasets/search", json={"query": "NER", "explain": 0}), 422)
    assert refused["message"] == "explain must be true or false, got int"
    assert client.post("/datasets/search", json={"query": "NER", "engine": "bm25", "explain": True}).status_code == 200


def test_an_ingest_without_a_file_or_a_path_is_refused_and_the_schema_says_so(client, schema):
    rule = schema["paths"]["/ingest"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]["anyOf"]
    assert {json.dumps(r, sort_keys=True) for r in rule} == {
        json.dumps({"required": [n], "properties": {n: {"type": "array", "minItems": 1}}}, sort_keys=True)
        for n in ("files", "paths")}
    multipart = {"Content-Type": "multipart/form-data; boundary=xyz"}
    empty = client.post("/ingest", headers=multipart, content=b"--xyz--\r\n")
    assert_error_shape(empty, 400)


def test_a_batch_too_large_to_read_names_the_item_limit(client, api_engine):
    limit = api_engine.settings.api.max_body_bytes
    searches = [{"query": "aspirin " * 4000} for _ in range(33)]  # 33 searches of 32 KB: over the 1 MB limit
    response = client.post("/search/batch", json={"searches": searches})
    error = assert_error_shape(response, 413, "payload_too_large")
    assert error["details"] == {"limit": limit, "max_batch": 32}
    assert "at most 32 searches (api.max_batch)" in error["message"]

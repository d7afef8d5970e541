"""Item 8: the schema and the server agree, against a real ``eagle-rag serve``; each check reads the limit
from the served ``/openapi.json`` and sends the request it describes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.security.server import Server, error_of, serve, upload

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("contract") / "data"
    with serve(data, {"EAGLE_RAG_PLUGINS__ENABLED": "[datasets]"}) as running:
        with running.client() as client:
            assert upload(client, "demo", "note.md", "# Note\n\nWarfarin bleeding risk.\n").status_code == 200
        yield running


@pytest.fixture(scope="module")
def schema(server: Server) -> dict[str, Any]:
    with server.client() as client:
        return dict(client.get("/openapi.json").json())


def _body_schema(schema: dict[str, Any], path: str, media: str = "application/json") -> dict[str, Any]:
    ref = schema["paths"][path]["post"]["requestBody"]["content"][media]["schema"]
    name = ref["$ref"].rsplit("/", 1)[-1]
    return {**schema["components"]["schemas"][name], **{k: v for k, v in ref.items() if k != "$ref"}}


@pytest.mark.parametrize("field", ["tags", "document_ids", "kb_names", "sections"])
def test_filter_list_limits_match(server: Server, schema: dict[str, Any], field: str) -> None:
    limit = _body_schema(schema, "/search")["properties"][field]["maxItems"]
    assert limit == 100
    value = "demo" if field == "kb_names" else "x"
    with server.client() as client:
        at_limit = client.post("/search", json={"query": "warfarin", field: [value] * limit})
        over = client.post("/search", json={"query": "warfarin", field: [value] * (limit + 1)})
    assert at_limit.status_code == 200, at_limit.text
    assert error_of(over, 422, "invalid_request")["details"]["errors"][0]["loc"] == ["body", field]  # type: ignore[index]


def test_ingest_schema_requires_what_the_server_requires(server: Server, schema: dict[str, Any]) -> None:
    body = _body_schema(schema, "/ingest", "multipart/form-data")
    # one file or one path at least: the schema says so (minItems 1) as the server refuses an empty list
    assert body["anyOf"] == [{"required": [name], "properties": {name: {"type": "array", "minItems": 1}}}
                             for name in ("files", "paths")]
    with server.client() as client:
        only_kb = client.post("/ingest", data={"kb_name": "demo"}, files={"unused": ("", b"")})
    error_of(only_kb, 400, "invalid_request")


def test_empty_kb_name_is_refused(server: Server) -> None:
    with server.client() as client:
        refused = client.post("/ingest", data={"kb_name": ""}, files={"files": ("e.md", b"# E\n\ntext")})
        error_of(refused, 400, "invalid_request")
        assert "default" not in client.get("/kbs").text


def test_datasets_value_limit_is_in_the_schema(server: Server, schema: dict[str, Any]) -> None:
    body = _body_schema(schema, "/datasets/search")
    assert body["properties"]["tags"]["items"]["maxLength"] == 200
    check = _body_schema(schema, "/datasets/check")
    assert check["properties"]["ids"]["maxItems"] == 100
    with server.client() as client:
        assert client.post("/datasets/search", json={"query": "ner", "tags": ["t" * 200]}).status_code == 200
        error_of(client.post("/datasets/search", json={"query": "ner", "tags": ["t" * 201]}), 422, "invalid_request")
        assert client.post("/datasets/check", json={"ids": ["bc5cdr"] * 100}).status_code == 200
        error_of(client.post("/datasets/check", json={"ids": ["bc5cdr"] * 101}), 422, "invalid_request")


@pytest.mark.parametrize("extra", [{"explain": 0}, {"has_image": 0}, {"top_k": "5"}, {"top_k": True},
                                   {"offset": "1"}, {"explain": "true"}])
def test_strict_types(server: Server, schema: dict[str, Any], extra: dict[str, Any]) -> None:
    (field, value), = extra.items()
    declared = _body_schema(schema, "/search")["properties"][field]["type"]
    python_type = {"integer": "int", "boolean": "bool"}[declared]
    assert type(value).__name__ != python_type  # the value is of another JSON type than the schema says
    with server.client() as client:
        refused = client.post("/search", json={"query": "warfarin", **extra})
    assert error_of(refused, 422, "invalid_request")["details"]["errors"][0]["loc"] == ["body", field]  # type: ignore[index]


def test_options_lists_every_method_of_a_path(server: Server) -> None:
    with server.client() as client:
        doc = client.post("/search", json={"query": "warfarin"}).json()["hits"][0]["document_id"]
        answer = client.options(f"/documents/{doc}")
    error = error_of(answer, 405, "method_not_allowed")
    assert answer.headers["Allow"] == "DELETE, GET"
    assert error["details"] == {"allowed": ["DELETE", "GET"]}

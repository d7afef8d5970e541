"""One error shape everywhere: validation, unknown routes, wrong methods, body limits, 500s, plugins."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import ERROR_RESPONSES, create_app
from eagle_rag.encoders.errors import EncoderLoadError
from eagle_rag.engine import Engine
from eagle_rag.hookspecs import hookimpl
from eagle_rag.stores.milvus import CollectionNotFoundError
from tests.api.helpers import assert_error_shape, make_settings

pytestmark = pytest.mark.integration


def test_unknown_route_is_404(client):
    error = assert_error_shape(client.get("/no/such/route"), 404, "not_found")
    assert "/no/such/route" in error["message"]


def test_wrong_method_is_405_with_the_allowed_ones(client):
    error = assert_error_shape(client.get("/search"), 405, "method_not_allowed")
    assert error["details"]["allowed"] == ["POST"]


def test_malformed_json_is_422(client):
    response = client.post("/search", content=b'{"query": ', headers={"Content-Type": "application/json"})
    assert_error_shape(response, 422, "invalid_request")


def test_body_over_the_limit_by_content_length_is_413(client):
    response = client.post("/search", content=b"x" * 1_000_001, headers={"Content-Type": "application/json"})
    assert_error_shape(response, 413, "payload_too_large")


def test_streamed_body_over_the_limit_is_413(client):
    def chunks():
        for _ in range(40):
            yield b"x" * 50_000

    response = client.post("/search", content=chunks(), headers={"Content-Type": "application/json"})
    assert "content-length" not in {k.lower() for k in response.request.headers}
    assert_error_shape(response, 413, "payload_too_large")


def test_invalid_content_length_is_400(client):
    response = client.post("/search", content=b"{}", headers={"Content-Length": "abc",
                                                               "Content-Type": "application/json"})
    assert_error_shape(response, 400, "invalid_request")


class _Routes:
    """A plugin adding routes through ``eagle_api_register`` (one fails unexpectedly)."""

    @hookimpl
    def eagle_api_register(self, api, engine):
        @api.get("/plugin/ok", responses=ERROR_RESPONSES)
        def ok() -> dict[str, str]:
            return {"plugin": "ok", "profile": engine.settings.profile}

        @api.get("/plugin/boom")
        def boom() -> None:
            raise RuntimeError("secret detail /etc/shadow")

        @api.get("/plugin/encode")
        def encode() -> None:
            raise EncoderLoadError("model bge-small missing")

        @api.get("/plugin/collection")
        def collection() -> None:
            raise CollectionNotFoundError("eagle_chemical")

        @api.get("/plugin/items/{n}")
        def item(n: int) -> dict[str, int]:
            return {"n": n}


@pytest.fixture(scope="module")
def plugin_client(tmp_path_factory):
    settings = make_settings(tmp_path_factory.mktemp("plugin-routes"))
    with (Engine(settings, extra_plugins=[("routes", _Routes())]) as engine,
          TestClient(create_app(engine), raise_server_exceptions=False) as c):
        yield c


def test_plugins_add_routes_through_the_hook(plugin_client):
    assert plugin_client.get("/plugin/ok").json() == {"plugin": "ok", "profile": "general"}


def test_unexpected_error_is_500_without_traceback_or_exception_text(plugin_client):
    response = plugin_client.get("/plugin/boom", headers={"X-Request-ID": "req-123"})
    error = assert_error_shape(response, 500, "internal_error")
    assert "secret" not in response.text and "RuntimeError" not in response.text
    assert error["details"]["request_id"] == "req-123" == response.headers["X-Request-ID"]


def test_encoder_and_collection_failures_are_503_with_their_codes(plugin_client):
    assert_error_shape(plugin_client.get("/plugin/encode"), 503, "encode_failed")
    assert_error_shape(plugin_client.get("/plugin/collection"), 503, "collection_missing")


def test_plugin_route_validation_errors_use_the_one_shape(plugin_client):
    assert_error_shape(plugin_client.get("/plugin/items/abc"), 422, "invalid_request")


def test_openapi_documents_the_one_error_shape(plugin_client):
    schema = plugin_client.get("/openapi.json").json()
    components = schema["components"]["schemas"]
    assert "ErrorResponse" in components and "HTTPValidationError" not in components
    assert "HTTPValidationError" not in str(schema)
    for path in ("/search", "/ingest", "/documents/{document_id}"):
        for operation in schema["paths"][path].values():
            for status in ("400", "404", "422", "500"):
                ref = operation["responses"][status]["content"]["application/json"]["schema"]["$ref"]
                assert ref.endswith("/ErrorResponse")
    search = schema["paths"]["/search"]["post"]
    body_ref = search["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    assert components[body_ref]["examples"], "the search body has examples"
    assert components["SearchResponseModel"]["examples"]

"""POST /search: the answer's contract (hits, exhaustive, why empty, explain, warnings) and its limits."""

from __future__ import annotations

import pytest

from eagle_rag import service
from eagle_rag.errors import InvalidRequest
from eagle_rag.types import SearchRequest
from tests.api.helpers import TAGGED_IDS, assert_error_shape

pytestmark = pytest.mark.integration


def test_search_answers_hits_with_what_happened(client):
    response = client.post("/search", json={"query": "imatinib dosage chronic myeloid leukemia", "top_k": 3,
                                            "kb_names": ["demo"]})
    assert response.status_code == 200, response.text
    body = response.json()
    # total counts every match of the query's candidate pool, not the hits of this page
    assert len(body["hits"]) == 3 and body["total"] > 3 and body["total_relation"] in ("eq", "gte")
    assert body["exhaustive"] is False and body["offset"] == 0
    assert body["mode"] == "hybrid" and body["empty_reason"] is None
    assert body["hits"][0]["document_id"].startswith("label_imatinib")
    hit = body["hits"][0]
    assert {"id", "document_id", "text", "score", "path", "collection", "match", "metadata"} <= set(hit)
    assert hit["trail"] == [] and hit["metadata"]["kb_name"] == "demo"
    assert body["request_id"] == response.headers["X-Request-ID"]


def test_explain_adds_the_score_trail(client):
    body = client.post("/search", json={"query": "warfarin bleeding", "explain": True, "top_k": 2}).json()
    stages = {entry["stage"] for entry in body["hits"][0]["trail"]}
    assert {"bm25", "dense"} & stages
    assert all(entry["rank"] >= 1 for entry in body["hits"][0]["trail"])


def test_exhaustive_when_every_match_is_returned(client):
    body = client.post("/search", json={"query": "bleeding", "top_k": 100, "kb_names": ["tagged"]}).json()
    assert body["exhaustive"] is True
    assert {h["document_id"] for h in body["hits"]} <= TAGGED_IDS


def test_empty_answer_says_why_and_what_each_filter_excludes(client):
    body = client.post("/search", json={"query": "imatinib", "kb_names": ["tagged"],
                                        "tags": ["no-such-tag"]}).json()
    assert body["hits"] == [] and body["total"] == 0 and body["exhaustive"] is True
    assert "tags" in body["empty_reason"]
    assert body["excluded_by_filter"]["tags"] >= 4


def test_bm25_mode_and_tag_filter(client):
    body = client.post("/search", json={"query": "bleeding", "mode": "bm25", "tags": ["cardiology"],
                                        "top_k": 10}).json()
    assert body["mode"] == "bm25"
    assert {h["document_id"] for h in body["hits"]} == {"t-cv-1", "t-cv-2"}


@pytest.mark.parametrize("option", [{"strict": True}, {"synonyms": False}])
def test_dataset_card_options_belong_to_the_datasets_endpoint(client, option):
    """``strict`` and ``synonyms`` are dataset-card options: ``/search`` refuses them as unknown
    fields, ``/datasets/search`` takes them."""
    (name,) = option
    error = assert_error_shape(client.post("/search", json={"query": "aspirin", **option}), 422,
                               "invalid_request")
    assert name in error["message"] or name == error["details"].get("field")
    assert name not in client.get("/openapi.json").json()["components"]["schemas"]["SearchBody"]["properties"]
    answer = client.post("/datasets/search", json={"query": "BC5CDR", **option})
    assert answer.status_code == 200, answer.text
    assert answer.json()[name] is next(iter(option.values()))
    assert client.post("/search", json={"query": "aspirin"}).json()["warnings"] == []


def test_has_image_is_accepted(client):
    assert client.post("/search", json={"query": "chest CT", "has_image": True}).status_code == 200


@pytest.mark.parametrize("body, status, field", [
    ({"query": "x" * 2001}, 400, "query"),
    ({"query": "aspirin", "top_k": 101}, 400, "top_k"),
    ({"query": "aspirin", "top_k": 0}, 400, "top_k"),
    ({"query": ""}, 400, "query"),
    ({"query": "   "}, 400, "query"),
    ({"query": "aspirin", "mode": "magic"}, 422, "mode"),
    ({"query": "aspirin", "kb_names": ["demo"] * 101}, 422, "kb_names"),  # the schema's limit, the server's
    ({"query": "aspirin", "unknown_field": 1}, 422, "unknown_field"),
    ({"query": "a\u0000b"}, 422, "query"),
    ({"top_k": 3}, 422, "query"),
])
def test_limits_and_bad_input_are_4xx_in_the_one_shape(client, body, status, field):
    error = assert_error_shape(client.post("/search", json=body), status, "invalid_request")
    assert field in error["message"] or field == error["details"].get("field")


def test_unknown_kb_name_is_404_and_names_only_the_unknown_one(client):
    error = assert_error_shape(client.post("/search", json={"query": "x", "kb_names": ["nope"]}), 404,
                               "not_found")
    assert error["details"] == {"field": "kb_names", "unknown": ["nope"]} and "demo" not in error["message"]


def _request(body):
    """The in-process request of a ``/search`` body (lists as tuples)."""
    return SearchRequest(**{k: tuple(v) if isinstance(v, list) else v for k, v in body.items()})


BAD_VALUES = [
    {"query": ""},
    {"query": "aspirin", "kb_names": ["dup,dup2"]},
    {"query": "aspirin", "offset": -1},
    {"query": "aspirin", "top_k": 1000},
    {"query": "aspirin", "top_k": 0},
]


@pytest.mark.parametrize("body", BAD_VALUES)
def test_bad_values_get_the_engines_message_over_http(client, api_engine, body):
    """The CLI says the same through the server as with --local: the 400 carries the engine's words,
    not the schema's (``String should have at least 1 character``)."""
    with pytest.raises(InvalidRequest) as info:
        service.search(api_engine, _request(body))
    error = assert_error_shape(client.post("/search", json=body), 400, "invalid_request")
    assert error["message"] == info.value.message
    assert error["details"] == info.value.details


@pytest.mark.parametrize("extra", [{"explain": 0}, {"explain": "yes"}, {"explain": 1}, {"has_image": 1},
                                   {"has_image": "no"}, {"query": 5}])
def test_python_search_request_is_as_strict_as_http(client, api_engine, extra):
    """``explain=0`` is refused in-process, as over HTTP (422), instead of read as false."""
    (field, value), = extra.items()
    body = {"query": "imatinib", **extra}
    refused = assert_error_shape(client.post("/search", json=body), 422, "invalid_request")
    assert refused["details"]["errors"][0]["loc"] == ["body", field]
    with pytest.raises(InvalidRequest) as info:
        api_engine.search(SearchRequest(**body))
    assert info.value.details == {"field": field}
    assert info.value.message == f"{field} must be " + ("a string" if field == "query" else "true or false") + \
        f", got {type(value).__name__}"


def test_batch_with_one_bad_search_is_a_400_naming_its_index(client, api_engine):
    searches = [{"query": "imatinib"}, {"query": "aspirin", "offset": -1}]
    with pytest.raises(InvalidRequest) as info:
        service.search_many(api_engine, [_request(b) for b in searches])
    error = assert_error_shape(client.post("/search/batch", json={"searches": searches}), 400, "invalid_request")
    assert error["message"] == info.value.message and error["message"].startswith("searches[1]: offset + top_k")
    assert error["details"] == {"field": "offset", "limit": 100, "index": 1}


def test_batch_with_an_image_that_is_not_base64_names_its_index(client):
    searches = [{"query": "chest CT"}, {"query": "chest CT"}, {"query": "chest CT", "image": "not base64!"}]
    error = assert_error_shape(client.post("/search/batch", json={"searches": searches}), 400, "invalid_request")
    assert error["message"].startswith("searches[2]: image is not base64")
    assert error["details"] == {"field": "image", "index": 2}


def test_empty_batch_gets_the_services_message(client, api_engine):
    with pytest.raises(InvalidRequest) as info:
        service.search_many(api_engine, [])
    error = assert_error_shape(client.post("/search/batch", json={"searches": []}), 400, "invalid_request")
    assert error["message"] == info.value.message == "the batch has no searches"


def test_batch_with_a_wrong_type_is_a_422_naming_its_index(client):
    searches = [{"query": "imatinib"}, {"query": "aspirin"}, {"query": "aspirin", "explain": 0}]
    error = assert_error_shape(client.post("/search/batch", json={"searches": searches}), 422, "invalid_request")
    assert error["details"]["index"] == 2
    assert error["details"]["errors"][0]["loc"] == ["body", "searches", 2, "explain"]


def test_schema_still_shows_the_limits_the_service_checks(client):
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    search = schemas["SearchBody"]["properties"]
    assert search["query"]["minLength"] == 1 and search["top_k"]["minimum"] == 1
    assert search["offset"]["minimum"] == 0
    assert search["kb_names"]["items"]["pattern"] == r"^[A-Za-z0-9_.\-]{1,64}$"
    assert schemas["SearchBatchBody"]["properties"]["searches"]["minItems"] == 1

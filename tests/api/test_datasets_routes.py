"""POST /datasets/search and /datasets/check: the datasets plugin's routes, in the one error shape."""

from __future__ import annotations

import pytest

from tests.api.helpers import assert_error_shape

pytestmark = pytest.mark.integration


def test_datasets_search_finds_a_card(client):
    response = client.post("/datasets/search", json={"query": "BC5CDR chemical disease relation", "top_k": 3})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["hits"][0]["id"] == "bigbio/bc5cdr"
    assert body["returned"] == len(body["hits"]) <= 3 and isinstance(body["exhaustive"], bool)


def test_datasets_search_empty_answer_says_why(client):
    body = client.post("/datasets/search", json={"query": "zzzqqq nonexistentterm", "strict": True}).json()
    assert body["hits"] == [] and body["total"] == 0 and body["message"]


@pytest.mark.parametrize("body, status, code", [
    ({"query": "ner", "engine": "magic"}, 400, "unknown_engine"),
    ({"query": "ner", "top_k": 0}, 422, "invalid_request"),
    ({"query": ""}, 422, "invalid_request"),
    ({"query": "ner", "languages": ["x" * 300]}, 422, "invalid_request"),
    ({"query": "ner", "bogus": 1}, 422, "invalid_request"),
])
def test_datasets_search_errors(client, body, status, code):
    assert_error_shape(client.post("/datasets/search", json=body), status, code)


def test_datasets_check(client):
    body = client.post("/datasets/check", json={"ids": ["bigbio/bc5cdr", "bc5cdr", "x\" or 1==1"]}).json()
    assert body["known"] == ["bigbio/bc5cdr"] and body["resolved"] == {"bc5cdr": "bigbio/bc5cdr"}
    assert body["unknown"] == ['x" or 1==1'] and body["all_known"] is False


def test_datasets_check_limits(client):
    assert_error_shape(client.post("/datasets/check", json={"ids": []}), 422, "invalid_request")
    error = assert_error_shape(client.post("/datasets/check", json={"ids": ["a"] * 101}), 422, "invalid_request")
    assert error["details"]["errors"][0]["loc"] == ["body", "ids"]  # the schema states the server's limit


def test_datasets_search_shows_semantic_hits_constraints_and_suggestions(client):
    body = client.post("/datasets/search", json={"query": "Chinese electronic medical record entity recognition",
                                                 "top_k": 3}).json()
    assert body["hits"] and {h["match"] for h in body["hits"]} == {"semantic"}
    assert all(h["similarity"] >= body["semantic"]["floor"] for h in body["hits"])
    empty = client.post("/datasets/search", json={"query": "brain MRI scans with tumour masks"}).json()
    assert empty["hits"] == [] and empty["verdict"] == "unsatisfied" and empty["suggestions"]
    assert empty["unsatisfied"][0]["kind"] == "modality" and "holds MRI scans (0 of" in empty["message"]
    assert empty["unsatisfied"][0]["excluded"] is False and empty["absent"] is True
    # a language the request rules out is a constraint marked excluded; a country alone never claims absence
    excluded = client.post("/datasets/search", json={"query": "clinical notes, not English", "top_k": 3}).json()
    assert [(c["term"], c["excluded"]) for c in excluded["constraints"]] == [("english", True)]
    kenya = client.post("/datasets/search", json={"query": "Kenyan hospital discharge summaries"}).json()
    assert kenya["verdict"] == "unconfirmed" and kenya["absent"] is False and kenya["unsatisfied"]
    off = client.post("/datasets/search", json={"query": "Chinese electronic medical record entity recognition",
                                                "semantic": False}).json()
    assert off["semantic"] == {"used": False} and all(h["match"] != "semantic" for h in off["hits"])

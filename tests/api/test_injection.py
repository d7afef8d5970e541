"""Filter-injection strings in kb_names, document_ids and tags are rejected or escaped, and never change
which documents are visible."""

from __future__ import annotations

import pytest

from tests.api.helpers import TAGGED_IDS, assert_error_shape

pytestmark = pytest.mark.integration

INJECTIONS = [
    "'", '"', "\\", "\\\\", '\\"', "''", '""',
    '" || kb_name != "', "' || 1==1 || '", "x\" or 1==1 or \"", "or 1==1", "1 or 1=1",
    "') OR ('1'='1", '") or ("1"=="1', "t-onc-1\" || document_id != \"", "t-cv-1' or 'a'=='a",
    "kb_name in [\"demo\"]", "%", "_", "*", "%t-%", "t-onc-1 OR t-cv-1", "; DROP TABLE documents; --",
    "ｔ－ｏｎｃ－１", "t\u2010onc\u20101", "t-onc-1\u200b", "🧬", "\u202et-onc-1", "oncology\" or \"",
    "oncology' OR tag LIKE '%", "\\u0022 or 1==1", "&&", "!=", "[]", "{}",
]


def _search(client, **filters):
    response = client.post("/search", json={"query": "cancer bleeding", "top_k": 100, "mode": "bm25",
                                            **filters})
    return response


def _docs(response) -> set[str]:
    assert response.status_code == 200, response.text
    return {hit["document_id"] for hit in response.json()["hits"]}


@pytest.mark.parametrize("value", INJECTIONS)
def test_injection_in_kb_names_is_rejected(client, value):
    response = _search(client, kb_names=[value])
    assert 400 <= response.status_code < 500
    assert_error_shape(response)


@pytest.mark.parametrize("value", INJECTIONS)
def test_injection_in_document_ids_matches_nothing_more(client, value):
    assert _docs(_search(client, document_ids=[value])) == set()
    assert _docs(_search(client, document_ids=["t-onc-1", value])) == {"t-onc-1"}


@pytest.mark.parametrize("value", INJECTIONS)
def test_injection_in_tags_matches_nothing_more(client, value):
    response = _search(client, tags=[value])
    assert _docs(response) == set() and response.json()["empty_reason"]
    assert _docs(_search(client, tags=["lung", value])) == {"t-onc-1"}


def test_the_baseline_sees_every_tagged_document(client):
    assert _docs(_search(client, kb_names=["tagged"])) == TAGGED_IDS
    assert _docs(_search(client, tags=["oncology"])) == {"t-onc-1", "t-onc-2"}


@pytest.mark.parametrize("value", ["a\u0000b", "\ud800"])
def test_nul_and_lone_surrogates_are_refused(client, value):
    for field in ("document_ids", "tags"):
        body = '{{"query": "x", "{}": ["{}"]}}'.format(field, value.encode("unicode_escape").decode()
                                                 .replace("\\x00", "\\u0000"))
        response = client.post("/search", content=body.encode(), headers={"Content-Type": "application/json"})
        assert_error_shape(response, 422, "invalid_request")


def test_injection_in_the_document_path_is_just_an_unknown_id(client):
    for value in ['" || 1==1', "t-onc-1' OR '1'='1", "..%2F..%2Fetc%2Fpasswd"]:
        response = client.get(f"/documents/{value}")
        assert response.status_code == 404
        assert_error_shape(response)

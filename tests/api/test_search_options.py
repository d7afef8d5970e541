"""The result options of POST /search (facets, max_per_document, diversity, recency) on the shared API
engine: facet counts equal a brute-force count over the matching set, the options show in the trail,
defaults leave the ranking unchanged, bad values are refused naming the field (400, 422 for a type or
an unknown facet) with the engine's words."""

from __future__ import annotations

from collections import Counter

import pytest

from eagle_rag import service
from eagle_rag.errors import InvalidRequest
from eagle_rag.types import SECTION_KEYS, Facet, SearchRequest, attribute_values
from tests.api.helpers import assert_error_shape

pytestmark = pytest.mark.integration
ALL = ["source_type", "doc_type", "section", "year", "kb"]


def test_facets_count_the_whole_matching_set(client, api_engine):
    body = {"query": "bleeding risk", "top_k": 3, "facets": ALL}
    page = client.post("/search", json=body).json()
    whole = client.post("/search", json={**body, "top_k": 100}).json()
    assert page["facets"] == whole["facets"] and len(page["hits"]) == 3
    assert whole["total"] == len(whole["hits"]) < 100  # every hit of the matching set is on this page
    hits = whole["hits"]
    # brute force: count over every hit, the source type read back from the vector store
    chunks = {c.id: c for collection in {h["collection"] for h in hits}
              for c in api_engine.vectors.get_chunks(collection, [h["id"] for h in hits])}
    assert whole["facets"]["kb"] == dict(Counter(h["kb_name"] for h in hits))
    assert whole["facets"]["source_type"] == dict(Counter(chunks[h["id"]].source_type for h in hits))
    assert whole["facets"]["section"] == dict(Counter(v for h in hits for v in attribute_values(h["metadata"],
                                                                                                 SECTION_KEYS)))
    assert sum(whole["facets"]["kb"].values()) == whole["total"]
    assert set(whole["facets"]) == set(ALL) and whole["undated"] == 0
    assert "facets" in client.post("/search", json={"query": "bleeding"}).json()


def test_defaults_leave_the_ranking_unchanged(client):
    plain = client.post("/search", json={"query": "warfarin bleeding", "top_k": 10}).json()
    faceted = client.post("/search", json={"query": "warfarin bleeding", "top_k": 10, "facets": ["kb"],
                                           "diversity": None, "max_per_document": None, "recency": None}).json()
    assert [h["id"] for h in faceted["hits"]] == [h["id"] for h in plain["hits"]]
    assert plain["facets"] == {} and "max_per_document" not in plain["dropped"]


def test_max_per_document_collapses_and_says_how_many(client):
    """The option replaces the pipeline's parent-document grouping (one chunk a document by default):
    the same merged list is collapsed to N chunks a document, before the rerank pool is cut."""
    base = {"query": "dosage", "kb_names": ["demo"], "top_k": 100, "explain": True}
    grouped = client.post("/search", json=base).json()
    one = client.post("/search", json={**base, "max_per_document": 1}).json()
    three = client.post("/search", json={**base, "max_per_document": 3}).json()
    docs = [h["document_id"] for h in one["hits"]]
    assert len(docs) == len(set(docs)) and set(docs) == {h["document_id"] for h in grouped["hits"]}
    per_doc = Counter(h["document_id"] for h in three["hits"])
    assert max(per_doc.values()) == 3 and one["dropped"]["max_per_document"] > 0
    # one pool before the collapse: what is kept plus what is dropped
    assert one["total"] + one["dropped"]["max_per_document"] == three["total"] + three["dropped"]["max_per_document"]
    assert docs == list(dict.fromkeys(h["document_id"] for h in three["hits"]))  # the best chunk of each, in order
    entry = three["hits"][1]["trail"][-1]
    assert entry["stage"] == "max_per_document" and entry["rank"] == 2 and "document_rank" in entry["detail"]
    assert all(e["stage"] != "parent_doc" for h in three["hits"] for e in h["trail"])


def test_diversity_reorders_by_mmr_over_stored_vectors(client):
    base = {"query": "dosage", "kb_names": ["demo"], "top_k": 10, "explain": True}
    plain = client.post("/search", json=base).json()
    same = client.post("/search", json={**base, "diversity": 1.0}).json()
    diverse = client.post("/search", json={**base, "diversity": 0.0}).json()
    assert [h["id"] for h in same["hits"]] == [h["id"] for h in plain["hits"]]  # lambda 1: relevance alone
    trail = diverse["hits"][1]["trail"][-1]
    assert trail["stage"] == "mmr" and trail["skipped"] == "" and trail["detail"]["lambda"] == 0.0
    assert -1.0 <= trail["detail"]["max_similarity"] <= 1.0 and trail["score"] == -trail["detail"]["max_similarity"]
    assert diverse["hits"][0]["id"] == plain["hits"][0]["id"]
    assert [h["id"] for h in diverse["hits"]] != [h["id"] for h in plain["hits"]]


BAD = [
    ({"diversity": 1.5}, 400, "diversity"),
    ({"diversity": -0.1}, 400, "diversity"),
    ({"recency": -30}, 400, "recency"),
    ({"recency": 0}, 400, "recency"),
    ({"max_per_document": 0}, 400, "max_per_document"),
    ({"facets": ["colour"]}, 422, "facets"),
    ({"diversity": "high"}, 422, "diversity"),
    ({"max_per_document": 1.5}, 422, "max_per_document"),
]


@pytest.mark.parametrize("extra, status, field", BAD)
def test_bad_option_values_are_refused_naming_the_field(client, api_engine, extra, status, field):
    error = assert_error_shape(client.post("/search", json={"query": "aspirin", **extra}), status, "invalid_request")
    assert field == error["details"].get("field") or error["details"]["errors"][0]["loc"][:2] == ["body", field]
    with pytest.raises(InvalidRequest) as info:
        service.search(api_engine, SearchRequest(query="aspirin", **{k: tuple(v) if isinstance(v, list) else v
                                                                   for k, v in extra.items()}))
    assert info.value.details == {"field": field} and field in info.value.message
    if status == 400:
        assert error["message"] == info.value.message


def test_python_forms_of_the_options_are_normalised_or_refused(api_engine):
    checked = service.validate_request(api_engine, SearchRequest("x", facets=("YEAR", Facet.KB, "year")))
    assert checked.facets == ("year", "kb")
    assert service.validate_request(api_engine, SearchRequest("x", facets="kb")).facets == ("kb",)
    for field, value, message in (("diversity", True, "diversity must be a number, got bool"),
                                  ("recency", "30", "recency must be a number, got str"),
                                  ("max_per_document", 2.0, "max_per_document must be an integer, got float"),
                                  ("facets", [3], "facets must be a list of names, got int")):
        with pytest.raises(InvalidRequest) as info:
            service.validate_request(api_engine, SearchRequest("x", **{field: value}))
        assert info.value.message == message and info.value.details == {"field": field}

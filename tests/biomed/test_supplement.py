"""supplement_entity_anchored_hits: registry lookup, scoped ANN, limit and the rerank formula."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.retrieve.fusion import sparse_overlap_score
from eagle_rag.types import QueryRetrievalIntent, SearchRequest
from eagle_rag_biomed.supplement import (
    collections_for_intent,
    rerank_entity_hits,
    supplement_entity_anchored_hits,
    supplement_limit,
)
from tests.biomed.query_support import FakeRegistry, FakeVectors, analysis, context, decisions, hit

pytestmark = pytest.mark.unit

DRUG = QueryRetrievalIntent("drug_entity", (), (), True)


@pytest.mark.parametrize(("n_docs", "recall_top_k", "expected"), [
    (0, 20, 8), (1, 20, 8), (2, 20, 8), (3, 20, 12), (5, 20, 20), (50, 20, 20), (3, 10, 10),
])
def test_limit_formula(n_docs: int, recall_top_k: int, expected: int) -> None:
    # min(recall_top_k, max(n_docs * 4, 8))
    assert supplement_limit(recall_top_k, n_docs) == min(recall_top_k, max(n_docs * 4, 8)) == expected


def test_collections_for_intent() -> None:
    assert collections_for_intent(QueryRetrievalIntent("chemical")) == [("eagle_chemical", "molformer")]
    assert collections_for_intent(DRUG) == [("eagle_text_biomed", "pubmedbert"), ("eagle_chemical", "molformer")]
    regulatory = QueryRetrievalIntent("regulatory", ("eagle_chemical",))
    assert collections_for_intent(regulatory) == [("eagle_text_biomed", "pubmedbert")]


def test_rerank_formula_entity_times_two_plus_lexical_plus_tenth_of_dense() -> None:
    query = "imatinib dosage"
    a = hit("a", "imatinib dosage is 400 mg", score=0.5, meta={"primary_drugs": "imatinib"})
    b = hit("b", "dosage of nilotinib", score=0.9, path="Nilotinib label")
    c = hit("c", "imatinib", score=0.2, path="label_imatinib.md")
    out = rerank_entity_hits(query, [b, c, a], ["imatinib"])
    expected = {
        "a": 2.0 * 1.0 + sparse_overlap_score(query, a.node.text, ["imatinib"]) + 0.1 * 0.5,
        "b": 2.0 * 0.0 + sparse_overlap_score(query, b.node.text, ["imatinib"]) + 0.1 * 0.9,
        "c": 2.0 * 0.5 + sparse_overlap_score(query, c.node.text, ["imatinib"]) + 0.1 * 0.2,
    }
    assert [n.node_id for n in out] == ["a", "c", "b"]
    assert {n.node_id: n.score for n in out} == pytest.approx(expected)
    assert out[0].trail[-1].detail["entity"] == 1.0


def test_scoped_ann_per_collection(tmp_path: Path) -> None:
    registry = FakeRegistry(names={"d-imatinib": "Imatinib (Gleevec) label", "d-other": "Warfarin label",
                                   "c-imatinib": "Imatinib compound"})
    vectors = FakeVectors({
        "eagle_text_biomed": [hit("t1", "imatinib 400 mg", 0.7, doc="d-imatinib"),
                              hit("t2", "warfarin", 0.9, doc="d-other")],
        "eagle_chemical": [hit("c1", "imatinib SMILES", 0.6, doc="c-imatinib", collection="eagle_chemical")],
    })
    ctx = context(tmp_path, services={"registry": registry, "vectors": vectors})
    out = supplement_entity_anchored_hits(ctx, analysis("imatinib dosage", DRUG), SearchRequest("imatinib dosage"))
    assert [n.node_id for n in out] == ["t1", "c1"]  # d-other is outside the scope
    assert registry.lookups == [(("imatinib",), None, "biomed")]
    searched = [(c, k, f.document_ids) for c, k, f in vectors.searches]  # type: ignore[union-attr]
    assert searched == [("eagle_text_biomed", 8, ("c-imatinib", "d-imatinib")),
                        ("eagle_chemical", 8, ("c-imatinib", "d-imatinib"))]
    assert {d.data["stage"] for d in decisions(ctx, "retrieve_plan")} == {"supplement"}


def test_request_scope_is_kept(tmp_path: Path) -> None:
    registry = FakeRegistry(names={"d1": "imatinib a", "d2": "imatinib b"})
    vectors = FakeVectors({"eagle_text_biomed": [hit("t1", doc="d1"), hit("t2", doc="d2")]})
    ctx = context(tmp_path, services={"registry": registry, "vectors": vectors})
    request = SearchRequest("imatinib", kb_names=("kb1",), document_ids=("d2",))
    out = supplement_entity_anchored_hits(ctx, analysis("imatinib", DRUG), request)
    assert [n.node_id for n in out] == ["t2"]
    assert registry.lookups[0][1] == "kb1"
    assert vectors.searches[0][2].kb_names == ("kb1",)  # type: ignore[union-attr]


def test_no_terms_or_no_documents_give_nothing(tmp_path: Path) -> None:
    ctx = context(tmp_path, services={"registry": FakeRegistry(), "vectors": FakeVectors()})
    assert supplement_entity_anchored_hits(ctx, analysis("sample size", DRUG), SearchRequest("sample size")) == []
    assert supplement_entity_anchored_hits(ctx, analysis("imatinib", DRUG), SearchRequest("imatinib")) == []
    assert "no document named after imatinib" in decisions(ctx, "retrieve_plan")[-1].summary

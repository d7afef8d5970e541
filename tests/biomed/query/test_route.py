"""BiomedQueryRouteClassifier.route: the decision tree, and apply_scope_aware_union."""

from __future__ import annotations

import pytest

from eagle_rag.encoders import EncoderRegistry
from eagle_rag.types import SearchRequest
from eagle_rag_biomed.query.route import BiomedQueryRouteClassifier, CollectionCounts
from eagle_rag_biomed.query.scope import apply_scope_aware_union, scope_filter
from tests.biomed.query_support import FakeRegistry, FakeVectors, hit, registry

pytestmark = pytest.mark.unit


def plans(decision: object) -> list[tuple[str, str]]:
    return [(p.collection, p.encoder) for p in decision.plans]  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def reg() -> EncoderRegistry:
    return registry()


def test_abstains_outside_the_biomed_namespace(reg: EncoderRegistry) -> None:
    assert BiomedQueryRouteClassifier(reg).route("imatinib dosage", "default") is None


def test_chemical_task_routes_to_the_chemical_collection_only(reg: EncoderRegistry) -> None:
    decision = BiomedQueryRouteClassifier(reg).route("CC(=O)Oc1ccccc1C(=O)O", "biomed")
    assert plans(decision) == [("eagle_chemical", "molformer")]
    assert decision.classifier == "biomed" and "workflow=chemical" in decision.reason
    assert dict(decision.retrieval_hints) == {}  # no named entity: parent documents stay on


def test_chemical_word_without_a_structure_searches_the_text_collection_too(reg: EncoderRegistry) -> None:
    # "ligand" makes the workflow chemical; with no SMILES the claim is as likely a literature question
    decision = BiomedQueryRouteClassifier(reg).route("CCL19 is a ligand for CCR7.", "biomed")
    assert plans(decision) == [("eagle_chemical", "molformer"), ("eagle_text_biomed", "pubmedbert")]
    assert [p.reason for p in decision.plans] == ["chemical_task", "chemical_text"]
    with_smiles = BiomedQueryRouteClassifier(reg).route("ligand CC(=O)Oc1ccccc1C(=O)O", "biomed")
    assert plans(with_smiles) == [("eagle_chemical", "molformer")]


def test_text_plan_with_dual_search_options(reg: EncoderRegistry) -> None:
    classifier = BiomedQueryRouteClassifier(reg, medcpt_dual_search=True, default_dual_text_search=True,
                                            recall_top_k=33)
    decision = classifier.route("sample size of clinical trials", "biomed")
    assert plans(decision) == [("eagle_text_biomed", "pubmedbert"), ("eagle_text_medcpt", "medcpt-query"),
                               ("eagle_text", "bge-small")]
    assert {p.top_k for p in decision.plans} == {33}


def test_general_text_collection_is_searched_when_it_holds_chunks(reg: EncoderRegistry) -> None:
    decision = BiomedQueryRouteClassifier(reg, count=lambda c: 5 if c == "eagle_text" else 0).route(
        "sample size of clinical trials", "biomed")
    assert plans(decision) == [("eagle_text_biomed", "pubmedbert"), ("eagle_text", "bge-small")]


def test_the_general_collection_searched_for_its_rows_gets_the_side_weight(reg: EncoderRegistry) -> None:
    holds_rows = BiomedQueryRouteClassifier(reg, count=lambda c: 5 if c == "eagle_text" else 0,
                                            general_text_weight=0.7).route("sample size of clinical trials", "biomed")
    assert [(p.collection, p.reason, p.weight) for p in holds_rows.plans] == [
        ("eagle_text_biomed", "biomed_text", 1.0), ("eagle_text", "general_text_present", 0.7)]
    # asked for by default_dual_text_search, the general collection is a routed collection: weight 1
    asked = BiomedQueryRouteClassifier(reg, count=lambda c: 5, default_dual_text_search=True,
                                       general_text_weight=0.7).route("sample size of clinical trials", "biomed")
    assert [(p.collection, p.weight) for p in asked.plans] == [("eagle_text_biomed", 1.0), ("eagle_text", 1.0)]


def test_drugs_add_the_chemical_plan_and_switch_parent_documents_off(reg: EncoderRegistry) -> None:
    decision = BiomedQueryRouteClassifier(reg).route("imatinib adverse effects", "biomed")
    assert plans(decision) == [("eagle_text_biomed", "pubmedbert"), ("eagle_chemical", "molformer")]
    assert decision.retrieval_hints["parent_doc_retrieval"] is False


def test_entity_with_related_drugs_adds_the_chemical_plan(reg: EncoderRegistry) -> None:
    decision = BiomedQueryRouteClassifier(reg).route("EGFR T790M resistance", "biomed")
    assert ("eagle_chemical", "molformer") in plans(decision)
    assert "entity_related_drugs" in decision.reason


def test_regulatory_suppresses_the_chemical_collection(reg: EncoderRegistry) -> None:
    decision = BiomedQueryRouteClassifier(reg).route("imatinib prescribing information", "biomed")
    assert plans(decision) == [("eagle_text_biomed", "pubmedbert")]
    assert "suppressed=eagle_chemical" in decision.reason


def test_image_collections_only_when_they_hold_vectors(reg: EncoderRegistry) -> None:
    empty = BiomedQueryRouteClassifier(reg).route("chest CT of a lung nodule", "biomed")
    assert "eagle_medical_radiology" not in [c for c, _ in plans(empty)]
    full = BiomedQueryRouteClassifier(reg, count=lambda c: 3).route("chest CT and H&E biopsy", "biomed")
    assert ("eagle_medical_radiology", "medimageinsight") in plans(full)
    assert ("eagle_medical_pathology", "uni2") in plans(full)


def test_visual_mode_and_combination_add_the_core_visual_collection(reg: EncoderRegistry) -> None:
    classifier = BiomedQueryRouteClassifier(reg, count=lambda c: 1)
    assert ("eagle_visual", "general-visual") in plans(classifier.route("a figure", "biomed", has_image=True))
    assert ("eagle_visual", "general-visual") in plans(classifier.route("dabrafenib plus trametinib", "biomed"))
    assert ("eagle_visual", "general-visual") not in plans(classifier.route("dabrafenib", "biomed"))


def test_exploratory_collections_are_appended_and_unknown_ones_skipped(reg: EncoderRegistry) -> None:
    classifier = BiomedQueryRouteClassifier(reg, exploratory=("eagle_text_medcpt", "no_such_collection"))
    last = plans(classifier.route("sample size of clinical trials", "biomed"))[-1]
    assert last == ("eagle_text_medcpt", "medcpt-query")


def test_cjk_query_uses_the_multilingual_collection(reg: EncoderRegistry) -> None:
    assert plans(BiomedQueryRouteClassifier(reg).route("二甲双胍 不良反应", "biomed")) == [
        ("eagle_text_multilingual", "e5-multilingual")]
    mixed = plans(BiomedQueryRouteClassifier(reg).route("EGFR 突变", "biomed"))
    assert mixed[0] == ("eagle_text_biomed", "pubmedbert") and ("eagle_text_multilingual", "e5-multilingual") in mixed


def test_no_registered_collection_means_no_decision() -> None:
    assert BiomedQueryRouteClassifier(EncoderRegistry()).route("imatinib", "biomed") is None


def test_collection_presence_is_asked_with_has_rows_and_cached() -> None:
    class Counting(FakeVectors):
        def count(self, collection: str, flt: object = None) -> int:
            raise AssertionError("routing must not scan a collection with count(*)")

    vectors = Counting(counts={"eagle_text": 4, "empty": 0})
    vectors.has_rows = lambda collection, flt=None: vectors.counts[collection] > 0  # type: ignore[method-assign]
    counts = CollectionCounts(vectors)
    assert counts("eagle_text") == 1 and counts("empty") == 0 and counts("missing") == 0
    vectors.counts["empty"] = 9
    assert counts("empty") == 0  # within the TTL
    assert CollectionCounts(vectors)("empty") == 1


# ----------------------------------------------------------------------------- scope routing

def test_scope_filter_resolves_tags() -> None:
    registry_ = FakeRegistry(tags={"onc": {"d1", "d2"}})
    flt = scope_filter(SearchRequest("q", tags=("onc",), document_ids=("d2", "d3")), registry_)
    assert flt is not None and flt.document_ids == ("d2",)
    assert scope_filter(SearchRequest("q"), registry_) is None
    assert scope_filter(SearchRequest("q", tags=("none",)), registry_) is None


def test_document_scope_adds_the_collections_holding_the_documents(reg: EncoderRegistry) -> None:
    decision = BiomedQueryRouteClassifier(reg).route("sample size of clinical trials", "biomed")
    vectors = FakeVectors({"eagle_chemical": [hit("c1", doc="cmp-1", collection="eagle_chemical")],
                           "eagle_text_biomed": [hit("t1", doc="abs-1")]})
    request = SearchRequest("sample size of clinical trials", document_ids=("cmp-1",))
    labels = {"eagle_chemical": "molformer"}
    widened, added = apply_scope_aware_union(decision, request, reg, vectors, query_labels=labels)
    assert added == ["eagle_chemical"]
    assert plans(widened)[-1] == ("eagle_chemical", "molformer") and widened.plans[-1].reason == "scope_union"
    assert "scope_union=eagle_chemical" in widened.reason


def test_kb_scope_widens_only_when_the_route_holds_nothing(reg: EncoderRegistry) -> None:
    decision = BiomedQueryRouteClassifier(reg).route("sample size of clinical trials", "biomed")
    request = SearchRequest("sample size of clinical trials", kb_names=("kb1",))
    both = FakeVectors({"eagle_text_biomed": [hit("t1")], "eagle_text_multilingual": [hit("m1")]})
    assert apply_scope_aware_union(decision, request, reg, both)[1] == []
    only_other = FakeVectors({"eagle_text_multilingual": [hit("m1")]})
    assert apply_scope_aware_union(decision, request, reg, only_other)[1] == ["eagle_text_multilingual"]


def test_scope_union_keeps_suppressed_collections_out(reg: EncoderRegistry) -> None:
    decision = BiomedQueryRouteClassifier(reg).route("imatinib prescribing information", "biomed")
    vectors = FakeVectors({"eagle_chemical": [hit("c1", doc="cmp-1")]})
    _, added = apply_scope_aware_union(decision, SearchRequest("q", document_ids=("cmp-1",)), reg, vectors,
                                       suppressed=("eagle_chemical",))
    assert added == []


def test_unscoped_requests_are_unchanged(reg: EncoderRegistry) -> None:
    decision = BiomedQueryRouteClassifier(reg).route("sample size of clinical trials", "biomed")
    request = SearchRequest("sample size of clinical trials")
    assert apply_scope_aware_union(decision, request, reg, FakeVectors()) == (decision, [])

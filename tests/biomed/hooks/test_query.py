"""The biomed query hooks: abstention outside the namespace, dense expansion, injection, assembly."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.types import CollectionQueryPlan, QueryRetrievalIntent, SearchMode, SearchRequest
from eagle_rag_biomed.hooks import query as rh
from eagle_rag_biomed.ontology import expand_query_for_dense_retrieval
from eagle_rag_biomed.query.analysis import ANALYSIS_KEY, RequestAnalyses, analysis_for, analyze_query
from eagle_rag_biomed.query.expand import dense_suffix_on
from tests.biomed.query_support import context, decisions, hit, request

pytestmark = pytest.mark.unit

PUBMEDBERT = CollectionQueryPlan("eagle_text_biomed", "pubmedbert")
CHEMICAL = CollectionQueryPlan("eagle_chemical", "molformer")


def test_every_hook_abstains_outside_the_biomed_namespace(tmp_path: Path) -> None:
    ctx = context(tmp_path, namespace="default")
    request = SearchRequest("imatinib dosage")
    nodes = [hit("a")]
    assert rh.biomed_query_assemble(ctx, request) is None
    assert rh.biomed_classify_query(ctx, request, "imatinib dosage") is None
    assert rh.biomed_dense_expand(ctx, "imatinib dosage", None) is None
    assert rh.biomed_rerank_plan(ctx, "imatinib dosage", PUBMEDBERT, nodes, request) is None
    assert rh.biomed_retrieve_supplement(ctx, "imatinib dosage", request, [PUBMEDBERT]) is None
    assert rh.biomed_rrf_post_merge(ctx, "imatinib dosage", nodes, nodes, request) is None
    assert rh.biomed_post_rrf_rerank(ctx, "imatinib dosage", nodes, 5, request) is None
    assert ANALYSIS_KEY not in ctx.extra and decisions(ctx) == []


def test_dense_expand_reads_the_analysis_and_suffixes_pubmedbert_only(tmp_path: Path) -> None:
    ctx = context(tmp_path, options={"stages": {"dense_suffix": True}})
    query = "Gleevec dosage warnings"
    request_wide = rh.biomed_dense_expand(ctx, query, None)
    intent = analysis_for(ctx, query).intent
    assert isinstance(ctx.extra[ANALYSIS_KEY], RequestAnalyses)
    assert isinstance(intent, QueryRetrievalIntent) and intent.workflow == "drug_entity"
    assert request_wide is not None and request_wide.dense_query == query and request_wide.intent == intent
    assert request_wide.sparse_terms == ("imatinib", "warnings", "dosage")
    dense = rh.biomed_dense_expand(ctx, query, PUBMEDBERT)
    assert dense is not None and dense.dense_query == expand_query_for_dense_retrieval(query)
    assert dense.dense_query.startswith(query + " [biomed entities: ")
    assert dense.sparse_terms == request_wide.sparse_terms
    other = rh.biomed_dense_expand(ctx, query, CHEMICAL)
    assert other is not None and other.dense_query == query


def test_sparse_terms_turn_underscores_into_spaces() -> None:
    analysis = analyze_query("imatinib indications")
    assert analysis.section_cues == ("indications_and_usage",)
    assert analysis.sparse_terms == ("imatinib", "indications and usage")


def test_dense_suffix_can_be_switched_off(tmp_path: Path) -> None:
    ctx = context(tmp_path, options={"stages": {"dense_suffix": "false"}})
    assert rh.biomed_dense_expand(ctx, "Gleevec dosage", PUBMEDBERT).dense_query == "Gleevec dosage"  # type: ignore[union-attr]


def test_dense_suffix_auto_needs_a_real_pubmedbert(tmp_path: Path) -> None:
    ctx = context(tmp_path)  # deterministic registry: model_ref is the bundled bge-small stand-in
    assert ctx.services.encoders.spec("pubmedbert").model_ref == "bundled:bge-small-en-v1.5"
    assert not dense_suffix_on(ctx)
    from eagle_rag.encoders import default_registry
    from eagle_rag_biomed.encoders.labels import register_encoders
    from eagle_rag_biomed.options import parse_options

    configured = default_registry("deterministic")
    register_encoders(configured, parse_options({"encoder_mode": "deterministic"}),
                      environ={"EAGLE_BIOMED_PUBMEDBERT_MODEL": "/models/pubmedbert"})
    ctx.services.encoders = configured
    assert dense_suffix_on(ctx)


def test_post_merge_injects_two_unseen_supplement_hits(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    merged = [hit("m1", score=0.03), hit("m2", score=0.02)]
    supplement = [hit("m1", score=2.5), hit("s1", score=2.0), hit("s2", score=1.5), hit("s3", score=1.0)]
    out = rh.biomed_rrf_post_merge(ctx, "imatinib dosage", merged, supplement, request())
    assert out is not None and [n.node_id for n in out] == ["s1", "s2", "m1", "m2"]
    assert [n.score for n in out[:2]] == [2.0 + 100.0, 1.5 + 100.0]
    assert decisions(ctx, "rrf_dedupe")[-1].data["injected"] == 2


def test_post_merge_needs_an_entity_intent_and_supplement_hits(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    assert rh.biomed_rrf_post_merge(ctx, "sample size of trials", [hit("m")], [hit("s")], request()) is None
    assert rh.biomed_rrf_post_merge(ctx, "imatinib", [hit("m")], [], request()) is None
    off = context(tmp_path, options={"stages": {"inject": False}})
    assert rh.biomed_rrf_post_merge(off, "imatinib", [hit("m")], [hit("s")], request()) is None


def test_rerank_stages_skip_the_plain_modes(tmp_path: Path) -> None:
    ctx, bm25 = context(tmp_path), request("imatinib", SearchMode.BM25)
    assert rh.biomed_rerank_plan(ctx, "imatinib", PUBMEDBERT, [hit("a")], bm25) is None
    assert rh.biomed_retrieve_supplement(ctx, "imatinib", bm25, [PUBMEDBERT]) is None
    assert rh.biomed_rrf_post_merge(ctx, "imatinib", [hit("m")], [hit("s")], bm25) is None


def test_assemble_adds_canonical_names_of_aliases(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    assert rh.biomed_query_assemble(ctx, SearchRequest("Gleevec dosage")) == "imatinib"
    assert rh.biomed_query_assemble(ctx, SearchRequest("imatinib dosage")) is None
    off = context(tmp_path, options={"stages": {"assemble": False}})
    assert rh.biomed_query_assemble(off, SearchRequest("Gleevec dosage")) is None


def test_classify_logs_the_route(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    decision = rh.biomed_classify_query(ctx, SearchRequest("imatinib dosage"), "imatinib dosage")
    assert decision is not None and [p.collection for p in decision.plans] == ["eagle_text_biomed", "eagle_chemical"]
    route = decisions(ctx, "route_query")[-1]
    assert route.plugin == "biomed" and route.data["workflow"] == "drug_entity"
    assert route.data["plans"] == ["eagle_text_biomed/pubmedbert", "eagle_chemical/molformer"]
    assert set(route.data["models"]) == {"pubmedbert", "molformer"}


@pytest.mark.parametrize("mode", [SearchMode.BM25, SearchMode.DENSE, SearchMode.HYBRID])
def test_chemical_plan_of_a_text_query_keeps_the_named_drugs_compounds_in_every_mode(tmp_path: Path,
                                                                                    mode: SearchMode) -> None:
    # with Tier-1 off too: an unrelated compound (a cheminformatics abstract) would otherwise be rank 1
    # of a one-hit list and enter the merged ranking near the top of every drug query
    ctx = context(tmp_path, options={"stages": {"tier1": False}})
    nodes = [hit("open-babel", "Open Babel converts SMILES between chemical formats"),
             hit("cmp-imatinib", "Imatinib mesylate, SMILES Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1")]
    out = rh.biomed_rerank_plan(ctx, "imatinib resistance in leukaemia", CHEMICAL, nodes, request(mode=mode))
    assert out is not None and [n.node_id for n in out] == ["cmp-imatinib"]
    # text plans: Tier-1 off
    assert rh.biomed_rerank_plan(ctx, "imatinib resistance", PUBMEDBERT, nodes, request(mode=mode)) is None

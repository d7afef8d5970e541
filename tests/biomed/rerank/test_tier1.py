"""Tier-1 biomed_rerank: domain-encoder collections only, the entity filter, cosine order, fuse mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.types import CollectionQueryPlan, QueryRetrievalIntent
from eagle_rag_biomed.rerank.tier1 import biomed_rerank, cosine_rerank, entity_filter
from tests.biomed.query_support import analysis, context, decisions, hit

pytestmark = pytest.mark.unit

PLAN = CollectionQueryPlan("eagle_text_biomed", "pubmedbert")
DRUG = QueryRetrievalIntent("drug_entity", (), (), True)
GENERAL = QueryRetrievalIntent("general", (), (), False)


def test_cosine_rerank_sorts_by_similarity(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    nodes = [hit("far", "warfarin anticoagulation INR"), hit("near", "imatinib dosage for leukemia"),
             hit("mid", "imatinib and warfarin")]
    ranked = cosine_rerank(ctx, nodes, "imatinib dosage leukemia", "pubmedbert")
    assert [n.node_id for n in ranked] == ["near", "mid", "far"]
    assert ranked[0].trail[-1].stage == "cosine_rerank" and ranked[0].trail[-1].rank == 1
    assert ranked[0].score >= ranked[1].score >= ranked[2].score


def test_other_collections_abstain(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    plan = CollectionQueryPlan("eagle_text_medcpt", "medcpt-query")
    assert biomed_rerank(ctx, analysis("q", GENERAL, ()), plan, [hit("a")]) is None
    assert biomed_rerank(ctx, analysis("q", GENERAL, ()), PLAN, []) is None


def test_entity_filter_keeps_entity_hits_and_demotes_the_rest() -> None:
    nodes = [hit("x", "about warfarin"), hit("meta", meta={"primary_drugs": "imatinib"}),
             hit("text", "imatinib 400 mg"), hit("path", path="Imatinib > Dosage")]
    kept, demoted = entity_filter(nodes, ["imatinib"])
    assert [n.node_id for n in kept] == ["meta", "text", "path"] and [n.node_id for n in demoted] == ["x"]
    # nothing kept: the filter is not applied
    assert entity_filter(nodes[:1], ["imatinib"]) == (nodes[:1], [])


def test_biomed_rerank_filters_then_reranks(tmp_path: Path) -> None:
    ctx = context(tmp_path, options={"tier1": {"mode": "cosine"}})
    nodes = [hit("other", "warfarin dosage"), hit("imatinib-a", "imatinib"), hit("imatinib-b", "imatinib dosage")]
    out = biomed_rerank(ctx, analysis("imatinib dosage", DRUG, ("imatinib",)), PLAN, nodes)
    assert [n.node_id for n in out] == ["imatinib-b", "imatinib-a", "other"]
    decision = decisions(ctx, "biomed_rerank_t1")[-1]
    assert decision.data["kept"] == 2 and decision.data["demoted"] == 1 and decision.data["encoder"] == "pubmedbert"
    assert "deterministic" in decision.data["model"]


def test_no_filter_without_entity_requirement(tmp_path: Path) -> None:
    ctx = context(tmp_path, options={"tier1": {"mode": "cosine"}})
    nodes = [hit("other", "warfarin dosage"), hit("imatinib-a", "imatinib")]
    out = biomed_rerank(ctx, analysis("warfarin dosage", GENERAL, ("imatinib",)), PLAN, nodes)
    assert out is not None and out[0].node_id == "other"


def test_pool_limits_the_rerank(tmp_path: Path) -> None:
    ctx = context(tmp_path, options={"tier1": {"pool": 2, "mode": "cosine"}})
    nodes = [hit("a", "zzz"), hit("b", "imatinib"), hit("c", "imatinib imatinib")]
    out = biomed_rerank(ctx, analysis("imatinib", GENERAL, ()), PLAN, nodes)
    assert [n.node_id for n in out] == ["b", "a", "c"]  # c is beyond the pool and keeps its place


def test_fuse_mode_mixes_the_incoming_and_cosine_ranks(tmp_path: Path) -> None:
    ctx = context(tmp_path, options={"tier1": {"mode": "fuse"}})
    nodes = [hit("a", "zzz"), hit("b", "imatinib"), hit("c", "imatinib zzz")]
    out = biomed_rerank(ctx, analysis("imatinib", GENERAL, ()), PLAN, nodes)
    assert out is not None and out[0].trail[-1].stage == "rerank_t1_fuse"
    # cosine ranks: b 1, c 2, a 3.  b = 1/(60+2) + 1/(60+1); a = 1/(60+1) + 1/(60+3); c = 1/(60+3) + 1/(60+2)
    assert [n.node_id for n in out] == ["b", "a", "c"]
    assert [n.score for n in out] == pytest.approx([1 / 62 + 1 / 61, 1 / 61 + 1 / 63, 1 / 63 + 1 / 62])


def test_passage_vectors_are_cached(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    calls: list[int] = []
    encoder = ctx.services.encoders.get_encoder("pubmedbert")
    original = encoder.encode_passages

    def counting(texts: list[str]) -> list[list[float]]:
        calls.append(len(texts))
        return original(texts)

    encoder.encode_passages = counting  # type: ignore[method-assign]
    nodes = [hit("cache-a", "one text"), hit("cache-b", "two text")]
    cosine_rerank(ctx, nodes, "text", "pubmedbert")
    cosine_rerank(ctx, nodes, "other text", "pubmedbert")
    assert calls == [2]


def test_chemical_plan_of_a_text_query_keeps_the_named_drugs_compounds(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    plan = CollectionQueryPlan("eagle_chemical", "molformer", reason="drug_entities")
    nodes = [hit("other", "Caffeine. SMILES: Cn1cnc2c1c(=O)n(C)c(=O)n2C", collection="eagle_chemical"),
             hit("mine", "Imatinib. SMILES: ...", meta={"primary_drugs": "imatinib"}, collection="eagle_chemical")]
    out = biomed_rerank(ctx, analysis("imatinib dosage", DRUG, ("imatinib",)), plan, nodes)
    assert [n.node_id for n in out] == ["mine"]  # type: ignore[union-attr]
    assert biomed_rerank(ctx, analysis("warfarin dosage", DRUG, ("warfarin",)), plan, nodes[:1]) == []
    chemical = QueryRetrievalIntent("chemical", (), ("compound",), True)
    assert len(biomed_rerank(ctx, analysis("imatinib compound", chemical, ("imatinib",)), plan, nodes) or []) == 2

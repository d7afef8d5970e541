"""RRF, dedupe, injection and the alpha blend, pinned with the arithmetic written out."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eagle_rag.retrieve.fusion import (
    SUPPLEMENT_BOOST,
    dedupe_cross_collection,
    hybrid_fuse_dense_sparse,
    inject_supplement_candidates,
    is_injected,
    merge_plans,
    merge_rrf,
    sparse_overlap_score,
)
from eagle_rag.types import CollectionQueryPlan
from tests.conftest import node

pytestmark = pytest.mark.unit


def ids(nodes):
    return [n.node_id for n in nodes]


def test_rrf_arithmetic_k60_ranks_from_one():
    bm25 = [node("d1"), node("d2"), node("d3")]
    dense = [node("d3"), node("d1")]
    fused = merge_rrf([bm25, dense], k=60)
    scores = {n.node_id: n.score for n in fused}
    assert scores["d1"] == pytest.approx(1 / (60 + 1) + 1 / (60 + 2))
    assert scores["d3"] == pytest.approx(1 / (60 + 3) + 1 / (60 + 1))
    assert scores["d2"] == pytest.approx(1 / (60 + 2))
    assert ids(fused) == ["d1", "d3", "d2"]
    assert fused[0].trail[-1].stage == "rrf" and fused[0].trail[-1].rank == 1


def test_rrf_seed_example_chunk_found_by_both_channels_leads():
    # The hybrid seed: BM25 puts the GAPDH chunk first; dense puts a paraphrase first and the
    # catalogue chunk eighth. After RRF (k=60) the catalogue chunk is second.
    bm25 = [node("gapdh"), node("catalog"), node("x1")]
    dense = [node("para"), *[node(f"y{i}") for i in range(6)], node("catalog")]
    fused = merge_rrf([bm25, dense], k=60)
    assert fused[0].node_id == "catalog"  # 1/62 + 1/68 beats 1/61 alone
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 68)
    assert ids(fused)[1:3] == ["gapdh", "para"]


def test_rrf_weights_scale_each_list():
    fused = merge_rrf([[node("a")], [node("b"), node("a")]], k=60, weights=[2.0, 1.0])
    scores = {n.node_id: n.score for n in fused}
    assert scores["a"] == pytest.approx(2.0 / 61 + 1.0 / 62)
    assert scores["b"] == pytest.approx(1.0 / 61)


def test_a_side_collection_plan_weighs_its_list_by_the_plan_weight():
    # the routed collection ranks b1..b20; the side collection (weight 0.5) ranks g1 first
    routed = CollectionQueryPlan("eagle_text_biomed", "pubmedbert")
    side = CollectionQueryPlan("eagle_text", "bge-small", reason="general_text_present", weight=0.5)
    biomed = [node(f"b{i}") for i in range(1, 21)]
    general = [node("g1"), node("g2")]
    merged = merge_plans([routed, side], [biomed, general], k=60)
    scores = {n.node_id: n.score for n in merged}
    assert scores["g1"] == pytest.approx(0.5 / 61) and scores["b1"] == pytest.approx(1 / 61)
    # 0.5 / 61 = 1 / 122: g1 weighs as much as the routed list's rank (60 + 1) / 0.5 - 60 = 62, so
    # it comes after all 20 routed hits (1 / 80 > 1 / 122); with weight 1 it would be second
    assert ids(merged)[:20] == [f"b{i}" for i in range(1, 21)] and ids(merged)[20:] == ["g1", "g2"]
    equal = merge_plans([routed, CollectionQueryPlan("eagle_text", "bge-small")], [biomed, general], k=60)
    assert ids(equal)[:4] == ["b1", "g1", "b2", "g2"]
    with pytest.raises(ValueError, match="2 lists for 1 plans"):
        merge_plans([routed], [biomed, general])
    with pytest.raises(ValueError, match="positive"):
        CollectionQueryPlan("eagle_text", "bge-small", weight=0.0)


def test_empty_lists_contribute_nothing_and_single_list_passes_through():
    single = [node("a", 0.9), node("b", 0.5)]
    assert merge_rrf([[], single, []]) == single
    assert merge_rrf([[], []]) == []
    assert merge_rrf([]) == []


def test_duplicate_within_one_list_counts_once_at_best_rank():
    fused = merge_rrf([[node("a"), node("a"), node("b")], [node("b")]], k=60)
    scores = {n.node_id: n.score for n in fused}
    assert scores["a"] == pytest.approx(1 / 61)
    assert scores["b"] == pytest.approx(1 / 63 + 1 / 61)


def test_rrf_rejects_bad_k_and_weights():
    with pytest.raises(ValueError, match="k must be"):
        merge_rrf([[node("a")]], k=0)
    with pytest.raises(ValueError, match="weights"):
        merge_rrf([[node("a")], [node("b")]], weights=[1.0])


lists = st.lists(st.lists(st.sampled_from([f"d{i}" for i in range(12)]), max_size=8), max_size=4)


@given(lists)
def test_rrf_properties_order_independent_and_bounded(raw):
    data = [[node(x) for x in lst] for lst in raw]
    fused = merge_rrf(data, k=60)
    reversed_fused = merge_rrf(list(reversed(data)), k=60)
    non_empty = [lst for lst in data if lst]
    if len(non_empty) >= 2:
        a = {n.node_id: n.score for n in fused}
        b = {n.node_id: n.score for n in reversed_fused}
        assert a.keys() == b.keys()
        assert all(math.isclose(a[k], b[k]) for k in a)
        assert all(0 < s <= len(non_empty) / 61 + 1e-12 for s in a.values())
        assert [n.score for n in fused] == sorted((n.score for n in fused), reverse=True)
    all_ids = {x for lst in raw for x in lst}
    assert set(ids(fused)) == all_ids


def test_dedupe_cross_collection_keeps_better_ranked_copy():
    a1 = node("a-biomed", source="chunk-a")
    a2 = node("a-core", source="chunk-a")
    b = node("b", doc="doc1", path="Intro")
    b_copy = node("b2", doc="doc1", path="Intro")
    out = dedupe_cross_collection([a1, b, a2, b_copy])
    assert ids(out) == ["a-biomed", "b"]


def test_inject_supplement_adds_at_most_two_unseen_with_plus_100():
    merged = [node("m1", 0.03), node("m2", 0.02)]
    supplement = [node("m1", 5.0), node("s1", 2.5), node("s2", 1.0), node("s3", 0.5)]
    out = inject_supplement_candidates(merged, supplement, min_new=2)
    assert ids(out) == ["s1", "s2", "m1", "m2"]
    assert out[0].score == pytest.approx(2.5 + 100.0) and SUPPLEMENT_BOOST == 100.0
    assert out[1].score == pytest.approx(1.0 + 100.0)
    assert inject_supplement_candidates(merged, [], min_new=2) == merged
    assert [is_injected(n) for n in out] == [True, True, False, False]


def test_sparse_overlap_is_hits_over_terms():
    # terms: egfr, inhibitor, lung  (stemmed); text holds egfr and lung -> 2/3
    assert sparse_overlap_score("EGFR inhibitors lung", "EGFR mutation in lung cancer") == pytest.approx(2 / 3)
    assert sparse_overlap_score("", "anything") == 0.0


def test_alpha_blend_arithmetic():
    dense = [node("a", 0.8, text="egfr lung"), node("b", 0.6, text="weather")]
    sparse = [node("c", 7.0, text="egfr inhibitor")]
    out = hybrid_fuse_dense_sparse(dense, sparse, "egfr inhibitor", alpha=0.3)
    scores = {n.node_id: n.score for n in out}
    assert scores["a"] == pytest.approx(0.3 * 0.8 + 0.7 * (1 / 2))
    assert scores["b"] == pytest.approx(0.3 * 0.6 + 0.7 * 0.0)
    assert scores["c"] == pytest.approx(0.3 * 0.0 + 0.7 * 1.0)
    assert ids(out) == ["c", "a", "b"]
    with pytest.raises(ValueError):
        hybrid_fuse_dense_sparse(dense, sparse, "q", alpha=1.5)

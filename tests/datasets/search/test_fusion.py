"""Fusion of the lexical ranking with the semantic channel: the groups and the RRF arithmetic."""

from __future__ import annotations

import numpy as np
import pytest

from eagle_rag_datasets.search.fusion import LEXICAL_WEIGHT_CJK, RRF_K, fuse, fusion_weights, rrf
from eagle_rag_datasets.search.ranking import MatchKind, RankedHit, Tier
from eagle_rag_datasets.search.semantic import SemanticScores

pytestmark = pytest.mark.unit
IDS = [f"c{i}" for i in range(8)]


def hit(ordinal: int, tier: Tier, coverage: float = 1.0) -> RankedHit:
    return RankedHit(ordinal, IDS[ordinal], tier, coverage, coverage)


def test_rrf_pinned():
    assert RRF_K == 60
    # lexical weight 2, semantic weight 1, ranks from 1
    assert rrf([2, 1]) == pytest.approx(2 / (60 + 2) + 1 / (60 + 1))
    assert rrf([None, 3]) == pytest.approx(1 / (60 + 3))
    assert rrf([4, None]) == pytest.approx(2 / (60 + 4))
    assert rrf([None, None]) == 0.0


def test_groups_exact_then_full_then_fused():
    lexical = [hit(0, Tier.EXACT), hit(1, Tier.TEXT), hit(2, Tier.PARTIAL, 0.5), hit(3, Tier.PARTIAL, 0.5)]
    semantic = [(4, 0.95), (3, 0.90)]  # c4 only semantic; c3 also a partial match
    out = fuse(lexical, semantic, IDS, ranks={2: 7})
    assert [h.card_id for h in out] == ["c0", "c1", "c3", "c2", "c4"]
    # c3: partial rank 2, semantic rank 2 -> 2/62 + 1/62; c2: partial rank 1, semantic rank 7 -> 2/61 + 1/67;
    # c4: semantic rank 1 only -> 1/61
    fused = {h.card_id: h.fused for h in out}
    assert fused["c3"] == pytest.approx(2 / 62 + 1 / 62)
    assert fused["c2"] == pytest.approx(2 / 61 + 1 / 67)
    assert fused["c4"] == pytest.approx(1 / 61)
    assert [h.match for h in out] == [MatchKind.EXACT, MatchKind.LEXICAL, MatchKind.SEMANTIC, MatchKind.PARTIAL,
                                      MatchKind.SEMANTIC]


def test_a_named_card_leads_whatever_its_similarity():
    lexical = [hit(1, Tier.PARTIAL, 0.5)]
    out = fuse(lexical, [(2, 0.97), (1, 0.85)], IDS, named=frozenset({1}))
    assert [h.card_id for h in out] == ["c1", "c2"]


def test_equal_similarities_share_a_rank_so_file_order_never_matters():
    a = fuse([], [(5, 0.9), (6, 0.9)], IDS)
    b = fuse([], [(6, 0.9), (5, 0.9)], IDS)
    assert [h.card_id for h in a] == [h.card_id for h in b] == ["c5", "c6"]
    assert a[0].fused == a[1].fused == pytest.approx(1 / 61)


def test_semantic_ranks_count_strictly_more_similar_cards():
    scores = SemanticScores(np.array([0.5, 0.9, 0.7, 0.9], dtype=np.float32), floor=0.8)
    assert scores.ranked() == [(1, pytest.approx(0.9)), (3, pytest.approx(0.9))]
    assert scores.ranks([0, 2, 1]) == {0: 4, 2: 3, 1: 1}
    assert scores.ranks([2], allowed={0, 2}) == {2: 1}
    assert scores.best({0}) == pytest.approx(0.5) and scores.best(set()) == -1.0


def test_the_english_space_orders_the_cards_and_adds_matches_of_its_own():
    # e5 cosines (floor 0.8) and English cosines of four cards; the order is the RRF of both spaces' ranks:
    # c0: e5 rank 4, English rank 1: 1/64 + 1/61 = 0.03202; c1: 1 and 4: the same, tie by ordinal;
    # c2: 3 and 2: 1/63 + 1/62 = 0.03200; c3: 2 and 3: the same as c2
    cosine = np.array([0.5, 0.9, 0.7, 0.85], dtype=np.float32)
    english = np.array([0.80, 0.60, 0.70, 0.65], dtype=np.float32)
    order = 1 / (60 + np.array([4, 1, 3, 2])) + 1 / (60 + np.array([1, 4, 2, 3]))
    scores = SemanticScores(cosine, floor=0.8, order=order, english=english, english_floor=0.78, support_floor=0.68)
    # c0 reaches the English floor (0.80 >= 0.78), c1 and c3 the e5 floor; the similarity reported is e5's
    assert scores.ranked() == [(0, pytest.approx(0.5)), (1, pytest.approx(0.9)), (3, pytest.approx(0.85))]
    # with support, the English space's first three (c0, c2, c3) at 0.68 or more (c0, c2) join: c2 too
    assert [i for i, _ in scores.ranked(support=True)] == [0, 1, 2, 3]
    assert [i for i, _ in scores.ranked(allowed={1, 3}, support=True)] == [1, 3]  # c3 is English 2nd there, 0.65
    assert scores.ranks([0, 2, 1]) == {0: 1, 1: 1, 2: 3}
    assert scores.best() == pytest.approx(0.9)  # the completeness floors read e5's similarity
    assert [i for i, _ in scores.nearest(2)] == [0, 1]


def test_a_chinese_query_weighs_the_lexical_channel_less():
    assert fusion_weights("Chinese clinical NER corpus") == (2.0, 1.0)
    assert fusion_weights("英文医学缩写消歧数据集") == (LEXICAL_WEIGHT_CJK, 1.0) == (0.5, 1.0)
    # c1: partial rank 1, semantic rank 100 (below the floor); c2: semantic rank 1 only.
    # Chinese: c1 0.5/61 + 1/160 = 0.01445 < c2 1/61 = 0.01639; Latin: c1 2/61 + 1/160 = 0.03904 > c2
    lexical = [hit(1, Tier.PARTIAL, 0.5)]
    chinese = fuse(lexical, [(2, 0.4)], IDS, ranks={1: 100}, weights=(0.5, 1.0))
    assert [(h.card_id, round(h.fused, 5)) for h in chinese] == [("c2", 0.01639), ("c1", 0.01445)]
    latin = fuse([hit(1, Tier.PARTIAL, 0.5)], [(2, 0.4)], IDS, ranks={1: 100})
    assert [(h.card_id, round(h.fused, 5)) for h in latin] == [("c1", 0.03904), ("c2", 0.01639)]

"""Core Tier-2 (mode full): cross-encoder rank fused with the incoming rank by weighted RRF."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from eagle_rag.context import HookContext, Services
from eagle_rag.kernel.audit import PluginAudit
from eagle_rag.retrieve.cross_rerank import cross_encoder_rerank
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchMode
from tests.conftest import node
from tests.profiles import GENERAL

pytestmark = pytest.mark.unit


class StubCE:
    name = "stub"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def score_pairs(self, query, passages):
        self.asked.extend(passages)
        return [{"a": 0.1, "b": 5.0, "c": 1.0, "英文": 9.0}[p] for p in passages]


class StubRegistry:
    def __init__(self, languages=frozenset()) -> None:
        self.languages = frozenset(languages)
        self.ce = StubCE()

    def spec(self, label):
        assert label == "minilm-rerank"
        return SimpleNamespace(languages=self.languages)

    def cross_encoder(self, label):
        assert label == "minilm-rerank"
        return self.ce


def ctx(weight=1.0, pool=3, languages=frozenset()):
    # the cross-encoder alone: the multilingual e5 signal is off (tests/retrieve/test_multilingual_rerank.py)
    settings = load_settings(environ=GENERAL, overrides={"search": {"cross_encoder_weight": weight,
                                                                    "cross_encoder_pool": pool,
                                                                    "multilingual_rerank_weight": 0.0}})
    c = HookContext("default", settings, PluginAudit(), services=Services(encoders=StubRegistry(languages)))
    return c


def test_only_full_mode_reranks():
    nodes = [node("a"), node("b"), node("c")]
    assert cross_encoder_rerank(ctx(), "q", nodes, SearchMode.HYBRID) is None
    assert cross_encoder_rerank(ctx(), "q", [], SearchMode.FULL) is None


def test_weighted_rrf_arithmetic():
    nodes = [node("a"), node("b"), node("c"), node("d")]
    out = cross_encoder_rerank(ctx(weight=2.0, pool=3), "q", nodes, SearchMode.FULL)
    scores = {n.node_id: n.score for n in out}
    # incoming ranks a1 b2 c3; cross-encoder ranks b1 c2 a3
    assert scores["b"] == pytest.approx(1 / 62 + 2 / 61)
    assert scores["c"] == pytest.approx(1 / 63 + 2 / 62)
    assert scores["a"] == pytest.approx(1 / 61 + 2 / 63)
    # a: 0.048139 > c: 0.048131; d was outside the pool and keeps its place after it
    assert [n.node_id for n in out] == ["b", "a", "c", "d"]


def test_the_rank_of_the_cross_encoder_starts_at_1():
    out = cross_encoder_rerank(ctx(), "q", [node("a"), node("b"), node("c")], SearchMode.FULL)
    ce = {n.node_id: [e for e in n.trail if e.stage == "cross_encoder"] for n in out}
    assert {k: [(e.rank, e.score) for e in v] for k, v in ce.items()} == {
        "b": [(1, 5.0)], "c": [(2, 1.0)], "a": [(3, 0.1)]}


def test_a_chinese_query_is_not_sent_to_an_english_cross_encoder():
    c = ctx(languages={"en"})
    nodes = [node("a"), node("b"), node("c")]
    out = cross_encoder_rerank(c, "二甲双胍 不良反应", nodes, SearchMode.FULL)
    assert [n.node_id for n in out] == ["a", "b", "c"] and c.services.encoders.ce.asked == []
    assert [(e.stage, e.rank, e.skipped) for n in out for e in n.trail] == [
        ("cross_encoder", 1, "language"), ("cross_encoder", 2, "language"), ("cross_encoder", 3, "language")]


def test_a_mixed_query_counts_as_chinese_by_the_routers_script_ratio():
    # one CJK letter among 16 letters: ratio 1/16 = 0.0625 >= 0.05, Chinese for routing and reranking
    c = ctx(languages={"en"})
    cross_encoder_rerank(c, "metformin dosage 药", [node("a"), node("b")], SearchMode.FULL)
    assert c.services.encoders.ce.asked == []
    # one CJK letter among 22 letters: ratio 1/22 = 0.045 < 0.05, English
    cross_encoder_rerank(c, "metformin dosage adults 药", [node("a"), node("b")], SearchMode.FULL)
    assert c.services.encoders.ce.asked == ["a", "b"]


def test_passages_outside_the_models_languages_keep_their_incoming_rank_only():
    c = ctx(languages={"en"})
    nodes = [node("x", text="英文"), node("b"), node("c")]
    out = cross_encoder_rerank(c, "q", nodes, SearchMode.FULL)
    assert c.services.encoders.ce.asked == ["b", "c"]
    scores = {n.node_id: n.score for n in out}
    # x: incoming rank 1 only; b: incoming 2, cross-encoder 1; c: incoming 3, cross-encoder 2
    assert scores["x"] == pytest.approx(1 / 61)
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 62)
    [skip] = [e for e in next(n for n in out if n.node_id == "x").trail if e.stage == "cross_encoder"]
    assert skip.skipped == "language" and skip.rank == 3


def test_a_model_without_declared_languages_scores_every_text():
    c = ctx()
    cross_encoder_rerank(c, "二甲双胍", [node("x", text="英文"), node("b")], SearchMode.FULL)
    assert c.services.encoders.ce.asked == ["英文", "b"]

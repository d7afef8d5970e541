"""Core Tier-2 (mode full): cross-encoder rank fused with the incoming rank by weighted RRF."""

from __future__ import annotations

import pytest

from eagle_rag.audit import PluginAudit
from eagle_rag.context import HookContext, Services
from eagle_rag.retrieve.cross_rerank import cross_encoder_rerank
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchMode
from tests.conftest import node

pytestmark = pytest.mark.unit


class StubCE:
    name = "stub"

    def score_pairs(self, query, passages):
        return [{"a": 0.1, "b": 5.0, "c": 1.0}[p] for p in passages]


class StubRegistry:
    def cross_encoder(self, label):
        assert label == "minilm-rerank"
        return StubCE()


def ctx(mode, weight=1.0, pool=3):
    settings = load_settings(environ={}, overrides={"search": {"cross_encoder_weight": weight,
                                                               "cross_encoder_pool": pool}})
    c = HookContext("default", settings, PluginAudit(), services=Services(encoders=StubRegistry()))
    c.extra["mode"] = mode
    return c


def test_only_full_mode_reranks():
    nodes = [node("a"), node("b"), node("c")]
    assert cross_encoder_rerank(ctx(SearchMode.HYBRID), "q", nodes) is None
    assert cross_encoder_rerank(ctx(SearchMode.FULL), "q", []) is None


def test_weighted_rrf_arithmetic():
    nodes = [node("a"), node("b"), node("c"), node("d")]
    out = cross_encoder_rerank(ctx(SearchMode.FULL, weight=2.0, pool=3), "q", nodes)
    scores = {n.node_id: n.score for n in out}
    # incoming ranks a1 b2 c3; cross-encoder ranks b1 c2 a3
    assert scores["b"] == pytest.approx(1 / 62 + 2 / 61)
    assert scores["c"] == pytest.approx(1 / 63 + 2 / 62)
    assert scores["a"] == pytest.approx(1 / 61 + 2 / 63)
    # a: 0.048139 > c: 0.048131; d was outside the pool and keeps its place after it
    assert [n.node_id for n in out] == ["b", "a", "c", "d"]

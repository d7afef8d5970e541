"""Core Tier-2, mode full: the multilingual e5 cosine ranks what the English cross-encoder may not read."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from eagle_rag.context import HookContext, Services
from eagle_rag.encoders.registry import CollectionProfile
from eagle_rag.hookspecs import hookimpl
from eagle_rag.kernel.audit import PluginAudit
from eagle_rag.kernel.plugin_manager import build_plugin_manager
from eagle_rag.protocols import ScoredId
from eagle_rag.retrieve.channels import embed_query
from eagle_rag.retrieve.cross_rerank import cross_encoder_rerank
from eagle_rag.settings import load_settings
from eagle_rag.types import NodeWithScore, SearchMode
from tests.conftest import node
from tests.profiles import GENERAL

pytestmark = pytest.mark.unit

ZH = "二甲双胍 不良反应"
QUERY_VECTOR = [1.0, 0.0]


class StubCE:
    def __init__(self) -> None:
        self.asked: list[str] = []

    def score_pairs(self, query, passages):
        self.asked.extend(passages)
        return [{"b": 5.0, "c": 1.0}[p] for p in passages]


class StubRegistry:
    """minilm-rerank reads English, e5-multilingual English and Chinese (as the bundled models)."""

    def __init__(self) -> None:
        self.ce = StubCE()
        self.languages = {"minilm-rerank": frozenset({"en"}), "e5-multilingual": frozenset({"en", "zh"})}

    def spec(self, label):
        return SimpleNamespace(languages=self.languages[label])

    def cross_encoder(self, label):
        assert label == "minilm-rerank"
        return self.ce

    def collection(self, name):
        encoder = {"eagle_text_multilingual": "e5-multilingual", "eagle_text": "bge-small"}[name]
        return CollectionProfile(name, 2, encoder)


class StubVectors:
    """Stored e5 cosines of the multilingual collection's chunks (their vectors' dot with QUERY_VECTOR)."""

    def __init__(self, cosines: dict[str, float]) -> None:
        self.cosines = cosines
        self.searches: list[tuple[str, tuple[str, ...]]] = []

    def has_collection(self, name):
        return True

    def search(self, collection, vector, top_k, flt):
        assert collection == "eagle_text_multilingual" and vector == QUERY_VECTOR
        self.searches.append((collection, flt.document_ids))
        hits = [ScoredId(i, c, node(i).node) for i, c in self.cosines.items() if f"doc-{i}" in flt.document_ids]
        return sorted(hits, key=lambda h: -h.score)[:top_k]


class Embedder:
    """EMBED_TEXT for e5-multilingual: the query vector, and 2-d passage vectors for texts read here."""

    def __init__(self, passages: dict[str, list[float]]) -> None:
        self.passages = passages
        self.asked: list[tuple[str, str]] = []

    @hookimpl(tryfirst=True)
    def eagle_embed_text(self, encoder, texts, kind):
        assert encoder == "e5-multilingual"
        self.asked.extend((kind, t) for t in texts)
        return [QUERY_VECTOR if kind == "query" else self.passages[t] for t in texts]


def ctx(weight, stored=None, passages=None, pool=3):
    settings = load_settings(environ=GENERAL, overrides={"search": {"multilingual_rerank_weight": weight,
                                                                    "cross_encoder_pool": pool}})
    embedder = Embedder(passages or {})
    pm = build_plugin_manager(settings, [("embedder", embedder)], environ={})
    services = Services(pm=pm, encoders=StubRegistry(), vectors=StubVectors(stored or {}))
    return HookContext("default", settings, PluginAudit(), services=services), embedder


def zh_node(node_id: str) -> NodeWithScore:
    base = node(node_id, text=f"中文段落 {node_id}")
    return NodeWithScore(node=base.node, score=0.0, collection="eagle_text_multilingual")


def stages(n: NodeWithScore) -> dict[str, tuple[int, float, str]]:
    return {e.stage: (e.rank, round(e.score, 6), e.skipped) for e in n.trail}


def test_on_by_default_with_the_weight_tuned_on_kuake_qtr():
    assert load_settings(environ=GENERAL).search.multilingual_rerank_weight == 1.0


def test_weight_0_turns_it_off_a_chinese_query_keeps_its_incoming_order():
    c, embedder = ctx(0.0, stored={"a": 0.2, "b": 0.9, "c": 0.5})
    out = cross_encoder_rerank(c, ZH, [zh_node("a"), zh_node("b"), zh_node("c")], SearchMode.FULL)
    assert [n.node_id for n in out] == ["a", "b", "c"] and embedder.asked == []
    assert all("multilingual_cosine" not in stages(n) for n in out)


def test_a_chinese_query_is_ranked_by_the_e5_cosine_by_weighted_rrf():
    c, embedder = ctx(2.0, stored={"a": 0.2, "b": 0.9, "c": 0.5, "d": 0.99})
    nodes = [zh_node("a"), zh_node("b"), zh_node("c"), zh_node("d")]
    out = cross_encoder_rerank(c, ZH, nodes, SearchMode.FULL)
    scores = {n.node_id: n.score for n in out}
    # incoming ranks a1 b2 c3 (pool 3); e5 cosine ranks b1 (0.9) c2 (0.5) a3 (0.2); w_ml = 2
    assert scores["b"] == pytest.approx(1 / 62 + 2 / 61)  # 0.048916
    assert scores["a"] == pytest.approx(1 / 61 + 2 / 63)  # 0.048139
    assert scores["c"] == pytest.approx(1 / 63 + 2 / 62)  # 0.048131
    assert [n.node_id for n in out] == ["b", "a", "c", "d"]  # d was below the pool and keeps its place
    by_id = {n.node_id: stages(n) for n in out}
    assert by_id["b"]["multilingual_cosine"] == (1, 0.9, "")
    assert by_id["a"]["multilingual_cosine"] == (3, 0.2, "")
    # no cross-encoder score anywhere: every hit carries the skip, also the one below the pool
    assert {n.node_id: n.trail[-1].stage for n in out} == dict.fromkeys("bacd", "cross_encoder")
    assert all(by_id[i]["cross_encoder"][2] == "language" for i in "abcd")
    assert "multilingual_cosine" not in by_id["d"]
    assert c.services.encoders.ce.asked == []
    # the passage vectors were read from the store (one search filtered to the pool's documents)
    assert embedder.asked == [("query", ZH)]
    assert c.services.vectors.searches == [("eagle_text_multilingual", ("doc-a", "doc-b", "doc-c"))]


def test_a_passage_without_a_stored_e5_vector_is_embedded_as_a_passage():
    c, embedder = ctx(1.0, stored={"a": 0.4}, passages={"english text": [0.8, 0.6]})
    english = NodeWithScore(node=node("e", text="english text").node, score=0.0, collection="eagle_text")
    out = cross_encoder_rerank(c, "metformin 药物 不良反应", [english, zh_node("a")], SearchMode.FULL)
    # e: 0.8 * 1.0 + 0.6 * 0.0 = 0.8 embedded; a: 0.4 stored. e5 ranks e1 a2, incoming e1 a2
    assert {n.node_id: stages(n)["multilingual_cosine"][:2] for n in out} == {"e": (1, 0.8), "a": (2, 0.4)}
    assert embedder.asked == [("query", "metformin 药物 不良反应"), ("passage", "english text")]
    assert out[0].score == pytest.approx(1 / 61 + 1 / 61)


def test_an_english_querys_chinese_passage_gets_the_e5_rank_the_english_ones_the_cross_encoders():
    c, _ = ctx(0.5, stored={"x": 0.7})
    nodes = [zh_node("x"), node("b"), node("c")]
    out = cross_encoder_rerank(c, "metformin adverse reactions", nodes, SearchMode.FULL)
    assert c.services.encoders.ce.asked == ["b", "c"]
    scores = {n.node_id: n.score for n in out}
    # x: incoming 1, e5 rank 1 of the passages the cross-encoder left out (w 0.5);
    # b: incoming 2, cross-encoder 1; c: incoming 3, cross-encoder 2
    assert scores["x"] == pytest.approx(1 / 61 + 0.5 / 61)  # 0.024590
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)  # 0.032522
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 62)  # 0.032002
    assert [n.node_id for n in out] == ["b", "c", "x"]
    x = stages(next(n for n in out if n.node_id == "x"))
    assert x["cross_encoder"][2] == "language" and x["multilingual_cosine"][:2] == (1, 0.7)


def test_english_text_takes_the_path_of_before_with_the_signal_on():
    nodes = [node("a"), node("b"), node("c")]
    c_off, _ = ctx(0.0)
    c_on, embedder = ctx(1.0)
    c_off.services.encoders.ce.score_pairs = c_on.services.encoders.ce.score_pairs = (
        lambda q, ps: [{"a": 0.1, "b": 5.0, "c": 1.0}[p] for p in ps])
    off = cross_encoder_rerank(c_off, "metformin", nodes, SearchMode.FULL)
    on = cross_encoder_rerank(c_on, "metformin", nodes, SearchMode.FULL)
    assert on == off and embedder.asked == [] and c_on.services.vectors.searches == []


def test_the_query_vector_of_the_dense_channel_is_not_embedded_again():
    c, embedder = ctx(2.0, stored={"a": 0.2, "b": 0.9})
    assert embed_query(c, "e5-multilingual", ZH) == QUERY_VECTOR  # what the dense channel does first
    out = cross_encoder_rerank(c, ZH, [zh_node("a"), zh_node("b")], SearchMode.FULL)
    # b: 1/62 + 2/61 = 0.048916 > a: 1/61 + 2/62 = 0.048651
    assert [n.node_id for n in out] == ["b", "a"] and embedder.asked == [("query", ZH)]

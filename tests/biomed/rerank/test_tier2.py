"""Tier-2 post_rrf_rerank: the weight table, the formula, min-max CE, fall-backs, images, overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.retrieve.fusion import inject_supplement_candidates
from eagle_rag.types import QueryRetrievalIntent, SearchMode
from eagle_rag_biomed.rerank.models import merged_prior, minmax, rank_normalised, rank_prior
from eagle_rag_biomed.rerank.tier2 import Signals, fuse_signals, post_rrf_rerank, split_images
from eagle_rag_biomed.rerank.weights import BASE_TABLE, PROFILE_WEIGHTS, ProfileWeights, weights_for
from tests.biomed.query_support import analysis, context, decisions, hit, spy_cross_encoder

pytestmark = pytest.mark.unit

DRUG = QueryRetrievalIntent("drug_entity", (), (), True)
REGULATORY = QueryRetrievalIntent("regulatory", ("eagle_chemical",), ("dosage",), True)


def test_the_base_weight_table() -> None:
    assert BASE_TABLE == {
        "default": (0.50, 0.25, 0.15, 2.0),
        "regulatory": (0.30, 0.20, 0.35, 2.5),
        "drug_entity": (0.35, 0.35, 0.10, 3.0),
        "chemical": (0.25, 0.40, 0.10, 3.0),
        "combination": (0.35, 0.35, 0.10, 2.5),
    }


def test_defaults_keep_the_base_domain_weights_and_the_model_weights() -> None:
    table = {name: (w.w_ce, w.w_entity, w.w_sec, w.w_xdrug_penalty, w.w_prior, w.w_li)
             for name, w in PROFILE_WEIGHTS.items()}
    assert table == {
        "default": (0.50, 0.25, 0.15, 2.0, 1.5, 0.75),
        "regulatory": (0.30, 0.20, 0.35, 2.5, 0.5, 0.25),
        "drug_entity": (0.50, 0.35, 0.10, 3.0, 1.0, 3.0),
        "chemical": (0.25, 0.40, 0.10, 3.0, 0.5, 0.0),
        "combination": (0.35, 0.35, 0.10, 2.5, 0.5, 0.5),
    }
    assert weights_for("general") == PROFILE_WEIGHTS["default"]
    assert weights_for("unknown") == PROFILE_WEIGHTS["default"]


def test_weight_overrides_per_profile_and_for_all() -> None:
    scoring = {"all": {"w_prior": 0.9}, "regulatory": {"w_sec": 0.5}, "general": {"w_ce": 0.1}}
    assert weights_for("regulatory", scoring) == ProfileWeights(0.30, 0.20, 0.5, 2.5, w_prior=0.9, w_li=0.25)
    assert weights_for("default", scoring).w_ce == 0.1 and weights_for("drug_entity", scoring).w_ce == 0.50
    with pytest.raises(ValueError, match="unknown weight 'w_bogus'"):
        weights_for("chemical", {"chemical": {"w_bogus": 1}})
    with pytest.raises(ValueError, match="not a number"):
        weights_for("chemical", {"chemical": {"w_ce": "high"}})


def test_minmax_and_rank_prior() -> None:
    assert minmax([2.0, 4.0, 3.0]) == [0.0, 1.0, 0.5]
    assert minmax([1.0, 1.0]) == [0.0, 0.0] and minmax([]) == []
    # 1/(60+r) for r = 1..3, min-max normalised
    top, mid, low = 1 / 61, 1 / 62, 1 / 63
    assert rank_prior(3) == pytest.approx([1.0, (mid - low) / (top - low), 0.0])


def test_rank_normalised_replaces_scores_by_their_rank_prior() -> None:
    # scores 0.2, 9.0, 0.5 rank 3, 1, 2: 1/(60+r) min-max normalised, aligned with the input
    top, mid, low = 1 / 61, 1 / 62, 1 / 63
    assert rank_normalised([0.2, 9.0, 0.5]) == pytest.approx([0.0, 1.0, (mid - low) / (top - low)])
    # only the order counts: any increasing transform of the scores gives the same values
    assert rank_normalised([0.2, 9.0, 0.5]) == rank_normalised([-5.0, 100.0, 1.0])
    # ties keep the input order; k moves the middle value
    assert rank_normalised([1.0, 1.0]) == [1.0, 0.0]
    assert rank_normalised([3.0, 2.0, 1.0], k=0) == pytest.approx([1.0, (1 / 2 - 1 / 3) / (1 - 1 / 3), 0.0])
    assert rank_normalised([]) == []


def test_rank_normalise_option_feeds_the_cross_encoder_rank(tmp_path: Path) -> None:
    nodes = [hit("a", "unrelated words"), hit("b", "imatinib dosage 400 mg"), hit("c", "imatinib")]
    raw = context(tmp_path).services.encoders.cross_encoder("medcpt-rerank").score_pairs(
        "imatinib dosage", [n.node.text for n in nodes])
    for normalise, expected in (("minmax", minmax(raw)), ("rank", rank_normalised(raw))):
        ctx = context(tmp_path, options={"tier2": {"normalise": normalise}})
        out = post_rrf_rerank(ctx, analysis("imatinib dosage", REGULATORY), nodes, SearchMode.FULL)
        by_id = {n.node_id: n.trail[-1].detail["ce_norm"] for n in out}
        assert [by_id["a"], by_id["b"], by_id["c"]] == pytest.approx(expected)


def test_an_injected_hit_gets_no_rank_prior(tmp_path: Path) -> None:
    merged = [hit("a", score=0.03), hit("b", score=0.02), hit("c", score=0.01)]
    pool = inject_supplement_candidates(merged, [hit("s", "Gefitinib 250 mg daily.", score=0.4,
                                                          meta={"primary_drugs": "gefitinib"})])
    assert [n.node_id for n in pool] == ["s", "a", "b", "c"] and pool[0].score == pytest.approx(100.4)
    # the fused hits keep their own ranks 1..3 (1/61, 1/62, 1/63 min-max normalised); the injected one 0.0
    top, mid, low = 1 / 61, 1 / 62, 1 / 63
    assert merged_prior(pool) == pytest.approx([0.0, 1.0, (mid - low) / (top - low), 0.0])
    assert merged_prior(merged) == rank_prior(3)
    # hybrid mode (no cross-encoder: ce_norm = prior), drug_entity profile (w_ce .5, w_prior 1.0,
    # w_entity .35): a = .5*1 + 1.0*1 = 1.5, b = (.5 + 1.0) * p_b with p_b = (1/62 - 1/63) / (1/61 - 1/63),
    # s = .35*1.0 (entity only, no prior) = 0.35, c = 0: the injected hit lands below b, above c
    ctx = context(tmp_path)
    out = post_rrf_rerank(ctx, analysis("gefitinib", DRUG), pool, SearchMode.HYBRID)
    p_b = (mid - low) / (top - low)
    assert [n.node_id for n in out] == ["a", "b", "s", "c"]
    assert [n.score for n in out] == pytest.approx([1.5, 1.5 * p_b, 0.35, 0.0])


def test_fuse_signals_formula() -> None:
    w = ProfileWeights(w_ce=0.35, w_entity=0.35, w_sec=0.10, w_xdrug_penalty=3.0, w_prior=0.5, w_li=0.2)
    nodes = [hit("a"), hit("b")]
    s = Signals(ce_norm=[0.2, 1.0], li_norm=[0.5, 0.0], prior=[1.0, 0.0], entity=[1.0, 0.75], section=[0.5, 0.0],
                xdrug=[0.0, 1.0])
    out = fuse_signals(nodes, s, w)
    a = 0.35 * 0.2 + 0.2 * 0.5 + 0.5 * 1.0 + 0.35 * 1.0 + 0.10 * 0.5 - 3.0 * 0.0
    b = 0.35 * 1.0 + 0.2 * 0.0 + 0.5 * 0.0 + 0.35 * 0.75 + 0.10 * 0.0 - 3.0 * 1.0
    assert [n.node_id for n in out] == ["a", "b"]
    assert [n.score for n in out] == pytest.approx([a, b])
    assert out[0].trail[-1].detail["ce_norm"] == 0.2


def test_cross_drug_trap_is_pushed_down(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    trap = hit("trap", "Erlotinib 150 mg daily.", meta={"primary_drugs": "erlotinib"}, path="Erlotinib > Dosage")
    right = hit("right", "Gefitinib 250 mg daily.", meta={"primary_drugs": "gefitinib"}, path="Gefitinib > Dosage")
    out = post_rrf_rerank(ctx, analysis("gefitinib dosage", DRUG), [trap, right], SearchMode.HYBRID)
    assert [n.node_id for n in out] == ["right", "trap"]
    assert out[1].trail[-1].detail["xdrug"] == 1.0 and out[0].trail[-1].detail["entity"] == 1.0
    # hybrid mode: no cross-encoder, ce_norm falls back to the rank prior
    assert out[1].trail[-1].detail["ce_norm"] == out[1].trail[-1].detail["prior"] == 1.0
    assert decisions(ctx, "biomed_rerank_t2")[-1].data["cross_encoder"] is None


def test_cross_encoder_in_full_mode(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    nodes = [hit("a", "unrelated words"), hit("b", "imatinib dosage 400 mg")]
    out = post_rrf_rerank(ctx, analysis("imatinib dosage", REGULATORY), nodes, SearchMode.FULL)
    raw = ctx.services.encoders.cross_encoder("medcpt-rerank").score_pairs(
        "imatinib dosage", ["unrelated words", "imatinib dosage 400 mg"])
    by_id = {n.node_id: n.trail[-1].detail["ce_norm"] for n in out}
    assert [by_id["a"], by_id["b"]] == pytest.approx(minmax(raw))
    last = decisions(ctx, "biomed_rerank_t2")[-1]
    assert last.data["cross_encoder"] == "medcpt-rerank" and "deterministic" in last.data["cross_encoder_model"]


def test_explain_trail_ranks_the_cross_encoder_from_one(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    texts = ["unrelated words", "imatinib dosage 400 mg", "imatinib", "dosage of imatinib in adults"]
    nodes = [hit(f"n{i}", text) for i, text in enumerate(texts)]
    out = post_rrf_rerank(ctx, analysis("imatinib dosage", REGULATORY), nodes, SearchMode.FULL)
    raw = ctx.services.encoders.cross_encoder("medcpt-rerank").score_pairs("imatinib dosage", texts)
    entries = {n.node_id: next(e for e in n.trail if e.stage == "cross_encoder") for n in out}
    # rank 1 is the model's best passage, 4 its worst; the score is the model's raw score
    best_first = sorted(range(len(texts)), key=lambda i: (-raw[i], i))
    assert [entries[f"n{i}"].rank for i in best_first] == [1, 2, 3, 4]
    assert [entries[f"n{i}"].score for i in range(len(texts))] == pytest.approx(raw)


def test_a_chinese_query_gets_no_cross_encoder_score(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    nodes = [hit("a", "二甲双胍 不良反应 胃肠道"), hit("b", "metformin adverse reactions")]
    out = post_rrf_rerank(ctx, analysis("二甲双胍 不良反应", REGULATORY), nodes, SearchMode.FULL)
    entries = [e for n in out for e in n.trail if e.stage == "cross_encoder"]
    assert [(e.rank, e.skipped) for e in entries] == [(1, "language"), (2, "language")]
    # the signal falls back to the incoming rank prior, as when the model is off
    assert [n.trail[-1].detail["ce_norm"] for n in out] == pytest.approx(
        [n.trail[-1].detail["prior"] for n in out])
    assert decisions(ctx, "biomed_rerank_t2")[-1].data["cross_encoder"] is None


def test_a_chinese_query_reads_the_multilingual_cosine_in_place_of_the_cross_encoder(tmp_path: Path) -> None:
    # the prior puts the unrelated passage first; the e5 cosine puts the one about the query first
    texts = ["metformin adverse reactions", "二甲双胍 不良反应 胃肠道"]
    nodes = [hit("b", texts[0]), hit("a", texts[1])]
    final, detail, cosine = {}, {}, {}
    for weight in (1.0, 0.0):
        ctx = context(tmp_path / str(weight), search={"multilingual_rerank_weight": weight})
        out = post_rrf_rerank(ctx, analysis("二甲双胍 不良反应", REGULATORY), nodes, SearchMode.FULL)
        final[weight] = {n.node_id: n.trail[-1].score for n in out}
        detail[weight] = {n.node_id: n.trail[-1].detail for n in out}
        cosine[weight] = {n.node_id: next((e for e in n.trail if e.stage == "multilingual_cosine"), None)
                          for n in out}
    assert [detail[1.0]["b"]["prior"], detail[1.0]["a"]["prior"]] == [1.0, 0.0]
    # on: ce_norm = min-max of the two cosines, the passage about the query 1.0, the other 0.0; the trail
    # keeps each cosine and its rank
    on = cosine[1.0]
    assert on["a"] is not None and on["b"] is not None and on["a"].score > on["b"].score
    assert (on["a"].rank, on["b"].rank) == (1, 2)
    assert [detail[1.0]["a"]["ce_norm"], detail[1.0]["b"]["ce_norm"]] == [1.0, 0.0]
    # off: the prior stays in ce_norm's place, as before
    assert cosine[0.0] == {"a": None, "b": None}
    assert [detail[0.0]["a"]["ce_norm"], detail[0.0]["b"]["ce_norm"]] == [0.0, 1.0]
    # the Tier-2 score moves by w_ce times the change of ce_norm, nothing else: +w_ce for a, -w_ce for b
    w_ce = weights_for(REGULATORY.workflow).w_ce
    assert final[1.0]["a"] - final[0.0]["a"] == pytest.approx(w_ce)
    assert final[1.0]["b"] - final[0.0]["b"] == pytest.approx(-w_ce)
    # an English query never reads it: the cross-encoder scores the passages
    ctx = context(tmp_path / "en")
    english = post_rrf_rerank(ctx, analysis("metformin adverse reactions", REGULATORY), nodes, SearchMode.FULL)
    assert all(e.stage != "multilingual_cosine" for n in english for e in n.trail)


def test_a_chinese_passage_keeps_its_prior_while_the_english_ones_are_scored(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    texts = ["二甲双胍 不良反应", "imatinib dosage 400 mg", "unrelated words"]
    nodes = [hit(f"n{i}", text) for i, text in enumerate(texts)]
    out = post_rrf_rerank(ctx, analysis("imatinib dosage", REGULATORY), nodes, SearchMode.FULL)
    raw = ctx.services.encoders.cross_encoder("medcpt-rerank").score_pairs("imatinib dosage", texts[1:])
    entries = {n.node_id: next(e for e in n.trail if e.stage == "cross_encoder") for n in out}
    assert entries["n0"].skipped == "language" and entries["n0"].rank == 1
    assert [entries["n1"].score, entries["n2"].score] == pytest.approx(raw)
    by_id = {n.node_id: n.trail[-1].detail for n in out}
    assert by_id["n0"]["ce_norm"] == pytest.approx(by_id["n0"]["prior"])


def test_cross_encoder_reads_the_document_name_by_default(tmp_path: Path) -> None:
    # a later chunk of an abstract does not start with its title: by default the model reads
    # "title\ntext"; with tier2.with_name false it reads the text alone
    named = {"document_name": "Imatinib dosage in chronic myeloid leukemia"}
    nodes = [hit("a", "unrelated words", meta=named), hit("b", "400 mg once daily", meta={})]
    for options, passages in (({}, [f"{named['document_name']}\nunrelated words", "400 mg once daily"]),
                              ({"tier2": {"with_name": False}}, ["unrelated words", "400 mg once daily"])):
        ctx = context(tmp_path, options=options)
        seen = spy_cross_encoder(ctx)
        post_rrf_rerank(ctx, analysis("imatinib dosage", REGULATORY), nodes, SearchMode.FULL)
        assert seen == [passages]


def test_cross_encoder_failure_falls_back_to_the_incoming_order(tmp_path: Path) -> None:
    ctx = context(tmp_path)

    def broken(label: str) -> object:
        raise RuntimeError("model missing")

    ctx.services.encoders.cross_encoder = broken
    nodes = [hit("a", "first"), hit("b", "second")]
    out = post_rrf_rerank(ctx, analysis("query", QueryRetrievalIntent()), nodes, SearchMode.FULL)
    assert [n.node_id for n in out] == ["a", "b"]
    assert [n.trail[-1].detail["ce_norm"] for n in out] == [1.0, 0.0]
    failure = decisions(ctx, "hook_failure")[-1]
    assert failure.data["stage"] == "cross_encoder" and "model missing" in failure.summary


def test_images_pass_through_at_the_end_and_the_pool_is_respected(tmp_path: Path) -> None:
    ctx = context(tmp_path, options={"tier2": {"pool": 2}})
    nodes = [hit("img", chunk_type="medical_image"), hit("a", "a"), hit("b", "b"), hit("c", "c")]
    texts, images = split_images(nodes)
    assert [n.node_id for n in images] == ["img"] and len(texts) == 3
    out = post_rrf_rerank(ctx, analysis("query", QueryRetrievalIntent()), nodes, SearchMode.HYBRID)
    assert [n.node_id for n in out] == ["a", "b", "c", "img"]
    assert out[2].trail == () and out[3].trail == ()  # beyond the pool and images are not scored


def test_settings_override_the_profile(tmp_path: Path) -> None:
    ctx = context(tmp_path, options={"retrieval_scoring": {"drug_entity": {"w_entity": 0.0, "w_xdrug_penalty": 0.0,
                                                                           "w_prior": 1.0}}})
    trap = hit("trap", meta={"primary_drugs": "erlotinib"})
    right = hit("right", meta={"primary_drugs": "gefitinib"})
    out = post_rrf_rerank(ctx, analysis("gefitinib", DRUG), [trap, right], SearchMode.HYBRID)
    assert [n.node_id for n in out] == ["trap", "right"]  # only the incoming order counts now


def test_the_cross_encoder_scores_are_a_stage_of_the_trail_in_mode_full_only(tmp_path: Path) -> None:
    nodes = [hit("a", "unrelated words"), hit("b", "imatinib dosage 400 mg"), hit("c", "imatinib")]
    raw = context(tmp_path).services.encoders.cross_encoder("medcpt-rerank").score_pairs(
        "imatinib dosage", [n.node.text for n in nodes])
    out = post_rrf_rerank(context(tmp_path), analysis("imatinib dosage", REGULATORY), nodes, SearchMode.FULL)
    by_id = {n.node_id: n.trail for n in out}
    ce_order = sorted("abc", key=lambda i: -raw["abc".index(i)])
    for node_id, trail in by_id.items():
        assert [e.stage for e in trail[-2:]] == ["cross_encoder", "rerank_t2"]
        assert trail[-2].score == raw["abc".index(node_id)] and trail[-2].rank == ce_order.index(node_id) + 1
    hybrid = post_rrf_rerank(context(tmp_path), analysis("imatinib dosage", REGULATORY), nodes, SearchMode.HYBRID)
    assert all("cross_encoder" not in [e.stage for e in n.trail] for n in hybrid)

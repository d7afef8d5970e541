"""The cross-encoder's own pool (tier2.cross_encoder_pool): it reads only the best candidates by the
other Tier-2 signals, and the ones it did not read rank below those it read."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.types import QueryRetrievalIntent, SearchMode
from eagle_rag_biomed.rerank import models
from eagle_rag_biomed.rerank.tier2 import post_rrf_rerank
from tests.biomed.query_support import analysis, context, hit, spy_cross_encoder

pytestmark = pytest.mark.unit

TEXTS = {"a": "alpha passage one", "b": "beta passage two", "c": "gamma passage three", "d": "delta passage four"}
LATE = {"a": 0.0, "b": 0.0, "c": 0.0, "d": 10.0, "z": 0.0}  # the late-interaction model likes d only
CHINESE = "二甲双胍的不良反应"


class Scorer:
    def passage_key(self, text: str) -> str:
        return text

    def score_pairs(self, query: str, texts: list[str], known: list[object]) -> list[float]:
        return [LATE[next(k for k, v in {**TEXTS, "z": CHINESE}.items() if v == t)] for t in texts]


def _rerank(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int,
            first: dict[str, str] | None = None) -> tuple[list[list[str]], dict[str, float]]:
    monkeypatch.setattr(models, "get_scorer", lambda label, max_tokens: Scorer())
    ctx = context(tmp_path, options={"stages": {"late_interaction": True}, "tier2": {"cross_encoder_pool": size}})
    seen = spy_cross_encoder(ctx)
    nodes = [hit(k, v, meta={}) for k, v in {**(first or {}), **TEXTS}.items()]
    intent = QueryRetrievalIntent("general", (), (), False)
    ranked = post_rrf_rerank(ctx, analysis("passage wording", intent), nodes, SearchMode.FULL)
    ce = {n.node.id: float(n.trail[-1].detail["ce_norm"]) for n in ranked}
    return seen, ce


def test_the_cross_encoder_reads_the_best_by_the_other_signals(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # default profile: w_ce 0.5, w_prior 1.5, w_li 0.75; without the cross-encoder ce_norm = prior, so
    # the choice weighs the prior by 0.5 + 1.5 = 2.0. prior = min-max of 1/61, 1/62, 1/63, 1/64:
    # a 1.0, b (1/62 - 1/64) / (1/61 - 1/64) = 0.656, c 0.323, d 0.0; li_norm: d 1.0, the others 0.0.
    # a 2.0, b 1.312, d 0.75 (its late-interaction score), c 0.646
    seen, ce = _rerank(tmp_path, monkeypatch, 3)
    assert seen == [[TEXTS["a"], TEXTS["b"], TEXTS["d"]]]
    assert ce["c"] == 0.0  # not read: below every passage the model read
    seen, _ = _rerank(tmp_path, monkeypatch, 2)
    assert seen == [[TEXTS["a"], TEXTS["b"]]]


def test_a_pool_as_large_as_the_candidates_reads_them_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen, _ = _rerank(tmp_path, monkeypatch, 30)
    assert seen == [list(TEXTS.values())]


def test_a_passage_the_model_cannot_read_takes_no_place_in_its_pool(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # z ranks first, but the English cross-encoder does not read Chinese: its two places go to a and b
    seen, ce = _rerank(tmp_path, monkeypatch, 2, first={"z": CHINESE})
    assert seen == [[TEXTS["a"], TEXTS["b"]]]
    assert ce["z"] == 1.0  # z keeps its prior (first of five: 1.0); c and d were not read
    assert ce["c"] == ce["d"] == 0.0

"""The late-interaction (ColBERT MaxSim) scorer on the bundled answerai-colbert-small model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from eagle_rag.types import QueryRetrievalIntent, SearchMode
from eagle_rag_biomed.encoders.late_interaction import LateInteractionScorer, bundled_colbert_dir, get_scorer
from eagle_rag_biomed.rerank.tier2 import post_rrf_rerank
from tests.biomed.query_support import analysis, context, decisions, hit

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def scorer() -> LateInteractionScorer:
    if not (bundled_colbert_dir() / "model.onnx").is_file():
        pytest.skip("the bundled ColBERT model is not installed")
    return get_scorer("colbert").load()


def test_maxsim_ranks_the_relevant_passage_first(scorer: LateInteractionScorer) -> None:
    passages = ["The weather was sunny all week.", "Imatinib 400 mg once daily treats chronic myeloid leukemia.",
                "Warfarin doses are adjusted to the INR."]
    scores = scorer.score_pairs("imatinib dose for chronic myeloid leukemia", passages)
    assert len(scores) == 3 and int(np.argmax(scores)) == 1
    assert scorer.score_pairs("anything", []) == []


def test_maxsim_is_the_sum_of_best_token_matches(scorer: LateInteractionScorer) -> None:
    q = scorer.encode_query("aspirin")
    assert q.shape == (32, 384)
    assert np.allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-4)
    # 32 query tokens, each at most cosine 1: the score is bounded by 32
    assert 0 < scorer.score_pairs("aspirin", ["aspirin"])[0] <= 32.0 + 1e-3
    assert "answerai-colbert-small" in scorer.model_info


def test_passage_cut_decides_what_the_model_reads(scorer: LateInteractionScorer) -> None:
    # the only mention of the query's drug sits past 256 tokens: the default cut cannot see it, 512 can
    filler = "The cohort was followed for twelve months in three centres. " * 30
    passage = filler + "Imatinib resistance arose through BCR-ABL kinase domain mutations."
    long = get_scorer("colbert", 512)
    assert long is get_scorer("colbert", 512) and long is not scorer
    assert long._session is scorer._session  # one model in memory for both cuts
    query = "imatinib resistance mutations"
    assert long.score_pairs(query, [passage])[0] > scorer.score_pairs(query, [passage])[0] + 1.0
    assert long.score_pairs(query, ["short text"]) == pytest.approx(scorer.score_pairs(query, ["short text"]))


def test_missing_model_falls_back_in_tier2(tmp_path: Path) -> None:
    ctx = context(tmp_path, options={"stages": {"late_interaction": True},
                                     "tier2": {"late_interaction_encoder": "missing"}})
    broken = LateInteractionScorer("missing", tmp_path / "nowhere")
    from eagle_rag_biomed.encoders import late_interaction

    late_interaction._SCORERS[("missing", 256)] = broken
    try:
        nodes = [hit("a", "first"), hit("b", "second")]
        out = post_rrf_rerank(ctx, analysis("query", QueryRetrievalIntent()), nodes, SearchMode.FULL)
    finally:
        late_interaction._SCORERS.pop(("missing", 256), None)
    assert [n.trail[-1].detail["li_norm"] for n in out] == [0.0, 0.0]
    failure = decisions(ctx, "hook_failure")[-1]
    assert failure.data["stage"] == "late_interaction" and "not found" in failure.summary

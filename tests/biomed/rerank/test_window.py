"""The Tier-2 models' passage window (tier2.window_chars): which sentences, how many characters."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.types import QueryRetrievalIntent, SearchMode
from eagle_rag_biomed.rerank.tier2 import post_rrf_rerank
from eagle_rag_biomed.rerank.window import best_window, query_stems, split_for_window
from tests.biomed.query_support import analysis, context, hit, spy_cross_encoder

pytestmark = pytest.mark.unit

S1 = "Background: obesity is common in adults."  # 40 characters
S2 = "Methods: we enrolled 400 patients in a cohort."  # 46
S3 = "Results: metformin inhibited hepatic glucose output."  # 52
S4 = "Conclusions: the effect held at one year."  # 41
TEXT = " ".join((S1, S2, S3, S4))  # 40 + 46 + 52 + 41 + 3 spaces = 182


def test_query_stems_drop_stop_words_and_cut_to_five_letters() -> None:
    assert query_stems("Does metformin inhibit the glucose output?") == frozenset(
        {"metfo", "inhib", "gluco", "outpu"})


def test_split_keeps_every_character_but_runs_of_space() -> None:
    pieces = split_for_window("A first one.  Then (see Fig. 2) a second!\nAnd a third? 3.5 mg")
    assert pieces == ["A first one.", "Then (see Fig.", "2) a second!", "And a third?", "3.5 mg"]


def test_the_window_grows_from_the_best_sentence_next_then_previous() -> None:
    stems = query_stems("metformin inhibition of glucose")
    assert len(TEXT) == 182
    # S3 holds 3 query words (metfo, inhib, gluco), the others none
    assert best_window(TEXT, stems, 52) == S3
    # 52 + 1 + 41 = 94: S4 comes first (the next one); S2 (46 more) would need 141
    assert best_window(TEXT, stems, 100) == f"{S3} {S4}"
    # 94 + 1 + 46 = 141: then S2
    assert best_window(TEXT, stems, 141) == f"{S2} {S3} {S4}"
    assert best_window(TEXT, stems, 181) == f"{S2} {S3} {S4}"
    # a text within the budget is read whole
    assert best_window(TEXT, stems, 182) == TEXT
    assert best_window(TEXT, stems, 0) == TEXT


def test_no_matching_word_keeps_the_start_and_a_long_sentence_is_cut() -> None:
    # 40 + 1 + 46 = 87; S3 would need 140
    assert best_window(TEXT, query_stems("zebrafish"), 100) == f"{S1} {S2}"
    assert best_window(TEXT, query_stems("metformin glucose"), 20) == S3[:20]
    # a tie goes to the earlier sentence: S2 and S3 both hold one query word
    assert best_window(TEXT, query_stems("patients hepatic"), 50) == S2


def test_the_cross_encoder_reads_the_name_then_the_window(tmp_path: Path) -> None:
    intent = QueryRetrievalIntent("general", (), (), False)
    named = {"document_name": "Metformin and the liver"}
    nodes = [hit("a", TEXT, meta=named), hit("b", "short text", meta={})]
    for options, passages in (({}, [f"Metformin and the liver\n{TEXT}", "short text"]),
                              ({"tier2": {"window_chars": 100}},
                               [f"Metformin and the liver\n{S3} {S4}", "short text"])):
        ctx = context(tmp_path, options=options)
        seen = spy_cross_encoder(ctx)
        post_rrf_rerank(ctx, analysis("metformin inhibition of glucose output", intent), nodes, SearchMode.FULL)
        assert seen == [passages]


def test_the_late_interaction_model_reads_the_same_window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from eagle_rag_biomed.rerank import models

    seen: list[list[str]] = []

    class Scorer:
        def passage_key(self, text: str) -> str:
            return text

        def score_pairs(self, query: str, texts: list[str], known: list[object]) -> list[float]:
            seen.append(list(texts))
            return [float(len(t)) for t in texts]

    monkeypatch.setattr(models, "get_scorer", lambda label, max_tokens: Scorer())
    ctx = context(tmp_path, options={"tier2": {"window_chars": 100}})
    nodes = [hit("a", TEXT, meta={"document_name": "Metformin and the liver"})]
    scores = models.late_interaction_scores(ctx, "colbert", "metformin inhibition of glucose output", nodes, 2048,
                                            True, 256, window_chars=100)
    assert seen == [[f"Metformin and the liver\n{S3} {S4}"]]
    assert scores == [float(len(f"Metformin and the liver\n{S3} {S4}"))]

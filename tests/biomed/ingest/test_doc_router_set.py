"""The document router on its labelled set (eval/biomed/doc_router): the measured accuracy is pinned.

The router runs as a biomed install without checkpoints runs it: the bundled bge-small stands in for
the ``pubmedbert`` label, with the default options. The figures are those of
eval/biomed/doc_router/README.md (59 of 60 documents, 29 of the 30 of the held-out half); the
test allows a small margin for numeric drift of the encoder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.plugin_api import BUNDLED_BGE_SMALL, load_native_text_encoder
from eagle_rag_biomed.eval.doc_router import (
    LabelledDocument,
    accuracy_by_tier,
    decide,
    effective_cut,
    load_labelled_set,
    route_set,
    split_halves,
    tune,
)
from eagle_rag_biomed.ingest.doc_router import TextProfile
from eagle_rag_biomed.options import parse_options

SET = Path(__file__).resolve().parents[3] / "eval" / "biomed" / "doc_router" / "documents.jsonl"
MEASURED_ALL, MEASURED_TEST_HALF = 59 / 60, 29 / 30
MARGIN = 0.05


@pytest.fixture(scope="module")
def routed() -> list[tuple[LabelledDocument, TextProfile, float]]:
    encoder = load_native_text_encoder("pubmedbert", BUNDLED_BGE_SMALL, 384)
    options = parse_options({}).doc_semantic_router
    return [(doc, p.profile, p.signals["score"]) for doc, p in route_set(load_labelled_set(SET), options, encoder)]


@pytest.mark.unit
def test_the_set_is_balanced_short_and_unique() -> None:
    docs = load_labelled_set(SET)
    assert len(docs) >= 60 and len({d.id for d in docs}) == len(docs)
    labels = [d.label for d in docs]
    assert labels.count(TextProfile.BIOMEDICAL) == labels.count(TextProfile.GENERAL)
    assert all(80 <= len(d.text.split()) <= 200 for d in docs)
    tune_half, test_half = split_halves(docs)
    assert len(tune_half) == len(test_half) and not {d.id for d in tune_half} & {d.id for d in test_half}


@pytest.mark.integration
def test_router_accuracy_on_the_set_is_pinned(routed) -> None:
    correct = sum(profile is doc.label for doc, profile, _ in routed)
    assert correct / len(routed) >= MEASURED_ALL - MARGIN
    # both kinds are routed right: labelling everything biomedical (or general) fails here
    for label in TextProfile:
        docs = [(doc, profile) for doc, profile, _ in routed if doc.label is label]
        assert sum(profile is label for _, profile in docs) / len(docs) >= 0.9, label
    _, test_half = split_halves([doc for doc, _, _ in routed])
    held_out = {d.id for d in test_half}
    test_correct = sum(profile is doc.label for doc, profile, _ in routed if doc.id in held_out)
    assert test_correct / len(held_out) >= MEASURED_TEST_HALF - MARGIN


@pytest.mark.integration
def test_the_default_options_are_the_ones_tuned_on_the_tuning_half(routed) -> None:
    defaults = parse_options({}).doc_semantic_router
    tune_half, _ = split_halves([doc for doc, _, _ in routed])
    scores = {doc.id: score for doc, _, score in routed}
    tuned = tune([(d, scores[d.id]) for d in tune_half], defaults)
    assert effective_cut(tuned) == pytest.approx(effective_cut(defaults))
    assert tuned.ambiguous_default == defaults.ambiguous_default


@pytest.mark.unit
def test_decide_replays_threshold_margin_and_default() -> None:
    bio, gen = (LabelledDocument("b", TextProfile.BIOMEDICAL, "x"), LabelledDocument("g", TextProfile.GENERAL, "y"))
    scored = [(bio, 0.30), (gen, 0.05), (bio, 0.10)]
    options = parse_options({"doc_semantic_router": {"confidence_threshold": 0.1, "llm_margin": 0.1,
                                                      "ambiguous_default": "general"}}).doc_semantic_router
    outcomes = decide(scored, options)
    # 0.30 > 0.1 + 0.1: Tier-1 biomedical; 0.05 and 0.10 inside the band: the default (general)
    assert [(o.profile, o.tier) for o in outcomes] == [
        (TextProfile.BIOMEDICAL, 1), (TextProfile.GENERAL, 2), (TextProfile.GENERAL, 2)]
    table = accuracy_by_tier(outcomes)
    assert (table["tier1"].correct, table["tier1"].documents) == (1, 1)
    assert (table["tier2"].correct, table["tier2"].documents) == (1, 2)
    assert table["all"].accuracy == pytest.approx(2 / 3)
    assert effective_cut(options) == pytest.approx(0.2)

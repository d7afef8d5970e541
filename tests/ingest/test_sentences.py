"""Sentence rows: biomedical abbreviations do not cut a sentence, and no text is ever dropped."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eagle_rag.ingest.sentences import split_sentences

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("text", "expected"), [
    ("Imatinib was given i.v. at approx. 400 mg daily (see Fig. 2). In mice, tumours shrank.",
     ["Imatinib was given i.v. at approx. 400 mg daily (see Fig. 2).", "In mice, tumours shrank."]),
    ("Smith et al. 2019 reported a rate of 0.85 vs. 0.62 in controls. The effect was large.",
     ["Smith et al. 2019 reported a rate of 0.85 vs. 0.62 in controls.", "The effect was large."]),
    ("As shown by Smith et al. The response held in all groups.",
     ["As shown by Smith et al. The response held in all groups."]),
    ("Dr. Lee noted e.g. rash and i.e. mild itching. Levels rose 2.5 fold.",
     ["Dr. Lee noted e.g. rash and i.e. mild itching.", "Levels rose 2.5 fold."]),
    ("The difference was significant, p < 0.05. Survival improved at 12 months.",
     ["The difference was significant, p < 0.05.", "Survival improved at 12 months."]),
    ("二甲双胍是常用药物。它可以降低血糖！", ["二甲双胍是常用药物。", "它可以降低血糖！"]),
    ("   ", []),
])
def test_biomedical_abbreviations_and_decimals(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def _letters(text: str) -> str:
    return re.sub(r"\s+", "", text)


WORDS = st.sampled_from(["Imatinib", "et al.", "Fig.", "2.5", "i.v.", "e.g.", "approx.", "vs.", "Dr.", "p < 0.05.",
                         "(see", "Fig. 2).", "In", "mice", "rose.", "二甲双胍", "降低血糖。", "!", "?", "A.", "1.",
                         "\n\n", "x"])


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, max_size=40).map(" ".join) | st.text(max_size=300))
def test_every_non_space_character_is_in_exactly_one_sentence(text: str) -> None:
    sentences = split_sentences(text)
    assert all(s and s == s.strip() for s in sentences)
    # the rows, put back together, are the text without its white space: nothing dropped or repeated
    assert "".join(_letters(s) for s in sentences) == _letters(text)

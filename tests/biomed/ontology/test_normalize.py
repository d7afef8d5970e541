"""Normalisation: keys, offsets back to the original text, and agreement between the two."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eagle_rag_biomed.ontology.normalize import fast_key, normalize_key, normalize_with_offsets

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("raw", "key"), [
    ("EGFR", "egfr"),
    ("  PD\u20111   inhibitor ", "pd-1 inhibitor"),  # non-breaking hyphen, spacing
    ("Cétuximab", "cetuximab"),
    ("Ｅｇｆｒ", "egfr"),  # full width
    ("TNF-α", "tnf-α"),  # Greek letters are kept
    ("non\u2013small cell", "non-small cell"),  # en dash
])
def test_normalize_key(raw: str, key: str) -> None:
    assert normalize_key(raw) == key


def test_offsets_map_back_to_the_original() -> None:
    text = "Ｅｇｆｒ  and\tCétuximab"
    norm, origin = normalize_with_offsets(text)
    assert norm == "egfr and cetuximab"
    start = norm.index("cetuximab")
    end = start + len("cetuximab")
    assert text[origin[start]:origin[end - 1] + 1] == "Cétuximab"
    assert origin[-1] == len(text)


def test_fast_key_agrees_for_single_spaced_names() -> None:
    for name in ["Imatinib Mesylate", "Cétuximab", "BCR::ABL1"]:
        assert fast_key(name) == normalize_key(name)


@given(st.text(max_size=40))
def test_offsets_are_monotonic_and_in_range(text: str) -> None:
    norm, origin = normalize_with_offsets(text)
    assert len(origin) == len(norm) + 1
    assert origin == sorted(origin)
    assert all(0 <= index <= len(text) for index in origin)


@given(st.text(max_size=40))
def test_normalize_key_is_idempotent_and_agrees_with_offsets(text: str) -> None:
    key = normalize_key(text)
    assert normalize_key(key) == key
    assert normalize_with_offsets(text)[0].strip() == key

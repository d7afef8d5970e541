"""The candidates of multi-word queries: all terms first, then at least half (partial)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.unit


def test_all_terms_before_partial(mini):
    response = mini.search("disease mentions pubmed relation")
    assert response.hits[0].id == "t/ncbi_disease" or response.hits[0].match == "partial"
    response = mini.search("chemical disease relation pubmed", semantic=False)  # the lexical tiers alone
    assert response.hits[0].id == "t/bc5cdr" and response.hits[0].match == "lexical"
    partial = [h for h in response.hits if h.match == "partial"]
    assert partial and all(0.5 <= h.coverage < 1.0 for h in partial)
    assert all(a.coverage >= b.coverage for a, b in zip(partial, partial[1:], strict=False))


def test_less_than_half_is_no_match(mini):
    assert mini.search("chemical zzz yyy xxx").total == 0


def test_generic_and_filler_words_do_not_count(mini):
    response = mini.search("find the NCBI disease dataset")
    assert response.hits[0].id == "t/ncbi_disease" and response.hits[0].match in {"exact", "lexical"}
    assert mini.search("ImageNet dataset").total == 0

"""Property tests of the card ranking (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eagle_rag.analysis import compact_name
from eagle_rag.plugin_api.encoders import DeterministicEncoder
from eagle_rag_datasets import DatasetCatalog, DatasetQuery

pytestmark = pytest.mark.unit

WORDS = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "lambda", "zeta", "theta"]
OTHER = ["quartz", "violin", "pepper", "harbor"]  # never in WORDS: cards made of these are unrelated
HASH = DeterministicEncoder(384)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

phrase = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
text = st.lists(st.sampled_from(WORDS), min_size=0, max_size=6).map(" ".join)
cards = st.lists(st.tuples(phrase, text), min_size=2, max_size=8)
query = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)


def build(pairs, extra=()):
    records = [{"id": f"c{i}", "name": name, "description": desc} for i, (name, desc) in enumerate(pairs)]
    records += [{"id": f"u{i}", "name": name, "description": desc} for i, (name, desc) in enumerate(extra)]
    return catalog_of(records)


def catalog_of(records):
    """A catalog whose semantic channel runs on the hash encoder (fast; the properties do not need meaning)."""
    return DatasetCatalog.from_records(records, encoder=HASH)


def ranked(catalog, text, **options):
    return catalog.search(DatasetQuery(text, top_k=100, explain=True, **options)).hits


def group_key(hit):
    e = hit.explanation
    return (e["tier"], e["coverage"], e["name_coverage"], hit.kind, e["proximity"])


@SETTINGS
@given(cards, st.data())
def test_exact_name_match_always_ranks_first(pairs, data):
    catalog = build(pairs)
    name = data.draw(st.sampled_from([name for name, _ in pairs]))
    first = ranked(catalog, name)[0]
    assert first.match == "exact" and compact_name(first.name) == compact_name(name)


@SETTINGS
@given(cards, query, st.lists(st.tuples(st.sampled_from(OTHER), st.sampled_from(OTHER)), min_size=1, max_size=3))
def test_an_unrelated_card_never_reorders_matches(pairs, text, unrelated):
    # the lexical tiers alone: an unrelated card may well be a semantic neighbour
    before = ranked(build(pairs), text, semantic=False)
    after = ranked(build(pairs, unrelated), text, semantic=False)
    assert {(h.id, h.match) for h in before} == {(h.id, h.match) for h in after}
    position = {h.id: i for i, h in enumerate(after)}
    for i, a in enumerate(before):
        for b in before[i + 1:]:
            if group_key(a) != group_key(b):  # different tier, coverage, name coverage, kind or proximity
                assert position[a.id] < position[b.id]


@SETTINGS
@given(cards, query, st.randoms(use_true_random=False))
def test_the_order_of_the_card_file_does_not_matter(pairs, text, rnd):
    records = [{"id": f"c{i}", "name": n, "description": d} for i, (n, d) in enumerate(pairs)]
    shuffled = records[:]
    rnd.shuffle(shuffled)
    a = [h.id for h in ranked(catalog_of(records), text, engine="bm25")]
    b = [h.id for h in ranked(catalog_of(shuffled), text, engine="bm25")]
    assert a == b


@SETTINGS
@given(cards, query)
def test_strict_and_synonym_switches_only_remove_hits(pairs, text):
    catalog = build(pairs)
    loose = {h.id for h in ranked(catalog, text)}
    assert {h.id for h in ranked(catalog, text, strict=True)} <= loose
    assert {h.id for h in ranked(catalog, text, synonyms=False)} <= loose
    assert all(h.match != "partial" for h in ranked(catalog, text, strict=True))

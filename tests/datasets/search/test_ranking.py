"""Ranking tiers, name variants, the verification prior, explanations, kinds."""

from __future__ import annotations

from datetime import date

import pytest

from eagle_rag_datasets import DatasetCatalog, DatasetQuery, LicenseVerdict
from eagle_rag_datasets.search.ranking import PRIOR_WEIGHT, RankedHit, Tier, order, prior
from tests.datasets.conftest import card, ids

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def tiers() -> DatasetCatalog:
    return DatasetCatalog.from_records([
        card("x/desc", "Other Corpus", "A resource that mentions the Gamma Set in its description."),
        card("x/partname", "Gamma Set Extended", "More data."),
        card("x/alias", "Something", "Unrelated words.", aliases=["Gamma Set"]),
        card("x/exact", "Gamma Set", "The original."),
        card("x/tag", "Tagged", "Nothing here.", tags=["gamma set"]),
    ])


def test_exact_then_alias_then_name_then_text(tiers):
    response = tiers.search("Gamma Set")
    assert ids(response)[:3] == ["x/exact", "x/alias", "x/partname"]
    assert [h.match for h in response.hits] == ["exact", "alias", "lexical", "lexical", "lexical"]
    assert [h.fields for h in response.hits] == ["name", "name", "name", "text", "text"]
    assert set(ids(response)[3:]) == {"x/desc", "x/tag"}


@pytest.mark.parametrize("variant", ["BC5CDR", "bc5cdr", "BC5-CDR", "bc5_cdr", "BC5 CDR", "ＢＣ５ＣＤＲ", " bc5cdr "])
def test_name_variants_point_to_the_same_card(mini, variant):
    hit = mini.search(variant).hits[0]
    assert (hit.id, hit.match) in {("t/bc5cdr", "exact"), ("t/bc5cdr", "alias")}


def test_name_hit_ranks_above_description_hit(mini):
    # ChemProt mentions BC5CDR in its description only; "benchmarks" is a generic word.
    response = mini.search("BC5CDR benchmarks")
    assert ids(response) == ["t/bc5cdr", "t/chemprot"]
    assert [(h.match, h.fields) for h in response.hits] == [("exact", "name"), ("lexical", "text")]


def test_prior_formula_arithmetic():
    assert prior(None, date(2026, 11, 1)) == 0.0
    fresh = LicenseVerdict("permissive", ("a", "b", "c", "d"), date(2026, 10, 1))
    assert prior(fresh, date(2026, 11, 1)) == 0.5 * 1.0 + 0.5 * 1.0
    old = LicenseVerdict("permissive", ("a", "b"), date(2026, 11, 1).replace(year=2025))
    as_of = date(2026, 11, 1).replace(year=2026)
    days = (as_of - old.verified).days  # 365: still fully recent
    assert days == 365 and prior(old, as_of) == 0.5 * 1.0 + 0.5 * 2 / 3
    stale = LicenseVerdict("permissive", ("a", "b"), date(2024, 6, 14))
    days = (as_of - stale.verified).days
    assert prior(stale, as_of) == pytest.approx(0.5 * (1 - (days - 365) / 730) + 0.5 * 2 / 3)
    assert prior(LicenseVerdict("x", (), None), as_of) == 0.0


def test_prior_breaks_ties_and_can_be_switched_off():
    verdict = {"verdict": "permissive", "evidence": ["https://a", "https://b", "https://c"], "verified": "2026-10-01"}
    twins = DatasetCatalog.from_records([
        card("z/a", "Twin Corpus A", "identical text"),
        card("z/b", "Twin Corpus B", "identical text", license_verdict=verdict),
    ])
    as_of = date(2026, 11, 1)
    with_prior = twins.search(DatasetQuery("identical text", as_of=as_of, explain=True))
    without = twins.search(DatasetQuery("identical text", as_of=as_of, prior=False, explain=True))
    assert ids(with_prior) == ["z/b", "z/a"] and ids(without) == ["z/a", "z/b"]  # id breaks the tie
    assert with_prior.hits[0].explanation["prior_factor"] == 1 + PRIOR_WEIGHT * 1.0
    assert without.hits[0].explanation["prior_factor"] == 1.0


def test_prior_never_crosses_a_tier():
    low = RankedHit(0, "a", Tier.TEXT, 1.0, 0.0, score=1.0, prior=1.0)
    high = RankedHit(1, "b", Tier.NAME, 1.0, 1.0, score=0.1, prior=0.0)
    assert [h.card_id for h in order([low, high])] == ["b", "a"]


def test_explanation_per_hit(mini):
    hit = mini.search("chemical disease relation", explain=True).hits[0]
    expl = hit.explanation
    assert hit.id == "t/bc5cdr" and expl["tier_name"] == "text" and expl["coverage"] == 1.0
    assert {u["unit"] for u in expl["units"]} == {"chemical", "disease", "relation"}
    assert expl["engine"] == "index" and expl["engine_score"] > 0
    assert mini.search("chemical disease relation").hits[0].explanation is None


def test_datasets_rank_before_models_in_a_tier():
    cat = DatasetCatalog.from_records([
        card("m/bert", "ClinicalBERT", "clinical notes model", tags=["词向量/预训练模型"]),
        card("m/data", "Notes Corpus", "clinical notes corpus"),
    ])
    response = cat.search("clinical notes")
    assert ids(response) == ["m/data", "m/bert"] and [h.kind for h in response.hits] == ["dataset", "model"]

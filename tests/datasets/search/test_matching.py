"""Typo tolerance on names, aliases and ids: labelled, after exact hits, never across digits."""

from __future__ import annotations

import pytest

from eagle_rag_datasets import DatasetCatalog
from eagle_rag_datasets.search.matching import max_distance
from tests.datasets.conftest import card, ids

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def names() -> DatasetCatalog:
    return DatasetCatalog.from_records([
        card("n/medmentions", "MedMentions", "biomedical concepts"),
        card("n/mimic3", "MIMIC-III", "critical care records"),
        card("n/chip2020", "CHIP2020", "评测"),
        card("n/medqa", "MedQA", "board exam questions"),
        card("n/cmedqa", "cMedQA", "Chinese QA"),
        card("n/linnaeus", "LINNAEUS", "species mentions"),
    ])


def test_distance_limits():
    assert [max_distance("x" * n) for n in (4, 5, 8, 9, 20)] == [0, 1, 1, 2, 2]


@pytest.mark.parametrize("query, expected", [
    ("MedMentons", "n/medmentions"), ("medmentionss", "n/medmentions"), ("LINAEUS", "n/linnaeus"),
    ("Medmnetions", "n/medmentions"),  # transposition counts as one edit (OSA)
])
def test_typos_are_found_and_labelled(names, query, expected):
    response = names.search(query)
    assert ids(response) == [expected] and response.hits[0].match == "typo"


@pytest.mark.parametrize("query", ["MIMIC-IV", "CHIP2019", "dMedQA", "MedQ"])
def test_digits_and_first_letter_are_never_corrected(names, query):
    assert names.search(query).total == 0


def test_typos_rank_after_exact_and_switch_off(names):
    response = names.search("MedQA", semantic=False)
    assert ids(response) == ["n/medqa"]  # cMedQA is not a typo of MedQA (first letter)
    assert names.search("MedMentons", typos=False, semantic=False).total == 0


def test_typo_inside_a_longer_query(catalog):
    response = catalog.search("Halmarks of Cancer")
    assert response.hits[0].id == "bigbio/hallmarks_of_cancer" and response.hits[0].match in {"typo", "partial"}

"""The reply: honest empty answers with reasons, exhaustive lists, counts per match kind."""

from __future__ import annotations

import pytest

from eagle_rag_datasets import DatasetQuery
from tests.datasets.conftest import ids

pytestmark = pytest.mark.unit


def test_empty_without_filters_says_so(mini):
    response = mini.search("ImageNet")  # a dataset name no card carries: a constraint no card satisfies
    assert response.hits == () and response.total == 0 and response.exhaustive is True
    assert response.exclusions == () and "no card in the catalog names ImageNet (0 of 12)" in response.message
    assert response.verdict == "unsatisfied" and response.absent
    response = mini.search("glittery wallpaper", semantic=False)  # the lexical channel alone never says complete
    assert response.verdict == "semantic_off" and not response.absent
    assert "No card in the catalog (12 cards)" in response.message and "was off" in response.message


def test_empty_with_filters_counts_each_filter_alone(mini):
    # "NCBI disease" (strict): only the exact card, which is English, CC0, NER, from bigbio.
    response = mini.search(DatasetQuery("NCBI Disease", strict=True, languages=("zh",), licenses=("cc0",),
                                        sources=("bigbio",)))
    assert response.total == 0 and response.matches_without_filters == 1
    by_filter = {e.filter: (e.excluded_matches, e.excluded_catalog) for e in response.exclusions}
    # catalog: 7 of 12 cards have Chinese (MedQA too), 1 is CC0, 5 come from bigbio
    assert by_filter == {"languages": (1, 12 - 7), "licenses": (0, 12 - 1), "sources": (0, 12 - 5)}
    assert "the language filter excludes 1" in response.message


def test_filters_task_and_tag(mini):
    response = mini.search(DatasetQuery("relation", tasks=("RELATION_EXTRACTION",), tags=("PubMed",)))
    assert set(ids(response)) == {"t/bc5cdr", "t/chemprot"}
    assert mini.search(DatasetQuery("relation", tasks=("summarization",))).total == 0


def test_exhaustive_flag(mini):
    full = mini.search("chemical", top_k=10)
    assert full.exhaustive and full.total == len(full.hits)
    cut = mini.search("医", top_k=2)
    assert not cut.exhaustive and cut.total > 2 and len(cut.hits) == 2 and "first 2" in cut.message


def test_counts_by_match_kind(mini):
    response = mini.search("BC5CDR")
    assert response.counts == {"exact": 1, "lexical": 1}

"""Honest answers: empty with reasons, exhaustive lists, id checks, and clean input errors."""

from __future__ import annotations

import pytest

from eagle_rag_datasets import DatasetQuery, InvalidQueryError, UnknownEngineError
from tests.datasets.conftest import ids

pytestmark = pytest.mark.unit


def test_empty_without_filters_says_so(mini):
    response = mini.search("ImageNet")
    assert response.hits == () and response.total == 0 and response.exhaustive is True
    assert response.exclusions == () and "No card in the catalog (12 cards)" in response.message


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


def test_check_ids(mini):
    answer = mini.check_ids(["t/bc5cdr", "t/BC5CDR", "bc5-cdr", "ncbi_disease", "nope", "t/bc5cdr"])
    assert answer.known == ("t/bc5cdr",) and answer.unknown == ("nope",)
    assert answer.resolved == {"t/BC5CDR": "t/bc5cdr", "bc5-cdr": "t/bc5cdr", "ncbi_disease": "t/ncbi_disease"}
    assert answer.to_dict()["all_known"] is False
    assert mini.check_ids(["t/cmedqa"]).all_known


def test_check_ids_ambiguous(catalog):
    answer = catalog.check_ids(["CHIP2020"])
    assert len(answer.ambiguous["CHIP2020"]) >= 5 and not answer.unknown


@pytest.mark.parametrize("kwargs, code", [
    ({"text": ""}, "invalid_query"), ({"text": "   "}, "invalid_query"), ({"text": "x", "top_k": 0}, "invalid_query"),
    ({"text": "x", "top_k": 101}, "invalid_query"), ({"text": "x", "top_k": True}, "invalid_query"),
    ({"text": "x", "engine": "magic"}, "unknown_engine"), ({"text": "x" * 1001}, "invalid_query"),
    ({"text": "x", "languages": ("",)}, "invalid_query"), ({"text": "x", "tags": ("y" * 201,)}, "invalid_query"),
])
def test_bad_input_raises_a_value_error_with_a_code(mini, kwargs, code):
    with pytest.raises(ValueError) as info:
        mini.search(DatasetQuery(**kwargs))
    assert isinstance(info.value, InvalidQueryError) and info.value.code == code
    shape = info.value.to_dict()["error"]
    assert set(shape) == {"code", "message", "details"} and shape["message"]


def test_unknown_engine_lists_the_valid_ones(mini):
    with pytest.raises(UnknownEngineError, match="index, bm25, substring"):
        mini.search("x", engine="elastic")


@pytest.mark.parametrize("bad", [[], "t/bc5cdr", [""], [3], ["x"] * 1001])
def test_check_ids_bad_input(mini, bad):
    with pytest.raises(InvalidQueryError):
        mini.check_ids(bad)


def test_unknown_option_is_refused(mini):
    with pytest.raises(InvalidQueryError, match="unknown search option"):
        mini.search("x", colour="red")

"""The id check of the catalog: known, resolved, ambiguous and unknown ids, and its input limits."""

from __future__ import annotations

import pytest

from eagle_rag_datasets import InvalidQueryError

pytestmark = pytest.mark.unit


def test_check_ids(mini):
    answer = mini.check_ids(["t/bc5cdr", "t/BC5CDR", "bc5-cdr", "ncbi_disease", "nope", "t/bc5cdr"])
    assert answer.known == ("t/bc5cdr",) and answer.unknown == ("nope",)
    assert answer.resolved == {"t/BC5CDR": "t/bc5cdr", "bc5-cdr": "t/bc5cdr", "ncbi_disease": "t/ncbi_disease"}
    assert answer.to_dict()["all_known"] is False
    assert mini.check_ids(["t/cmedqa"]).all_known


def test_check_ids_ambiguous(catalog):
    answer = catalog.check_ids(["CHIP2020"])
    assert len(answer.ambiguous["CHIP2020"]) >= 5 and not answer.unknown


@pytest.mark.parametrize("bad", [[], "t/bc5cdr", [""], [3], ["x"] * 1001])
def test_check_ids_bad_input(mini, bad):
    with pytest.raises(InvalidQueryError):
        mini.check_ids(bad)

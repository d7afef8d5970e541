"""The stages of one search: strict mode drops partial matches before the filters run."""

from __future__ import annotations

import pytest

from eagle_rag_datasets import DatasetQuery
from eagle_rag_datasets.search.pipeline import run_search
from tests.datasets.conftest import ids

pytestmark = pytest.mark.unit


def test_strict_mode(mini):
    loose = mini.search("disease relation")
    strict = mini.search("disease relation", strict=True)
    assert ids(strict) == ["t/bc5cdr"] and strict.partial_hidden == loose.total - 1
    assert set(ids(strict)) <= set(ids(loose))
    empty = mini.search("disease zzzqqq", strict=True)
    assert empty.total == 0 and empty.partial_hidden > 0 and "without strict" in empty.message


def test_filters_run_after_strict_mode(mini):
    """Partial matches hidden by strict mode are counted whatever the filters keep."""
    plain = mini.search("disease relation", strict=True)
    filtered = run_search(mini, DatasetQuery("disease relation", strict=True, languages=("zh",)).validated())
    assert filtered.total == 0 and filtered.matches_without_filters == plain.total == 1
    assert filtered.partial_hidden == plain.partial_hidden > 0

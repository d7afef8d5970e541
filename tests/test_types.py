"""The request vocabulary refuses what no surface would take, when it is made."""

from __future__ import annotations

import pytest

from eagle_rag.errors import InvalidRequest
from eagle_rag.types import FLAG_FIELDS, SearchRequest

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("name", FLAG_FIELDS)
@pytest.mark.parametrize("value", [0, 1, "yes", None])
def test_a_search_request_refuses_a_flag_that_is_not_a_boolean(name, value):
    """``SearchRequest(explain=0)`` was made, and only a search refused it (issue 34)."""
    with pytest.raises(InvalidRequest) as info:
        SearchRequest(query="x", **{name: value})
    assert info.value.message == f"{name} must be true or false, got {type(value).__name__}"
    assert info.value.details == {"field": name}


def test_booleans_are_taken():
    request = SearchRequest(query="x", explain=True, has_image=False, exhaustive=True)
    assert (request.explain, request.has_image, request.exhaustive) == (True, False, True)

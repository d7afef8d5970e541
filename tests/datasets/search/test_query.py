"""The search request: bad input is refused with a coded error that is a core InvalidRequest."""

from __future__ import annotations

import pytest

from eagle_rag.errors import EagleError, InvalidRequest
from eagle_rag_datasets import DatasetQuery, InvalidQueryError, UnknownEngineError

pytestmark = pytest.mark.unit


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
    # a core InvalidRequest, so callers of the core API catch it and HTTP answers it with a 400
    assert isinstance(info.value, InvalidRequest) and isinstance(info.value, EagleError)
    assert info.value.http_status == 400


def test_unknown_engine_lists_the_valid_ones(mini):
    with pytest.raises(UnknownEngineError, match="index, bm25, substring"):
        mini.search("x", engine="elastic")


def test_unknown_option_is_refused(mini):
    with pytest.raises(InvalidQueryError, match="unknown search option"):
        mini.search("x", colour="red")

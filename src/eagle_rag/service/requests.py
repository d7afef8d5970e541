"""Requests: the validation and parsing every front end shares, before any store is touched.

A kb name, a mode given as a string, the list filters of a :class:`~eagle_rag.types.SearchRequest`
written the way a Python caller may write them: each is turned into its declared type here or
refused with one :class:`~eagle_rag.errors.InvalidRequest` naming the field.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from typing import Annotated, Any

from pydantic import AfterValidator, Field, StringConstraints

from eagle_rag.errors import InvalidRequest
from eagle_rag.stores import filters as store_filters
from eagle_rag.types import SearchMode, SearchRequest


def _plain_text(value: str) -> str:
    """Refuse NUL characters and lone surrogates (they cannot be stored or encoded as UTF-8)."""
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text (no lone surrogates)") from None
    return value


def _filter_value(value: str) -> str:
    """A filter value (id, tag): plain text without any control character (tab and newline included)."""
    _plain_text(value)
    bad = next((c for c in value if unicodedata.category(c) == "Cc"), None)
    if bad is not None:
        raise ValueError(f"must not contain the control character U+{ord(bad):04X}")
    return value


NO_NUL_PATTERN = "^[^\\u0000]*$"
"""The schema's word for :func:`_plain_text` (a client's generator then makes no NUL the server refuses)."""
NO_CONTROL_PATTERN = "^[^\\u0000-\\u001f\\u007f-\\u009f]*$"
"""The schema's word for :func:`_filter_value`: no character of Unicode category Cc."""
PlainText = Annotated[str, Field(json_schema_extra={"pattern": NO_NUL_PATTERN}), AfterValidator(_plain_text)]
FilterValue = Annotated[str, StringConstraints(min_length=1, max_length=256),
                        Field(json_schema_extra={"pattern": NO_CONTROL_PATTERN}), AfterValidator(_filter_value)]


def require_kb_name(name: str) -> str:
    """Raise InvalidRequest (the request error every front end answers, 400 over HTTP) unless ``name`` is 1-64
    letters, digits, ``_``, ``-`` or ``.``; the store layer's own check is
    :func:`eagle_rag.stores.filters.validate_kb_name` (InvalidFilterError), which this one wraps."""
    try:
        return store_filters.validate_kb_name(name)
    except store_filters.InvalidFilterError as exc:
        raise InvalidRequest(f"invalid kb name {name!r}: {exc}", {"field": "kb_name"}) from exc


def normalised(request: SearchRequest) -> SearchRequest:
    """``request`` with the forms a Python caller may write turned into the declared types.

    A mode given as a string (``"hybrid"``) becomes its :class:`SearchMode`; a filter given as a list
    becomes a tuple, and a single string a one-value tuple (``kb_names="mykb"``, not one kb name per
    letter). Raises InvalidRequest for an unknown mode or a field of the wrong type.
    """
    mode = request.mode
    if not isinstance(mode, SearchMode):
        if not isinstance(mode, str):
            raise InvalidRequest(f"mode must be a string, got {type(mode).__name__}", {"field": "mode"})
        mode = parse_mode(mode)
    if isinstance(request.top_k, bool) or not isinstance(request.top_k, int):
        raise InvalidRequest(f"top_k must be an integer, got {type(request.top_k).__name__}", {"field": "top_k"})
    if isinstance(request.offset, bool) or not isinstance(request.offset, int):
        raise InvalidRequest(f"offset must be an integer, got {type(request.offset).__name__}", {"field": "offset"})
    for name in ("published_from", "published_to"):
        value = getattr(request, name)
        if value is not None and not isinstance(value, str):
            raise InvalidRequest(f"{name} must be a date string, got {type(value).__name__}", {"field": name})
    for name in ("diversity", "recency"):
        value = getattr(request, name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise InvalidRequest(f"{name} must be a number, got {type(value).__name__}", {"field": name})
    limit = request.max_per_document
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
        raise InvalidRequest(f"max_per_document must be an integer, got {type(limit).__name__}",
                             {"field": "max_per_document"})
    lists: dict[str, Any] = {name: _as_tuple(name, getattr(request, name)) for name in (*FILTER_FIELDS, "facets")}
    lists["source_types"] = tuple(v.lower() if isinstance(v, str) else v for v in lists["source_types"])
    if request.image is not None and not isinstance(request.image, bytes | bytearray):
        raise InvalidRequest(f"image must be the bytes of an image file, got {type(request.image).__name__}",
                             {"field": "image"})
    has_image = request.has_image or request.image is not None
    return dataclasses.replace(request, mode=mode, has_image=has_image, **lists)


def _as_tuple(name: str, values: object) -> tuple[str, ...]:
    """A filter field as a tuple: a single string is one value. Raises InvalidRequest for other types."""
    if isinstance(values, str):
        return (values,)
    if isinstance(values, (set, frozenset)):
        return tuple(sorted(values, key=str))
    if isinstance(values, (list, tuple)):
        return tuple(values)
    raise InvalidRequest(f"{name} must be a list of strings, got {type(values).__name__}", {"field": name})


FILTER_FIELDS = ("kb_names", "document_ids", "tags", "source_types", "chunk_types", "sections", "doc_types")
"""The list-valued filters of a :class:`SearchRequest`."""
DOCUMENT_FILTERS = ("kb_names", "document_ids", "tags")
"""The filters that keep or drop whole documents (counted among every match of an empty answer)."""
METADATA_FILTERS = ("source_types", "chunk_types", "sections", "doc_types", "published")
"""The names under which the chunk-attribute filters are counted in ``excluded_by_filter``."""


def parse_mode(value: str) -> SearchMode:
    try:
        return SearchMode.from_str(value)  # type: ignore[return-value]
    except ValueError as exc:
        raise InvalidRequest(str(exc), {"field": "mode"}) from exc

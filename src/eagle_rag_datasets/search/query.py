"""The search request: a typed, validated query with its options and filters (docs/datasets.md,
section 9)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from datetime import date
from typing import Any

from eagle_rag_datasets.errors import InvalidQueryError
from eagle_rag_datasets.search.engines import Engine

MAX_QUERY_CHARS = 1000
MAX_FILTER_VALUES = 50
MAX_TOP_K = 100
FILTERS = ("languages", "licenses", "tasks", "sources", "tags")
FILTER_LABELS = {"languages": "language", "licenses": "licence", "tasks": "task", "sources": "source",
                 "tags": "tag"}


@dataclass(frozen=True)
class DatasetQuery:
    """A dataset-card search.

    ``top_k``: 1..100 hits returned. ``strict``: every query term required (no partial or semantic hits).
    ``semantic``: the semantic channel (multilingual e5; engines ``index`` and ``bm25``).
    ``synonyms``/``typos``: expansion switches. ``prior``: the verification prior (see
    :func:`eagle_rag_datasets.search.ranking.prior`). ``explain``: a score explanation per hit.
    Filters (any value of one filter, all filters together): ``languages`` (ISO codes or names),
    ``licenses`` (licence ids; ``cc-by`` matches every version), ``tasks``, ``sources``, ``tags``.
    ``as_of``: the date the prior measures recency from (today when None).
    """

    text: str
    top_k: int = 10
    engine: str = Engine.INDEX.value
    strict: bool = False
    semantic: bool = True
    synonyms: bool = True
    typos: bool = True
    prior: bool = True
    explain: bool = False
    languages: tuple[str, ...] = ()
    licenses: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    as_of: date | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DatasetQuery:
        """Build from plain data (service layer, eval files); unknown keys raise InvalidQueryError."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known - {"query", "k"})
        if unknown:
            raise InvalidQueryError(f"unknown search option(s): {', '.join(unknown)}",
                                    {"unknown": unknown, "valid": sorted(known)})
        values = dict(data)
        if "query" in values:
            values["text"] = values.pop("query")
        if "k" in values:
            values["top_k"] = values.pop("k")
        for name in FILTERS:
            if name in values:
                values[name] = _as_tuple(values[name], name)
        return cls(**values)

    def validated(self) -> DatasetQuery:
        """The query with its values checked and cleaned. Raises :class:`InvalidQueryError`
        (empty query, top_k outside 1..100, bad filter values) or ``UnknownEngineError``."""
        if not isinstance(self.text, str) or not self.text.strip():
            raise InvalidQueryError("the query is empty: give one or more words to search for",
                                    {"field": "query"})
        if len(self.text) > MAX_QUERY_CHARS:
            raise InvalidQueryError(f"the query is longer than {MAX_QUERY_CHARS} characters",
                                    {"field": "query", "length": len(self.text)})
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, int) or not 1 <= self.top_k <= MAX_TOP_K:
            raise InvalidQueryError(f"top_k must be an integer from 1 to {MAX_TOP_K}, got {self.top_k!r}",
                                    {"field": "top_k", "value": repr(self.top_k)})
        engine = Engine.from_str(self.engine)
        cleaned: dict[str, Any] = {name: _clean_values(getattr(self, name), name) for name in FILTERS}
        return replace(self, text=self.text.strip(), engine=engine.value, **cleaned)

    def active_filters(self) -> dict[str, tuple[str, ...]]:
        return {name: getattr(self, name) for name in FILTERS if getattr(self, name)}


def _as_tuple(value: Any, name: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Iterable):
        return tuple(value)
    raise InvalidQueryError(f"filter {name!r} must be a string or a list of strings", {"field": name})


def _clean_values(values: Any, name: str) -> tuple[str, ...]:
    values = _as_tuple(values, name)
    if len(values) > MAX_FILTER_VALUES:
        raise InvalidQueryError(f"filter {name!r} has more than {MAX_FILTER_VALUES} values", {"field": name})
    out = []
    for value in values:
        if not isinstance(value, str) or not value.strip() or len(value) > 200:
            raise InvalidQueryError(f"filter {name!r} values must be non-empty strings of at most 200 characters",
                                    {"field": name, "value": repr(value)[:80]})
        out.append(value.strip())
    return tuple(dict.fromkeys(out))

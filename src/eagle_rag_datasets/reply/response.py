"""Typed responses of the datasets plugin; ``to_dict()`` gives the plain JSON shape."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class DatasetHit:
    """One hit.

    ``kind``: dataset, model, tool, product, article or link. ``match``: exact | alias | lexical |
    synonym | typo | partial | semantic. ``similarity``: the cosine of the query's and the card's
    e5 vectors when the semantic channel found the card above its floor, else None. ``fields``: where
    the query terms were found ("name": name, aliases
    or id; "text": also description, tags or tasks). ``coverage``: share of the query terms found
    (1.0 unless partial).
    """

    rank: int
    id: str
    name: str
    kind: str
    match: str
    fields: str
    coverage: float
    score: float
    similarity: float | None
    license: str | None
    license_id: str
    license_verdict: dict[str, Any] | None
    languages: tuple[str, ...]
    tasks: tuple[str, ...]
    tags: tuple[str, ...]
    source: str | None
    homepage: str | None
    description: str
    explanation: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "rank": self.rank, "id": self.id, "name": self.name, "kind": self.kind, "match": self.match,
            "fields": self.fields,
            "coverage": round(self.coverage, 4), "score": round(self.score, 4),
            "similarity": None if self.similarity is None else round(self.similarity, 4), "license": self.license,
            "license_id": self.license_id, "license_verdict": self.license_verdict,
            "languages": list(self.languages), "tasks": list(self.tasks), "tags": list(self.tags),
            "source": self.source, "homepage": self.homepage, "description": self.description,
        }
        if self.explanation is not None:
            out["explanation"] = self.explanation
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DatasetHit:
        """The hit of :meth:`to_dict` (an HTTP answer)."""
        return cls(rank=int(data["rank"]), id=data["id"], name=data["name"], kind=data["kind"], match=data["match"],
                   fields=data["fields"], coverage=float(data["coverage"]), score=float(data["score"]),
                   similarity=None if data.get("similarity") is None else float(data["similarity"]),
                   license=data.get("license"), license_id=data.get("license_id", ""),
                   license_verdict=data.get("license_verdict"), languages=tuple(data.get("languages") or ()),
                   tasks=tuple(data.get("tasks") or ()), tags=tuple(data.get("tags") or ()),
                   source=data.get("source"), homepage=data.get("homepage"),
                   description=data.get("description", ""), explanation=data.get("explanation"))


@dataclass(frozen=True)
class FilterExclusion:
    """How many cards one filter, on its own, excludes: of the cards matching the query text, and
    of the whole catalog."""

    filter: str
    values: tuple[str, ...]
    excluded_matches: int
    excluded_catalog: int

    def to_dict(self) -> dict[str, Any]:
        return {"filter": self.filter, "values": list(self.values), "excluded_matches": self.excluded_matches,
                "excluded_catalog": self.excluded_catalog}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FilterExclusion:
        return cls(data["filter"], tuple(data["values"]), int(data["excluded_matches"]), int(data["excluded_catalog"]))


@dataclass(frozen=True)
class Suggestion:
    """A card offered when a constraint emptied the answer: not a match. ``similarity``: its cosine
    to the query (None without the semantic channel); ``fails``: the constraints it does not satisfy."""

    id: str
    name: str
    similarity: float | None
    languages: tuple[str, ...]
    fails: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name,
                "similarity": None if self.similarity is None else round(self.similarity, 4),
                "languages": list(self.languages), "fails": list(self.fails)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Suggestion:
        return cls(data["id"], data["name"], None if data.get("similarity") is None else float(data["similarity"]),
                   tuple(data.get("languages") or ()), tuple(data.get("fails") or ()))


@dataclass(frozen=True)
class DatasetSearchResponse:
    """The answer to a search.

    ``total``: every matching card (after filters); ``exhaustive``: True when ``hits`` holds all of
    them (also True, with ``total == 0``, when nothing matches: the answer is complete).
    ``counts``: matches per kind. ``matches_without_filters``: what the query text alone matches;
    ``exclusions``: per active filter, how many of those it excludes on its own.
    ``partial_hidden``: partial matches left out because the request was strict.
    ``constraints``: the query's constraint terms (kind, term, label, cards satisfying it, of how
    many); ``unsatisfied``: those that emptied the answer; ``suggestions``: the nearest cards then,
    apart from the hits. ``semantic``: whether the semantic channel ran, its floor and the best
    similarity within the filters and constraints. ``verdict``: found | unsatisfied | unconfirmed | filtered |
    strict | semantic_off | uncertain | absent (``eagle_rag_datasets.reply.build.Verdict``);
    :attr:`absent`: the answer is empty and says the catalog holds no such card (``unsatisfied`` or
    ``absent``; never said when the semantic channel could not run or some card came near).
    """

    query: str
    engine: str
    hits: tuple[DatasetHit, ...]
    total: int
    exhaustive: bool
    message: str
    counts: dict[str, int] = field(default_factory=dict)
    strict: bool = False
    synonyms: bool = True
    filters: dict[str, tuple[str, ...]] = field(default_factory=dict)
    matches_without_filters: int = 0
    exclusions: tuple[FilterExclusion, ...] = ()
    partial_hidden: int = 0
    catalog_size: int = 0
    catalog_version: str = ""
    warnings: tuple[str, ...] = ()
    constraints: tuple[dict[str, Any], ...] = ()
    unsatisfied: tuple[dict[str, Any], ...] = ()
    suggestions: tuple[Suggestion, ...] = ()
    semantic: dict[str, Any] = field(default_factory=dict)
    verdict: str = ""

    @property
    def absent(self) -> bool:
        return self.verdict in ("unsatisfied", "absent")

    @property
    def empty(self) -> bool:
        return not self.hits

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query, "engine": self.engine, "total": self.total, "returned": len(self.hits),
            "exhaustive": self.exhaustive, "empty": self.empty, "message": self.message,
            "counts": dict(self.counts), "strict": self.strict, "synonyms": self.synonyms,
            "filters": {k: list(v) for k, v in self.filters.items()},
            "matches_without_filters": self.matches_without_filters,
            "exclusions": [e.to_dict() for e in self.exclusions], "partial_hidden": self.partial_hidden,
            "catalog_size": self.catalog_size, "catalog_version": self.catalog_version,
            "warnings": list(self.warnings), "constraints": [dict(c) for c in self.constraints],
            "unsatisfied": [dict(c) for c in self.unsatisfied], "verdict": self.verdict, "absent": self.absent,
            "semantic": dict(self.semantic), "hits": [h.to_dict() for h in self.hits],
            "suggestions": [s.to_dict() for s in self.suggestions],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DatasetSearchResponse:
        """The response of :meth:`to_dict` (a ``/datasets/search`` answer); derived keys are ignored."""
        hits = tuple(DatasetHit.from_dict(h) for h in data["hits"])
        return cls(query=data["query"], engine=data["engine"], hits=hits,
                   total=int(data["total"]), exhaustive=bool(data["exhaustive"]), message=data["message"],
                   counts=dict(data.get("counts") or {}), strict=bool(data.get("strict")),
                   synonyms=bool(data.get("synonyms", True)),
                   filters={k: tuple(v) for k, v in (data.get("filters") or {}).items()},
                   matches_without_filters=int(data.get("matches_without_filters", 0)),
                   exclusions=tuple(FilterExclusion.from_dict(e) for e in data.get("exclusions") or ()),
                   partial_hidden=int(data.get("partial_hidden", 0)), catalog_size=int(data.get("catalog_size", 0)),
                   catalog_version=data.get("catalog_version", ""), warnings=tuple(data.get("warnings") or ()),
                   constraints=tuple(data.get("constraints") or ()), unsatisfied=tuple(data.get("unsatisfied") or ()),
                   suggestions=tuple(Suggestion.from_dict(x) for x in data.get("suggestions") or ()),
                   semantic=dict(data.get("semantic") or {}), verdict=data.get("verdict", ""))


@dataclass(frozen=True)
class IdCheckResponse:
    """Which ids the catalog knows. ``known``: exact ids. ``resolved``: a given value that is not an
    id but names exactly one card (an id variant, name or alias) -> that card's id. ``ambiguous``:
    a value naming several cards -> their ids. ``unknown``: everything else."""

    known: tuple[str, ...]
    unknown: tuple[str, ...]
    resolved: dict[str, str]
    ambiguous: dict[str, tuple[str, ...]]
    catalog_size: int

    @property
    def all_known(self) -> bool:
        return not self.unknown and not self.resolved and not self.ambiguous

    def to_dict(self) -> dict[str, Any]:
        return {"known": list(self.known), "unknown": list(self.unknown), "resolved": dict(self.resolved),
                "ambiguous": {k: list(v) for k, v in self.ambiguous.items()}, "all_known": self.all_known,
                "catalog_size": self.catalog_size}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IdCheckResponse:
        """The answer of :meth:`to_dict` (a ``/datasets/check`` answer)."""
        return cls(known=tuple(data["known"]), unknown=tuple(data["unknown"]), resolved=dict(data["resolved"]),
                   ambiguous={k: tuple(v) for k, v in data["ambiguous"].items()},
                   catalog_size=int(data.get("catalog_size", 0)))

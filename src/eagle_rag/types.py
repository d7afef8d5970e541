"""Typed objects that flow between pipeline stages.

Stages never mutate what they receive: they return new objects (``dataclasses.replace``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class _ParseableEnum(StrEnum):
    """A string enum whose ``from_str`` error lists the valid values."""

    @classmethod
    def from_str(cls, value: str) -> _ParseableEnum:
        try:
            return cls(value.strip().lower())
        except ValueError:
            valid = ", ".join(m.value for m in cls)
            raise ValueError(f"unknown {cls.__name__} {value!r}; valid values: {valid}") from None


class SearchMode(_ParseableEnum):
    """Which retrieval channels a search uses."""

    BM25 = "bm25"
    DENSE = "dense"
    HYBRID = "hybrid"
    FULL = "full"


class HybridMode(_ParseableEnum):
    """How the lexical and dense channels of one plan are fused."""

    RRF = "rrf"
    ALPHA = "alpha"


class EncoderMode(_ParseableEnum):
    """How an encoder label resolves to a model."""

    DETERMINISTIC = "deterministic"
    REQUIRE_NATIVE = "require_native"
    AUTO = "auto"


class Modality(_ParseableEnum):
    TEXT = "text"
    VISUAL = "visual"
    RERANK = "rerank"


class DocumentStatus(_ParseableEnum):
    PENDING = "pending"
    COMPLETE = "complete"
    FAILED = "failed"


class MatchKind(_ParseableEnum):
    """Why a hit matched (DESIGN.md section 6)."""

    EXACT = "exact"
    ALIAS = "alias"
    SYNONYM = "synonym"
    PARTIAL = "partial"
    SEMANTIC = "semantic"
    LEXICAL = "lexical"


# --------------------------------------------------------------------------- documents and chunks


@dataclass(frozen=True)
class Section:
    """One block of a parsed document: its heading path and its text."""

    path: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class ParsedDocument:
    """What a parser returns: the document's identity and its sections in reading order."""

    document_id: str
    name: str
    source_uri: str
    sections: tuple[Section, ...]
    source_type: str = "text"
    kb_name: str = "default"
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def full_text(self) -> str:
        return "\n\n".join(s.text for s in self.sections)


@dataclass(frozen=True)
class Chunk:
    """The unit that is indexed and retrieved (also called a node).

    ``path`` is the document navigation (headings joined by " > "). ``id`` is deterministic:
    a hash of document id, path and ordinal, so a re-ingest replaces instead of duplicating.
    """

    id: str
    text: str
    document_id: str
    kb_name: str = "default"
    path: str = ""
    chunk_type: str = "text"
    source_type: str = "text"
    source_chunk_id: str = ""
    ordinal: int = 0
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def node_id(self) -> str:
        return self.id


Node = Chunk


@dataclass(frozen=True)
class StageScore:
    """One entry of a hit's score trail: which stage, the rank it gave (from 1) and its score."""

    stage: str
    rank: int
    score: float
    detail: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class NodeWithScore:
    """A chunk with its current score, the collection it came from and the per-stage trail."""

    node: Chunk
    score: float
    collection: str = ""
    trail: tuple[StageScore, ...] = ()

    @property
    def node_id(self) -> str:
        return self.node.id

    def scored(
        self, stage: str, score: float, rank: int, detail: Mapping[str, float] | None = None
    ) -> NodeWithScore:
        """Return a copy with a new score and one more trail entry."""
        entry = StageScore(stage=stage, rank=rank, score=score, detail=dict(detail or {}))
        return dataclasses.replace(self, score=score, trail=(*self.trail, entry))


def ranked(nodes: list[NodeWithScore], stage: str) -> list[NodeWithScore]:
    """Sort by score (descending, stable) and record ``stage`` with ranks from 1."""
    ordered = sorted(nodes, key=lambda n: -n.score)
    return [n.scored(stage, n.score, rank) for rank, n in enumerate(ordered, start=1)]


# --------------------------------------------------------------------------- classification


@dataclass(frozen=True)
class ChunkClassification:
    """Where one chunk goes: collection, encoder label and chunk type, with the rule that decided."""

    collection: str
    encoder: str
    chunk_type: str = "text"
    exclusive_group: str = ""
    rule: str = ""
    confidence: float = 1.0


# --------------------------------------------------------------------------- query side


@dataclass(frozen=True)
class QueryRetrievalIntent:
    workflow: str = "general"
    suppress_collections: tuple[str, ...] = ()
    section_cues: tuple[str, ...] = ()
    require_entity_match: bool = False


@dataclass(frozen=True)
class ExpandedQuery:
    """The query as the dense channel sees it, extra sparse terms, and the detected intent."""

    dense_query: str
    sparse_terms: tuple[str, ...] = ()
    intent: QueryRetrievalIntent | None = None


@dataclass(frozen=True)
class CollectionQueryPlan:
    """Search one collection with one encoder label."""

    collection: str
    encoder: str
    top_k: int = 20
    hybrid: bool = True
    lexical: bool = True
    dense: bool = True
    reason: str = ""


@dataclass(frozen=True)
class QueryRouteDecision:
    plans: tuple[CollectionQueryPlan, ...]
    retrieval_hints: Mapping[str, Any] = field(default_factory=dict)
    reason: str = ""
    classifier: str = ""


@dataclass(frozen=True)
class SearchRequest:
    """What a caller asks for. Validated by :mod:`eagle_rag.service` before anything runs."""

    query: str
    top_k: int = 5
    kb_names: tuple[str, ...] = ()
    document_ids: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    mode: SearchMode = SearchMode.HYBRID
    explain: bool = False
    namespace: str | None = None
    has_image: bool = False
    exhaustive: bool = False


@dataclass(frozen=True)
class SearchHit:
    id: str
    document_id: str
    text: str
    score: float
    path: str
    collection: str
    match: MatchKind
    metadata: Mapping[str, Any] = field(default_factory=dict)
    trail: tuple[StageScore, ...] = ()


@dataclass(frozen=True)
class SearchResponse:
    """Hits plus what happened: total, whether the list is complete, and why it is empty."""

    query: str
    hits: tuple[SearchHit, ...]
    total: int
    exhaustive: bool
    mode: SearchMode
    empty_reason: str | None = None
    excluded_by_filter: Mapping[str, int] = field(default_factory=dict)
    route: Mapping[str, Any] = field(default_factory=dict)
    timings_ms: Mapping[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

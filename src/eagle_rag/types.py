"""Typed objects that flow between pipeline stages.

Stages never mutate what they receive: they return new objects (``dataclasses.replace``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Self

from eagle_rag.errors import InvalidRequest


class ParseableEnum(StrEnum):
    """A string enum whose ``from_str`` error lists the valid values."""

    @classmethod
    def from_str(cls, value: str) -> Self:
        try:
            return cls(value.strip().lower())
        except ValueError:
            valid = ", ".join(m.value for m in cls)
            raise cls.parse_error(f"unknown {cls.__name__} {value!r}; valid values: {valid}") from None

    @classmethod
    def parse_error(cls, message: str) -> ValueError:
        """The error :meth:`from_str` raises (a subclass may name its request field in an InvalidRequest)."""
        return ValueError(message)


class SearchMode(ParseableEnum):
    """Which retrieval channels a search uses."""

    BM25 = "bm25"
    DENSE = "dense"
    HYBRID = "hybrid"
    FULL = "full"


class HybridMode(ParseableEnum):
    """How the lexical and dense channels of one plan are fused."""

    RRF = "rrf"
    ALPHA = "alpha"


class EncoderMode(ParseableEnum):
    """How an encoder label resolves to a model."""

    DETERMINISTIC = "deterministic"
    REQUIRE_NATIVE = "require_native"
    AUTO = "auto"


class Modality(ParseableEnum):
    TEXT = "text"
    VISUAL = "visual"
    RERANK = "rerank"


class DocumentStatus(ParseableEnum):
    PENDING = "pending"
    COMPLETE = "complete"
    FAILED = "failed"


class TotalRelation(ParseableEnum):
    """How ``SearchResponse.total`` relates to the true number of matches (as Elasticsearch's
    ``hits.total.relation``): ``eq`` exactly, ``gte`` at least (a candidate list was cut)."""

    EQ = "eq"
    GTE = "gte"


class Facet(ParseableEnum):
    """An attribute ``SearchRequest.facets`` counts over the matching set (:mod:`eagle_rag.retrieve.facets`)."""

    SOURCE_TYPE = "source_type"
    DOC_TYPE = "doc_type"
    SECTION = "section"
    YEAR = "year"
    KB = "kb"


class MatchKind(ParseableEnum):
    """Why a hit matched (DESIGN.md section 6)."""

    EXACT = "exact"
    ALIAS = "alias"
    SYNONYM = "synonym"
    PARTIAL = "partial"
    SEMANTIC = "semantic"
    LEXICAL = "lexical"


# --------------------------------------------------------------------------- documents and chunks

KEY_SEPARATOR = "/"
"""Separates the kb name from the document's own id in a storage key (neither may contain it)."""


def document_key(kb_name: str, document_id: str) -> str:
    """The storage key of a document: ``"<kb>/<id>"``, its identity in the registry and every store.

    A document is named by the pair (kb, id): the same id in two kbs is two documents. The key is
    what ``ParsedDocument.document_id``, ``Chunk.document_id`` and ``DocumentRecord.id`` hold once
    a document is written; callers and clients see the public id (:func:`public_document_id`).
    A ``document_id`` that already is a key of ``kb_name`` is returned unchanged.
    """
    if document_id.startswith(f"{kb_name}{KEY_SEPARATOR}"):
        return document_id
    return f"{kb_name}{KEY_SEPARATOR}{document_id}"


def split_document_key(key: str) -> tuple[str | None, str]:
    """``(kb, id)`` of a storage key; ``(None, key)`` for an unscoped (legacy) key, written before
    document identity included the kb (``eagle-rag doctor --repair`` migrates those)."""
    kb_name, sep, document_id = key.partition(KEY_SEPARATOR)
    return (kb_name, document_id) if sep else (None, key)


def public_document_id(key: str) -> str:
    """The id a caller sees (``abs-008``) for a storage key (``demo/abs-008``) or a legacy key."""
    return split_document_key(key)[1]


def is_legacy_key(key: str) -> bool:
    """True for a document key without its kb (written before identity was (kb, id))."""
    return KEY_SEPARATOR not in key



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
    """One entry of a hit's score trail: which stage, the rank it gave (from 1) and its score.

    ``skipped`` names why a stage left this hit unscored (``language``: the model was not trained
    on the language of the query or the passage); the rank and score are then the incoming ones.
    """

    stage: str
    rank: int
    score: float
    detail: Mapping[str, float] = field(default_factory=dict)
    skipped: str = ""


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


SECTION_KEYS = ("section", "biomed_section")
"""Chunk metadata keys read by the ``sections`` filter (a chunk passes when one of them matches)."""
DOC_TYPE_KEYS = ("doc_type", "biomed_doc_type")
"""Chunk metadata keys read by the ``doc_types`` filter (a chunk passes when one of them matches)."""
PUBLISHED_KEYS = ("published", "publication_date", "pub_date", "date", "year")
"""Chunk metadata keys read as the publication date (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` first)."""
_DATE = re.compile(r"(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?")


def leading_date(value: object) -> str | None:
    """The ``YYYY[-MM[-DD]]`` a value starts with (``"2019-06-01T..."`` -> ``"2019-06-01"``), else None."""
    match = _DATE.match(str(value).strip()) if value not in (None, "") else None
    return match.group(0) if match else None


_NOT_WORD = re.compile(r"[^0-9a-z]+")


def filter_fold(value: str) -> str:
    """The form in which section and document-type filter values compare: case-folded, ``&`` read as
    ``and``, every run of other characters one space (``"Dosage & Administration"`` ->
    ``"dosage and administration"``, ``"drug_label"`` -> ``"drug label"``)."""
    return " ".join(_NOT_WORD.sub(" ", value.casefold().replace("&", " and ")).split())


def attribute_values(metadata: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[str, ...]:
    """The values a chunk carries under ``keys`` (e.g. :data:`SECTION_KEYS`), in key order, unique."""
    return tuple(dict.fromkeys(str(metadata[k]) for k in keys if metadata.get(k) not in (None, "")))


def _first(metadata: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = metadata.get(key)
        if value not in (None, ""):
            return str(value)
    return None


def _date_within(date: str, low: str | None, high: str | None) -> bool:
    """Compare at the coarser of the two precisions: a document of ``2019`` is within ``2019-06``."""
    if low is not None and date[: len(low)] < low[: len(date)]:
        return False
    return high is None or date[: len(high)] <= high[: len(date)]


@dataclass(frozen=True)
class MetadataFilter:
    """Filters on chunk attributes that the stores cannot all index; values compare case-insensitively.

    Empty tuples and None mean "no restriction". A hit passes when it passes every filter given; a
    section or document type passes when one of the chunk's values (:data:`SECTION_KEYS`,
    :data:`DOC_TYPE_KEYS`) equals a wanted one after :func:`filter_fold`; with a date bound, a chunk
    without a publication date (:data:`PUBLISHED_KEYS`) does not pass.
    """

    source_types: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()
    doc_types: tuple[str, ...] = ()
    published_from: str | None = None
    published_to: str | None = None

    @property
    def empty(self) -> bool:
        return not (self.source_types or self.sections or self.doc_types or self.published_from
                    or self.published_to)

    def failing(self, chunk: Chunk) -> tuple[str, ...]:
        """The names of the filters ``chunk`` fails (request field names; empty when it passes)."""
        out: list[str] = []
        if self.source_types and chunk.source_type.casefold() not in _folded(self.source_types):
            out.append("source_types")
        if self.sections and not _any_in(attribute_values(chunk.metadata, SECTION_KEYS), self.sections):
            out.append("sections")
        if self.doc_types and not _any_in(attribute_values(chunk.metadata, DOC_TYPE_KEYS), self.doc_types):
            out.append("doc_types")
        if self.published_from or self.published_to:
            date = leading_date(_first(chunk.metadata, PUBLISHED_KEYS))
            if date is None or not _date_within(date, self.published_from, self.published_to):
                out.append("published")
        return tuple(out)

    def matches(self, chunk: Chunk) -> bool:
        return not self.failing(chunk)


def _folded(values: tuple[str, ...]) -> frozenset[str]:
    return frozenset(v.casefold() for v in values)


def _any_in(values: tuple[str, ...], wanted: tuple[str, ...]) -> bool:
    """Whether one of ``values`` equals one of ``wanted`` once both are :func:`filter_fold`-ed."""
    folded = {filter_fold(w) for w in wanted}
    return any(filter_fold(v) in folded for v in values)


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
    """Search one collection with one encoder label.

    ``weight`` is the plan's list weight in the RRF merge across plans (``w / (k + rank)``): 1 for a
    collection the query is routed to, less for a side collection searched only because it holds rows
    (docs/architecture.md, "Query").
    """

    collection: str
    encoder: str
    top_k: int = 20
    hybrid: bool = True
    lexical: bool = True
    dense: bool = True
    reason: str = ""
    weight: float = 1.0

    def __post_init__(self) -> None:
        if not self.weight > 0:
            raise ValueError(f"a plan's RRF weight must be positive, got {self.weight!r}")


@dataclass(frozen=True)
class QueryRouteDecision:
    plans: tuple[CollectionQueryPlan, ...]
    retrieval_hints: Mapping[str, Any] = field(default_factory=dict)
    reason: str = ""
    classifier: str = ""


@dataclass(frozen=True)
class SearchRequest:
    """What a caller asks for. Validated by :mod:`eagle_rag.service.searching` before anything runs.

    ``offset`` (from 0) skips that many hits of the ranking: page ``n`` of size ``k`` is
    ``offset=n*k, top_k=k`` (``offset + top_k`` at most ``search.max_window``). The metadata
    filters keep a hit only when its chunk has one of the given values (``source_types``,
    ``chunk_types``, ``sections``, ``doc_types``) and, with ``published_from`` / ``published_to``
    (ISO dates ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``, both ends included), a publication date in
    the range.

    The result options are off by default: ``recency`` (a half-life in days) decays each hit's fused
    rank by the age of its publication date (:mod:`eagle_rag.retrieve.recency`; undated hits are not
    decayed and are counted in ``SearchResponse.undated``); ``max_per_document`` keeps at most that many
    chunks of one document; ``diversity`` (the MMR lambda, in [0, 1]: 1 is pure relevance, 0 pure
    novelty) reorders the candidates by maximal marginal relevance over their stored dense vectors
    (:mod:`eagle_rag.retrieve.diversity`); ``facets`` (names of :class:`Facet`) asks counts of those
    attributes over every hit of the matching set (:mod:`eagle_rag.retrieve.facets`).
    """

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
    image: bytes | None = None
    """A query image (the file bytes: PNG, JPEG, TIFF, DICOM, NIfTI): the dense channel of a plan with a
    visual encoder embeds it instead of the text; refused (InvalidRequest) when no visual encoder has
    a model. Implies ``has_image``."""
    offset: int = 0
    source_types: tuple[str, ...] = ()
    chunk_types: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()
    doc_types: tuple[str, ...] = ()
    published_from: str | None = None
    published_to: str | None = None
    diversity: float | None = None
    max_per_document: int | None = None
    recency: float | None = None
    facets: tuple[str, ...] = ()
    min_relevance: float | None = None
    """Drop the hits whose ``relevance`` is under this probability (0 to 1; counted in
    ``SearchResponse.dropped["min_relevance"]``); refused when the profile and mode have no fitted model."""

    def __post_init__(self) -> None:
        """Refuse a flag that is not a boolean when the request is made (``explain=0`` is not ``False``), in
        the words of every surface (HTTP, CLI, MCP). Raises InvalidRequest; the other fields are checked by
        :func:`eagle_rag.service.searching.validate_request` (a mode given as its name is parsed there)."""
        for name in FLAG_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise InvalidRequest(f"{name} must be true or false, got {type(value).__name__}", {"field": name})


FLAG_FIELDS = ("explain", "has_image", "exhaustive")
"""The boolean fields of :class:`SearchRequest`."""


@dataclass(frozen=True)
class SearchHit:
    """One ranked chunk. ``document_id`` is the document's own id (as ingested, e.g. ``abs-008``);
    with ``kb_name`` it names the document (the same id may exist in several kbs). ``relevance`` is the
    calibrated probability that a person would judge the hit relevant to the query
    (:mod:`eagle_rag.retrieve.relevance`); None when the profile and mode have no fitted model."""

    id: str
    document_id: str
    text: str
    score: float
    path: str
    collection: str
    match: MatchKind
    metadata: Mapping[str, Any] = field(default_factory=dict)
    trail: tuple[StageScore, ...] = ()
    kb_name: str = ""
    relevance: float | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SearchHit:
        """The hit of :meth:`SearchResponse.to_dict` (a ``/search`` answer) as the dataclass."""
        trail = tuple(StageScore(stage=e["stage"], rank=int(e["rank"]), score=float(e["score"]),
                                 detail=dict(e.get("detail") or {}), skipped=str(e.get("skipped") or ""))
                      for e in data.get("trail") or ())
        return cls(id=data["id"], document_id=data["document_id"], text=data["text"], score=float(data["score"]),
                   path=data.get("path", ""), collection=data.get("collection", ""),
                   match=MatchKind(data["match"]), metadata=dict(data.get("metadata") or {}), trail=trail,
                   kb_name=str(data.get("kb_name") or (data.get("metadata") or {}).get("kb_name") or ""),
                   relevance=None if data.get("relevance") is None else float(data["relevance"]))


@dataclass(frozen=True)
class SearchResponse:
    """Hits plus what happened: total, whether the list is complete, and why it is empty.

    ``total`` counts the matching hits in the candidate pool of the search (every page of the
    query together); ``total_relation`` says whether that count is exact (``eq``) or a lower
    bound (``gte``: a candidate list was cut at its depth). ``exhaustive`` is true when no match
    lies beyond this page. ``dropped`` says how many candidates were left out and why
    (``semantic_floor``: semantic-only hits under the cosine floor; ``filters``: chunks the
    metadata filters removed). ``warnings`` says how the answer was degraded (a plugin stage that
    failed and was skipped), empty when nothing went wrong. ``filter_values``: when a section or
    document-type filter emptied the list, the values of that attribute that the documents matching
    the query carry (``{"sections": ["adverse_reactions", "dosage"]}``). ``facets``: for each facet
    asked, how many hits of the matching set (every page: the hits ``total`` counts) carry each value
    (``{"year": {"2019": 3, "2023": 1}}``). ``undated``: with ``recency``, how many hits of the matching
    set have no publication date and so were not decayed (0 without ``recency``). ``expected_relevant``
    is the sum of the returned hits' ``relevance`` (the number of relevant hits to expect on this page);
    None when the hits have no relevance, and then ``relevance_note`` says why.
    """

    query: str
    hits: tuple[SearchHit, ...]
    total: int
    exhaustive: bool
    mode: SearchMode
    empty_reason: str | None = None
    excluded_by_filter: Mapping[str, int] = field(default_factory=dict)
    route: Mapping[str, Any] = field(default_factory=dict)
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    total_relation: TotalRelation = TotalRelation.EQ
    offset: int = 0
    dropped: Mapping[str, int] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    filter_values: Mapping[str, Sequence[str]] = field(default_factory=dict)
    facets: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    undated: int = 0
    expected_relevant: float | None = None
    relevance_note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SearchResponse:
        """The response of :meth:`to_dict` (a ``/search`` answer; extra keys are ignored)."""
        return cls(query=data["query"], hits=tuple(SearchHit.from_dict(h) for h in data.get("hits") or ()),
                   total=int(data["total"]), exhaustive=bool(data["exhaustive"]), mode=SearchMode(data["mode"]),
                   empty_reason=data.get("empty_reason"),
                   excluded_by_filter=dict(data.get("excluded_by_filter") or {}),
                   route=dict(data.get("route") or {}), timings_ms=dict(data.get("timings_ms") or {}),
                   total_relation=TotalRelation(data.get("total_relation", "eq")),
                   offset=int(data.get("offset", 0)), dropped=dict(data.get("dropped") or {}),
                   warnings=tuple(data.get("warnings") or ()),
                   filter_values={k: list(v) for k, v in (data.get("filter_values") or {}).items()},
                   facets={name: {str(value): int(count) for value, count in counts.items()}
                           for name, counts in (data.get("facets") or {}).items()},
                   undated=int(data.get("undated") or 0),
                   expected_relevant=(None if data.get("expected_relevant") is None
                                      else float(data["expected_relevant"])),
                   relevance_note=data.get("relevance_note"))


# ------------------------------------------------------------------ names both paths share
VERSION_CHARS = 12
"""Hex digits of the content hash written into a chunk id (its content version)."""
_VERSIONED_ID = re.compile(r"[0-9a-f]{32}-([0-9a-f]{12})")


def content_version(content_hash: str) -> str:
    """The content version written into chunk ids: the first 12 hex digits of the content hash."""
    return content_hash[:VERSION_CHARS]


def chunk_version(chunk_id_: str) -> str | None:
    """The content version of a chunk id (``<32 hex>-<12 hex>``, made by
    :func:`eagle_rag.ingest.chunker.chunk_id`), or None for an unversioned id."""
    match = _VERSIONED_ID.fullmatch(chunk_id_)
    return match.group(1) if match else None


SENTENCE_SUFFIX = "__sentences"
"""The companion collection of collection ``c`` is ``c + SENTENCE_SUFFIX``."""
SENTENCE_ID_SEP = "~s"
"""A sentence row's id is ``<chunk id>~s<ordinal>``."""


def sentence_collection(collection: str) -> str:
    """The name of the companion collection that holds the sentence rows of ``collection``."""
    return f"{collection}{SENTENCE_SUFFIX}"


def parent_chunk_id(row_id: str) -> str:
    """The chunk id of a sentence row id (an id without the separator is returned unchanged)."""
    head, sep, tail = row_id.rpartition(SENTENCE_ID_SEP)
    return head if sep and tail.isdigit() else row_id

"""The one search service: ``search(engine, SearchRequest) -> SearchResponse``.

HTTP, CLI and MCP are thin wrappers around this module. Bad input raises
:class:`eagle_rag.errors.InvalidRequest` (or :class:`NotFound` for an unknown kb name) before any
store is touched.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from eagle_rag import filter_names
from eagle_rag.context import HookContext
from eagle_rag.errors import InvalidRequest, NotFound
from eagle_rag.protocols import StoreFilter
from eagle_rag.redact import public_path
from eagle_rag.retrieve import relevance
from eagle_rag.retrieve.channels import RetrievalTally, tally
from eagle_rag.retrieve.fusion import sparse_overlap_score
from eagle_rag.retrieve.orchestrator import RetrievalResult
from eagle_rag.retrieve.result_options import apply_result_options
from eagle_rag.service import health as index_health
from eagle_rag.service.requests import (
    DOCUMENT_FILTERS,
    FILTER_FIELDS,
    METADATA_FILTERS,
    normalised,
    require_kb_name,
)
from eagle_rag.settings import Settings
from eagle_rag.stores import filters as store_filters
from eagle_rag.stores.availability import is_unavailable, settings_unavailable
from eagle_rag.types import (
    DocumentStatus,
    Facet,
    MatchKind,
    MetadataFilter,
    NodeWithScore,
    SearchHit,
    SearchMode,
    SearchRequest,
    SearchResponse,
    StageScore,
    TotalRelation,
    chunk_version,
    content_version,
    document_key,
    is_legacy_key,
    public_document_id,
)

if TYPE_CHECKING:
    import numpy as np

    from eagle_rag.kernel.runtime import Runtime as Engine

FLIP_RETRIES = 2

def check_query_image(engine: Engine, image: bytes) -> None:
    """Refuse a query image that cannot be searched: empty, over ``ingest.max_file_bytes``, or with no
    visual encoder that has a model (the message names the settings that would configure one).

    Raises InvalidRequest.
    """
    if not image:
        raise InvalidRequest("the query image is empty", {"field": "image"})
    limit = engine.settings.ingest.max_file_bytes
    if len(image) > limit:
        raise InvalidRequest(f"the query image has {len(image)} bytes; the limit is {limit}",
                             {"field": "image", "limit": limit})
    usable, reasons = engine.encoders.visual_encoders()
    if not usable:
        raise InvalidRequest("a query image needs a visual encoder and none has a model; search by text, or "
                             "configure one: " + ("; ".join(reasons) or "no visual encoder label is registered"),
                             {"field": "image", "missing": reasons})


def validate_request(engine: Engine, request: SearchRequest) -> SearchRequest:
    """Check a request against the limits in ``settings.search``; return it with normalised types.

    Raises InvalidRequest (NotFound for an unknown kb name); a field of the wrong type is refused as
    over HTTP (``query=5``; ``explain=0`` is refused by :class:`SearchRequest` itself).
    """
    if not isinstance(request.query, str):
        raise InvalidRequest(f"query must be a string, got {type(request.query).__name__}", {"field": "query"})
    request = normalised(request)
    limits = engine.settings.search
    if not request.query.strip():
        raise InvalidRequest("the query is empty", {"field": "query"})
    if len(request.query) > limits.max_query_chars:
        raise InvalidRequest(f"the query has {len(request.query)} characters; the limit is "
                             f"{limits.max_query_chars}", {"field": "query", "limit": limits.max_query_chars})
    if "\x00" in request.query:
        raise InvalidRequest("the query contains a NUL character", {"field": "query"})
    if not 1 <= request.top_k <= limits.max_top_k:
        raise InvalidRequest(f"top_k must be between 1 and {limits.max_top_k}, got {request.top_k}",
                             {"field": "top_k"})
    if request.offset < 0 or request.offset + request.top_k > limits.max_window:
        raise InvalidRequest(f"offset + top_k must be at most search.max_window ({limits.max_window}) and "
                             f"offset at least 0; got offset {request.offset}, top_k {request.top_k}",
                             {"field": "offset", "limit": limits.max_window})
    if request.image is not None:
        check_query_image(engine, request.image)
    if request.min_relevance is not None:
        _check_min_relevance(engine, request)
    for name in ("published_from", "published_to"):
        value = getattr(request, name)
        if value is not None:
            try:
                store_filters.validate_date_bound(value)
            except store_filters.InvalidFilterError as exc:
                raise InvalidRequest(f"{name}: {exc}", {"field": name}) from exc
    if (request.published_from and request.published_to
            and request.published_from[:len(request.published_to)] > request.published_to):
        raise InvalidRequest(f"published_from {request.published_from} is after published_to "
                             f"{request.published_to}", {"field": "published_from"})
    for name in FILTER_FIELDS:
        values = getattr(request, name)
        if len(values) > limits.max_filter_values:
            raise InvalidRequest(f"{name} has {len(values)} values; the limit is {limits.max_filter_values}",
                                 {"field": name})
        for value in values:
            if (not isinstance(value, str) or not value or len(value) > 256
                    or any(ord(c) < 32 or ord(c) == 127 for c in value)):
                raise InvalidRequest(f"invalid value in {name}: {value!r}", {"field": name})
    request = _checked_result_options(request)
    for kb in request.kb_names:
        require_kb_name(kb)
    if request.kb_names:
        known = engine.registry.kb_names()
        unknown = sorted(set(request.kb_names) - known)
        if unknown:
            raise NotFound(f"unknown kb name(s): {', '.join(unknown)}", {"field": "kb_names", "unknown": unknown})
    return request


def _checked_result_options(request: SearchRequest) -> SearchRequest:
    """Refuse a ``diversity`` outside [0, 1], a ``recency`` half-life that is not a positive number of
    days, a ``max_per_document`` under 1 and an unknown facet; return the request with its facets as
    :class:`Facet` values, each once. Raises InvalidRequest naming the field."""
    if request.diversity is not None and not 0.0 <= request.diversity <= 1.0:
        raise InvalidRequest(f"diversity (the MMR lambda) must be between 0 and 1, got {request.diversity:g}",
                             {"field": "diversity"})
    if request.recency is not None and not (request.recency > 0 and math.isfinite(request.recency)):
        raise InvalidRequest(f"recency (a half-life in days) must be a positive number, got {request.recency:g}",
                             {"field": "recency"})
    if request.max_per_document is not None and request.max_per_document < 1:
        raise InvalidRequest(f"max_per_document must be at least 1, got {request.max_per_document}",
                             {"field": "max_per_document"})
    facets = []
    for name in request.facets:
        if not isinstance(name, str):
            raise InvalidRequest(f"facets must be a list of names, got {type(name).__name__}", {"field": "facets"})
        try:
            facets.append(Facet.from_str(name).value)
        except ValueError as exc:
            raise InvalidRequest(f"facets: {exc}", {"field": "facets"}) from exc
    return dataclasses.replace(request, facets=tuple(dict.fromkeys(facets)))


def _check_min_relevance(engine: Engine, request: SearchRequest) -> None:
    """Refuse a ``min_relevance`` that is no number in [0, 1], or one the profile and mode cannot apply."""
    value = request.min_relevance
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        raise InvalidRequest(f"min_relevance must be a number from 0 to 1, got {value!r}",
                             {"field": "min_relevance"})
    models, problem = relevance_models(engine, request.mode, request.query)
    if models is None:
        raise InvalidRequest(f"min_relevance cannot apply: {problem}", {"field": "min_relevance"})


def relevance_models(engine: Engine, mode: SearchMode, query: str) -> tuple[relevance.ModelChoice | None, str]:
    """The relevance models of the engine's profile, ``mode`` and the kind of ``query`` (the data folder's
    calibrated ones first, then the profile's shipped ones), or None and why
    (:mod:`eagle_rag.retrieve.relevance`)."""
    profile = engine.settings.profile
    shipped = engine.pm.hook.eagle_relevance_parameters(profile=profile)
    try:
        models = relevance.resolve_model(engine.settings.data_path, profile, mode.value, shipped, query)
    except relevance.RelevanceParametersError as exc:
        return None, f"relevance: {exc}; hits carry relevance null"
    return models, "" if models is not None else relevance.missing_note(profile, mode.value)


def _relevances(choice: relevance.ModelChoice | None, query: str,
                nodes: Sequence[NodeWithScore]) -> tuple[dict[str, float], dict[str, float]]:
    """The probability of relevance of every node, by node id, under the annotating and under the ranking
    model of ``choice`` (the same dict twice when they are one model; two empty ones without a model); each
    node's features are read once, its place in ``nodes`` (the whole ranking, before any page or
    ``min_relevance`` cut) its position feature."""
    if choice is None:
        return {}, {}
    rows = _feature_rows(query, nodes)
    annotated = {node_id: round(choice.annotating.probability(x), 4) for node_id, x in rows}
    if choice.ranking is choice.annotating:
        return annotated, annotated
    return annotated, {node_id: round(choice.ranking.probability(x), 4) for node_id, x in rows}


def _feature_rows(query: str, nodes: Sequence[NodeWithScore]) -> list[tuple[str, np.ndarray]]:
    """(node id, relevance features) of each node, its place in ``nodes`` its position feature."""
    return [(n.node_id, relevance.features(n.trail, _match_kind(query, n), position))
            for position, n in enumerate(nodes, start=1)]


def _ordered_by_relevance(nodes: Sequence[NodeWithScore], probabilities: Mapping[str, float], depth: int,
                          collections: Sequence[str] = (), stage: str = relevance.RANK_STAGE) -> list[NodeWithScore]:
    """The first ``depth`` nodes ordered by their probability (a model with a ``rank_depth``) among the places
    of those from ``collections`` (every node when empty; the others keep their places), each of them with a
    ``stage`` trail entry (new rank, probability, ``from``: the place it had); ``nodes`` as they are for
    depth 0."""
    if not depth:
        return list(nodes)
    movable = [not collections or n.collection in collections for n in nodes[:depth]]
    moved = {n.node_id for n, m in zip(nodes, movable, strict=False) if m}
    before = {n.node_id: i for i, n in enumerate(nodes, start=1)}
    ranked = relevance.reorder(nodes, [probabilities[n.node_id] for n in nodes[:depth]], depth, movable)
    return [dataclasses.replace(n, trail=(*n.trail, StageScore(stage, rank, probabilities[n.node_id],
                                                               {"from": before[n.node_id]})))
            if n.node_id in moved else n for rank, n in enumerate(ranked, start=1)]


def _relevance_prior(engine: Engine, request: SearchRequest) -> Callable[[list[NodeWithScore]],
                                                                          list[NodeWithScore]] | None:
    """In mode full with ``search.full_relevance_prior``, when the hybrid mode's model orders hybrid hits (a
    ``rank_depth``): what orders the candidates handed to the merged rerank by that model, as a hybrid search
    orders its hits (:data:`~eagle_rag.retrieve.relevance.PRIOR_STAGE` trail entries), so the rerank refines
    the hybrid answer rather than the fused one. None otherwise."""
    if request.mode is not SearchMode.FULL or not engine.settings.search.full_relevance_prior:
        return None
    models, _ = relevance_models(engine, SearchMode.HYBRID, request.query)
    if models is None or not models.ranking.rank_depth:
        return None
    model = models.ranking

    def order(pool: list[NodeWithScore]) -> list[NodeWithScore]:
        probabilities = {node_id: model.probability(x)
                         for node_id, x in _feature_rows(request.query, pool[: model.rank_depth])}
        return _ordered_by_relevance(pool, probabilities, model.rank_depth, model.rank_collections,
                                     relevance.PRIOR_STAGE)
    return order


def _match_kind(query: str, node: NodeWithScore) -> MatchKind:
    lexical = any(entry.stage == "bm25" for entry in node.trail)
    overlap = sparse_overlap_score(query, node.node.text)
    if overlap >= 1.0:
        return MatchKind.EXACT
    if lexical or overlap > 0:
        return MatchKind.PARTIAL
    return MatchKind.SEMANTIC


def _to_hit(settings: Settings, query: str, node: NodeWithScore, explain: bool,
            tags: Sequence[str] = (), probability: float | None = None) -> SearchHit:
    """The public form of one ranked chunk; ``tags`` (its document's, from the registry) join its
    metadata when there are any; ``probability`` is its relevance."""
    chunk = node.node
    metadata = {**chunk.metadata, "kb_name": chunk.kb_name, "chunk_type": chunk.chunk_type}
    if tags:
        metadata["tags"] = list(tags)
    source = metadata.get("source_uri")
    if isinstance(source, str):  # a plugin may copy the registry's source in: never a path of the server
        metadata["source_uri"] = public_path(source, settings.data_path, settings.ingest.allowed_roots)
    return SearchHit(id=chunk.id, document_id=public_document_id(chunk.document_id), text=chunk.text,
                     score=round(node.score, 6), path=chunk.path, collection=node.collection,
                     match=_match_kind(query, node), metadata=metadata,
                     trail=node.trail if explain else (), kb_name=chunk.kb_name, relevance=probability)


def _document_tags(engine: Engine, keys: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The registry's tags of each document of ``keys`` (storage keys) that has any."""
    records = {key: engine.registry.get(key) for key in dict.fromkeys(keys)}
    return {key: tuple(r.tags) for key, r in records.items() if r is not None and r.tags}


def document_keys(engine: Engine, document_ids: Sequence[str], kb_names: Sequence[str]) -> tuple[str, ...]:
    """The storage keys a ``document_ids`` filter names: each id in each of ``kb_names`` (every kb when
    empty), and the id itself for a document written before identity was (kb, id)."""
    if not document_ids:
        return ()
    kbs = list(kb_names) or sorted(engine.registry.kb_names())
    scoped_ids = [document_key(kb, i) for i in document_ids if is_legacy_key(i) for kb in kbs]
    return tuple(dict.fromkeys([*scoped_ids, *document_ids]))  # a given "kb/id" is a key already


def scoped(engine: Engine, request: SearchRequest) -> SearchRequest:
    """``request`` with its ``document_ids`` filter as storage keys (:func:`document_keys`): what the
    retrieval stages, plugins and stores compare with ``Chunk.document_id``."""
    if not request.document_ids:
        return request
    return dataclasses.replace(request, document_ids=document_keys(engine, request.document_ids, request.kb_names))


def _filter_for(engine: Engine, request: SearchRequest) -> StoreFilter | None:
    """The store filter; None when the tag filter alone leaves no document (nothing can match)."""
    doc_ids = tuple(request.document_ids)
    if request.tags:
        tagged = engine.registry.document_ids_with_tags(request.tags)
        doc_ids = tuple(sorted(set(doc_ids) & tagged)) if doc_ids else tuple(sorted(tagged))
        if not doc_ids:
            return None
    return StoreFilter(kb_names=tuple(request.kb_names), document_ids=doc_ids, chunk_types=request.chunk_types,
                       metadata=metadata_filter(request))


def metadata_filter(request: SearchRequest) -> MetadataFilter | None:
    """The chunk-attribute filters of ``request`` (None when it has none)."""
    found = MetadataFilter(source_types=request.source_types, sections=request.sections,
                           doc_types=request.doc_types, published_from=request.published_from,
                           published_to=request.published_to)
    return None if found.empty else found


def _visible(engine: Engine, nodes: list[NodeWithScore]) -> tuple[list[NodeWithScore], bool]:
    """Only chunks of complete documents, of the content version the registry names.

    A document being ingested is invisible; while a new version is written next to the old one,
    only the version in the registry shows (chunks without a version suffix show whenever their
    document is complete). Also returns True when some complete document came back with chunks of
    other versions only: the registry flipped during the search, so the caller retries it.
    """
    versions = engine.registry.complete_versions([n.node.document_id for n in nodes])
    kept: list[NodeWithScore] = []
    seen: set[str] = set()
    other: set[str] = set()
    for n in nodes:
        doc = n.node.document_id
        if doc not in versions:
            continue
        version = chunk_version(n.node.id)
        if version is None or version == content_version(versions[doc]):
            kept.append(n)
            seen.add(doc)
        else:
            other.add(doc)
    return kept, bool(other - seen)


def _retrieve_visible(engine: Engine, ctx: HookContext, request: SearchRequest,
                      flt: StoreFilter) -> tuple[RetrievalResult, list[NodeWithScore]]:
    """Retrieve, keep the visible nodes; retried (at most :data:`FLIP_RETRIES` times) when a
    document's version flipped during the search, so it is never missing from both versions.

    Raises:
        StoreUnavailable: when a store cannot be reached.
    """
    before_rerank = _relevance_prior(engine, request)
    for attempt in range(FLIP_RETRIES + 1):
        try:
            result = engine.retriever.retrieve(ctx, request, flt, before_rerank)
        except Exception as exc:
            if is_unavailable(exc):
                raise settings_unavailable(exc, engine.settings) from exc
            raise
        nodes, flipped = _visible(engine, result.nodes)
        if not flipped or attempt == FLIP_RETRIES:
            break
    return result, nodes


def search(engine: Engine, request: SearchRequest) -> SearchResponse:
    """Run one search (see :func:`_search`); a degraded index is named in ``warnings`` and
    ``empty_reason`` (:func:`eagle_rag.service.health.annotate`)."""
    return index_health.annotate(engine, _search(engine, request))


def _search(engine: Engine, request: SearchRequest) -> SearchResponse:
    """Run one search. Raises InvalidRequest / NotFound for bad input.

    Every search ranks the same candidate pool, ``search.retrieval_window`` deep (100; deeper only
    when ``offset + top_k`` asks more), so a page is a slice of one ranking and neither the order nor
    ``total`` moves with ``top_k``: a top 5 is the first five of the top 100 the benchmarks measure.
    ``total`` is the size of that pool after visibility, the semantic floor, the filters and
    ``max_per_document``; ``total_relation`` is ``gte`` when a candidate list was cut at its depth.
    The result options (facets, recency, diversity) apply to that whole pool
    (:mod:`eagle_rag.retrieve.result_options`), so pages stay slices of one ranking.
    """
    started = time.perf_counter()
    request = filter_names.expanded(engine, scoped(engine, validate_request(engine, request)))
    ctx = engine.request_context(request.namespace)
    flt = _filter_for(engine, request)
    if engine.registry.count(status=DocumentStatus.COMPLETE) == 0:
        return SearchResponse(request.query, (), 0, True, request.mode, empty_reason="the index is empty: "
                              "ingest documents first", offset=request.offset, facets=_no_facets(request))
    if flt is None:
        excluded, values = _excluded_by_filters(engine, request)
        reason = "no document carries the requested tags" if excluded else "no indexed text matched the query"
        return SearchResponse(request.query, (), 0, True, request.mode, empty_reason=reason,
                              excluded_by_filter=excluded, offset=request.offset, filter_values=values,
                              facets=_no_facets(request))
    depth = max(request.offset + request.top_k, engine.settings.search.retrieval_window)
    window = dataclasses.replace(request, top_k=depth, offset=0)
    result, visible = _retrieve_visible(engine, ctx, window, flt)
    matching = _above_semantic_floor(engine, request.query, visible)
    shaped = apply_result_options(request, matching, engine.vectors, rrf_k=engine.settings.router.rrf_k,
                                  today=datetime.now(UTC).date())
    models, relevance_note = relevance_models(engine, request.mode, request.query)
    limit = request.min_relevance
    depth = models.ranking.rank_depth if models is not None else 0
    scored = shaped.nodes if limit is not None else shaped.nodes[: max(request.offset + request.top_k, depth)]
    probabilities, order = _relevances(models, request.query, scored)
    ranked = _ordered_by_relevance(shaped.nodes, order, depth,
                                   models.ranking.rank_collections if models is not None else ())
    nodes = [n for n in ranked if limit is None or probabilities[n.node_id] >= limit]
    below = len(shaped.nodes) - len(nodes)
    record = tally(ctx)
    relation = TotalRelation.GTE if _maybe_more(engine, request.query, record) else TotalRelation.EQ
    dropped = {name: n for name, n in (("semantic_floor", len(visible) - len(matching)),
                                       ("filters", len(record.filtered)),
                                       ("max_per_document", len(record.collapsed)), ("min_relevance", below)) if n}
    page = nodes[request.offset: request.offset + request.top_k]
    tags = _document_tags(engine, [n.node.document_id for n in page])
    hits = tuple(_to_hit(engine.settings, request.query, n, request.explain, tags.get(n.node.document_id, ()),
                         probabilities.get(n.node_id)) for n in page)
    expected = round(sum(probabilities[h.id] for h in hits), 4) if models is not None else None
    timings = {**result.timings_ms, "total": (time.perf_counter() - started) * 1000}
    route = {"query": result.query, "plans": [p.collection for p in result.decision.plans],
             "plans_with_hits": result.plans_run, "reason": result.decision.reason}
    exhaustive = relation is TotalRelation.EQ and request.offset + request.top_k >= len(nodes)
    if hits:
        return SearchResponse(request.query, hits, len(nodes), exhaustive, request.mode, route=route,
                              timings_ms=timings, total_relation=relation, offset=request.offset,
                              dropped=dropped, warnings=tuple(ctx.warnings), expected_relevant=expected,
                              relevance_note=relevance_note or None,
                              facets=shaped.facets, undated=shaped.undated)
    excluded, values = ({}, {}) if request.offset and nodes else _excluded_by_filters(engine, request)
    if request.offset and nodes:
        at_least = "at least " if relation is TotalRelation.GTE else ""
        reason = f"the query has {at_least}{len(nodes)} hits; offset {request.offset} is past the last one"
    elif below:
        best = max(probabilities.values())
        reason = f"no hit reached min_relevance {limit} ({below} below it; the best had {best})"
    elif excluded:
        reason = "no document within the filters matched the query" + "".join(
            f"; the {name} of the documents it matches: {', '.join(found) or 'none'}" for name, found in values.items())
    else:
        reason = "no indexed text matched the query"
    return SearchResponse(request.query, (), len(nodes), exhaustive, request.mode, empty_reason=reason,
                          excluded_by_filter=excluded, route=route, timings_ms=timings, total_relation=relation,
                          offset=request.offset, dropped=dropped, warnings=tuple(ctx.warnings),
                          filter_values=values, facets=shaped.facets, undated=shaped.undated,
                          expected_relevant=expected, relevance_note=relevance_note or None)


def _no_facets(request: SearchRequest) -> dict[str, dict[str, int]]:
    """The facets of an answer with no matching hit: each facet asked, with no value."""
    return {name: {} for name in request.facets}


def _maybe_more(engine: Engine, query: str, record: RetrievalTally) -> bool:
    """Whether matches may lie beyond the candidate pool: a lexical list was cut at its depth, a
    candidate that a list left out would have passed the semantic floor, or a dense list filled its
    depth with hits that clear their collection's floor. A pool cut that left out only hits the floor
    drops anyway (a query about nothing in the corpus) does not make the answer incomplete."""
    return (record.cut or any(True for _ in _floor_kept(engine, query, record.cut_nodes))
            or any(low >= _semantic_floor(engine, collection) for collection, low in record.dense_tail.items()))


def _asked_filters(request: SearchRequest) -> list[str]:
    """The names (as in ``excluded_by_filter``) of the filters ``request`` sets."""
    return [name for name in (*DOCUMENT_FILTERS, *METADATA_FILTERS)
            if (request.published_from or request.published_to if name == "published" else getattr(request, name))]


def _excluded_by_filters(engine: Engine, request: SearchRequest) -> tuple[dict[str, int], dict[str, list[str]]]:
    """How many of the documents that the query matches each filter excludes on its own (the query is
    run again without filters): the kb, document and tag filters among every match, the chunk-attribute
    filters among the matches inside the kb, document and tag filters. Only filters that exclude one
    or more are named, so an empty answer blames a filter only when it removed what the query matches.

    Also returns, for a section or document-type filter that excluded some, the values of that
    attribute the matches inside the kb, document and tag filters carry (what the filter could ask).
    """
    asked = _asked_filters(request)
    if not asked:
        return {}, {}
    loose = dataclasses.replace(request, kb_names=(), document_ids=(), tags=(), source_types=(), chunk_types=(),
                                sections=(), doc_types=(), published_from=None, published_to=None, offset=0,
                                top_k=engine.settings.search.max_window)
    _, visible = _retrieve_visible(engine, engine.request_context(request.namespace), loose, StoreFilter())
    nodes = _above_semantic_floor(engine, request.query, visible)
    tagged = engine.registry.document_ids_with_tags(request.tags) if request.tags else set()
    check = metadata_filter(request) or MetadataFilter()
    failing: dict[str, set[str]] = {name: set() for name in asked}
    passing: dict[str, set[str]] = {name: set() for name in asked}
    inside: list[NodeWithScore] = []
    for n in nodes:
        chunk = n.node
        outside = {name for name, out in (("kb_names", chunk.kb_name not in request.kb_names),
                                          ("document_ids", chunk.document_id not in request.document_ids),
                                          ("tags", chunk.document_id not in tagged)) if getattr(request, name) and out}
        fails = set(outside)
        if not outside:
            inside.append(n)
            fails.update(check.failing(chunk))
            if request.chunk_types and chunk.chunk_type not in request.chunk_types:
                fails.add("chunk_types")
        for name in asked:
            if name in fails:
                failing[name].add(chunk.document_id)
            elif name in DOCUMENT_FILTERS or not outside:
                passing[name].add(chunk.document_id)
    counts = {name: len(failing[name] - passing[name]) for name in asked}
    excluded = {name: count for name, count in counts.items() if count}
    return excluded, filter_names.present_values(inside, excluded)


def search_many(engine: Engine, requests: Sequence[SearchRequest]) -> list[SearchResponse]:
    """Run several searches in order (``POST /search/batch``). Every request is validated before any
    runs, so one bad request fails the batch with InvalidRequest naming its index."""
    limit = engine.settings.api.max_batch
    if not requests:
        raise InvalidRequest("the batch has no searches", {"field": "searches"})
    if len(requests) > limit:
        raise InvalidRequest(f"the batch has {len(requests)} searches; the limit is api.max_batch ({limit})",
                             {"field": "searches", "limit": limit})
    for index, request in enumerate(requests):
        try:
            validate_request(engine, request)
        except (InvalidRequest, NotFound) as exc:
            exc.message = f"searches[{index}]: {exc.message}"
            exc.details = {**exc.details, "index": index}
            exc.args = (exc.message,)
            raise
    return [search(engine, request) for request in requests]


SEMANTIC_STAGES = ("dense", "sentence")
"""The trail stages whose score is a cosine similarity (chunk vector, best sentence)."""


def trail_cosine(trail: Sequence[StageScore]) -> float | None:
    """The best cosine a dense stage gave a hit (chunk vector or best sentence); None if none did."""
    return max((e.score for e in trail if e.stage in SEMANTIC_STAGES), default=None)


def floor_keeps(floor: float, cosine: float | None, match: Callable[[], MatchKind]) -> bool:
    """Whether the semantic floor keeps a hit: always, unless the dense channels found it (``cosine``),
    its cosine is under ``floor`` and it shares no term with the query (``match()`` is SEMANTIC; asked
    last, since it reads the text)."""
    return floor <= 0 or cosine is None or cosine >= floor or match() is not MatchKind.SEMANTIC


def _floor_kept(engine: Engine, query: str, nodes: list[NodeWithScore]) -> Iterator[NodeWithScore]:
    """``nodes`` without the semantic-only hits whose cosine is under their collection's floor, lazily."""
    floors = {c: _semantic_floor(engine, c) for c in {n.collection for n in nodes}}
    return (n for n in nodes
            if floor_keeps(floors[n.collection], trail_cosine(n.trail), functools.partial(_match_kind, query, n)))


def _above_semantic_floor(engine: Engine, query: str, nodes: list[NodeWithScore]) -> list[NodeWithScore]:
    """``nodes`` without the semantic-only hits whose cosine is under their collection's floor."""
    return list(_floor_kept(engine, query, nodes))


def _semantic_floor(engine: Engine, collection: str) -> float:
    """The cosine under which a semantic-only hit of ``collection`` is dropped.

    ``search.min_dense_similarity`` when set, else the floor calibrated for the collection's encoder
    (``semantic_floor`` of the loaded encoder; 0, no floor, for an encoder without one).
    """
    configured = engine.settings.search.min_dense_similarity
    if configured is not None:
        return configured
    try:
        label = engine.encoders.collection(collection).default_encoder
    except ValueError:
        return 0.0
    if not engine.encoders.is_loaded(label):
        return 0.0
    return float(getattr(engine.encoders.get_encoder(label), "semantic_floor", 0.0))

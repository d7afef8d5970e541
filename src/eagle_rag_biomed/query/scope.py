"""Scope-aware routing: a search scoped to kb names, document ids or tags also searches every collection
those documents were written to at ingest.

The router picks collections from the query text; a scoped request may name documents that live
elsewhere (a compound file in ``eagle_chemical`` while the query reads like text). After the router,
:func:`apply_scope_aware_union` counts, per registered collection, the vectors inside the scope and
adds a plan (with the collection's query label) for each collection that holds some and is not
planned yet. Unscoped requests are returned unchanged. Suppressed collections stay suppressed.

A scope of documents (``document_ids`` or ``tags``) always widens the plans: the caller asked for
those documents. A scope of knowledge bases only (``kb_names``) widens them only when no planned
collection holds anything inside it: a knowledge base usually spans every collection, and searching
all of them for every query would let unrelated collections (the Chinese one for an English query)
into the merged ranking.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from eagle_rag.plugin_api import CollectionQueryPlan, Modality, QueryRouteDecision, SearchRequest, StoreFilter
from eagle_rag.plugin_api.encoders import EncoderRegistry

__all__ = ["apply_scope_aware_union", "scope_filter"]


def scope_filter(request: SearchRequest, registry: object | None) -> StoreFilter | None:
    """The request's scope as a store filter; None when the request is not scoped.

    Tags are resolved to document ids through the document registry (``document_ids_with_tags``);
    tags that match no document give None too (the search service answers such a request itself).
    """
    if not (request.kb_names or request.document_ids or request.tags):
        return None
    doc_ids: tuple[str, ...] = tuple(request.document_ids)
    if request.tags and registry is not None:
        tagged = set(registry.document_ids_with_tags(request.tags))  # type: ignore[attr-defined]
        doc_ids = tuple(sorted(set(doc_ids) & tagged)) if doc_ids else tuple(sorted(tagged))
        if not doc_ids:
            return None
    return StoreFilter(kb_names=tuple(request.kb_names), document_ids=doc_ids)


def _holds(vectors: object, collection: str, flt: StoreFilter) -> bool:
    """True when ``collection`` exists and has vectors inside the scope (False on a store error)."""
    try:
        return bool(vectors.has_collection(collection)  # type: ignore[attr-defined]
                    and vectors.has_rows(collection, flt))  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - an unreadable collection is simply not added
        return False


def apply_scope_aware_union(decision: QueryRouteDecision, request: SearchRequest, encoders: EncoderRegistry,
                            vectors: object, registry: object | None = None, *,
                            query_labels: dict[str, str] | None = None,
                            suppressed: Sequence[str] = ()) -> tuple[QueryRouteDecision, list[str]]:
    """Add a plan for each collection holding scoped vectors; returns (decision, added collection names).

    ``query_labels`` maps a collection to the label its queries use (else the collection's default
    encoder). Image collections whose label is visual are skipped: their labels embed images, not the
    query text. Store errors leave the decision unchanged for that collection.
    """
    flt = scope_filter(request, registry)
    if flt is None:
        return decision, []
    planned = {p.collection for p in decision.plans}
    if not (request.document_ids or request.tags) and any(_holds(vectors, c, flt) for c in planned):
        return decision, []
    top_k = decision.plans[0].top_k if decision.plans else 20
    added: list[CollectionQueryPlan] = []
    labels = query_labels or {}
    for profile in encoders.collections():
        if profile.name in planned or profile.name in suppressed:
            continue
        label = labels.get(profile.name, profile.default_encoder)
        if label not in encoders.labels():
            label = profile.default_encoder
        if encoders.spec(label).modality is Modality.VISUAL:
            continue
        if not _holds(vectors, profile.name, flt):
            continue
        added.append(CollectionQueryPlan(profile.name, label, top_k, reason="scope_union"))
    if not added:
        return decision, []
    reason = f"{decision.reason}; scope_union={','.join(p.collection for p in added)}"
    return replace(decision, plans=(*decision.plans, *added), reason=reason), [p.collection for p in added]

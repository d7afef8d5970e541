"""Entity-anchored supplementary recall (RETRIEVE_SUPPLEMENT): find the documents about the query's drugs
by name in the document registry, then search only inside them.

:func:`supplement_entity_anchored_hits`:

1. the anchor drugs (``QueryAnalysis.anchor_drugs``): the query's drugs; without any, the related
   drugs (first 4) of the first entity that has some. Order kept, no duplicates;
2. ``registry.lookup_document_ids_by_name_terms(terms, kb_name, namespace)``: every document whose
   name or file name contains a term (no file-name prefix convention needed);
3. for each (collection, encoder) of :func:`collections_for_intent` (chemical workflow:
   ``eagle_chemical`` / molformer; otherwise ``eagle_text_biomed`` / pubmedbert and, unless suppressed,
   ``eagle_chemical`` / molformer), an ANN search restricted to those document ids (and the request's
   kb names / document ids), limit ``min(recall_top_k, max(len(doc_ids) * 4, 8))``;
4. :func:`rerank_entity_hits`: ``combined = entity * 2.0 + lexical + dense * 0.1`` with entity =
   ``entity_boost_score``, lexical = ``sparse_overlap_score(query, text, drug_terms)`` and dense = the
   ANN similarity; best first, ties in search order.

At most :data:`MAX_DOCUMENT_IDS` ids are searched (the first ones, sorted by id). See docs/biomed.md,
"Supplement and injection".
"""

from __future__ import annotations

from collections.abc import Sequence

from eagle_rag.plugin_api import HookContext, NodeWithScore, QueryRetrievalIntent, SearchRequest, StoreFilter
from eagle_rag.plugin_api.retrieve import embed_query, sparse_overlap_score
from eagle_rag_biomed.names import PLUGIN_NAME, Collection, EncoderLabel
from eagle_rag_biomed.options import biomed_options
from eagle_rag_biomed.query.analysis import QueryAnalysis
from eagle_rag_biomed.query.intent import Workflow
from eagle_rag_biomed.rerank.signals import entity_boost_score, node_meta

__all__ = ["ENTITY_WEIGHT", "MAX_DOCUMENT_IDS", "collections_for_intent", "rerank_entity_hits",
           "supplement_entity_anchored_hits", "supplement_limit"]

ENTITY_WEIGHT = 2.0
LEXICAL_WEIGHT = 1.0
DENSE_WEIGHT = 0.1
MAX_DOCUMENT_IDS = 512


def collections_for_intent(intent: QueryRetrievalIntent) -> list[tuple[str, str]]:
    """The (collection, encoder label) pairs searched for an intent, suppressed collections left out."""
    if intent.workflow == Workflow.CHEMICAL:
        pairs = [(Collection.CHEMICAL, EncoderLabel.MOLFORMER)]
    else:
        pairs = [(Collection.TEXT_BIOMED, EncoderLabel.PUBMEDBERT), (Collection.CHEMICAL, EncoderLabel.MOLFORMER)]
    return [p for p in pairs if p[0] not in intent.suppress_collections]


def supplement_limit(recall_top_k: int, n_document_ids: int) -> int:
    """``min(recall_top_k, max(n_document_ids * 4, 8))``."""
    return min(recall_top_k, max(n_document_ids * 4, 8))


def rerank_entity_hits(query: str, nodes: Sequence[NodeWithScore], drug_terms: Sequence[str]) -> list[NodeWithScore]:
    """Sort by ``entity * 2.0 + lexical + dense * 0.1`` (``node.score`` is the dense similarity)."""
    scored = []
    for i, node in enumerate(nodes):
        entity = entity_boost_score(node_meta(node), drug_terms)
        lexical = sparse_overlap_score(query, node.node.text, drug_terms)
        dense = node.score
        combined = ENTITY_WEIGHT * entity + LEXICAL_WEIGHT * lexical + DENSE_WEIGHT * dense
        scored.append((combined, i, {"entity": entity, "lexical": lexical, "dense": dense}))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [nodes[i].scored("supplement", combined, rank, detail)
            for rank, (combined, i, detail) in enumerate(scored, start=1)]


def _scope(request: SearchRequest, doc_ids: Sequence[str]) -> tuple[str, ...]:
    if request.document_ids:
        allowed = set(request.document_ids)
        return tuple(d for d in doc_ids if d in allowed)
    return tuple(doc_ids)


def supplement_entity_anchored_hits(ctx: HookContext, analysis: QueryAnalysis,
                                    request: SearchRequest) -> list[NodeWithScore]:
    """Entity-anchored hits of every searched collection, each collection's list reranked, concatenated.

    Returns [] when the query names no drug (directly or through an entity) or no document matches.
    """
    query, terms = analysis.query, list(analysis.anchor_drugs)
    if not terms:
        return []
    services = ctx.services
    kb = request.kb_names[0] if len(request.kb_names) == 1 else None
    found = services.registry.lookup_document_ids_by_name_terms(terms, kb_name=kb, namespace=ctx.namespace)
    doc_ids = _scope(request, found)[:MAX_DOCUMENT_IDS]
    if not doc_ids:
        ctx.log_decision("retrieve_plan", plugin=PLUGIN_NAME, summary="supplement: no document named after "
                         + ", ".join(terms), stage="supplement", terms=terms)
        return []
    recall_top_k = biomed_options(ctx.settings).collection_recall_top_k
    limit = supplement_limit(recall_top_k, len(doc_ids))
    encoders, vectors = services.encoders, services.vectors
    registered = {p.name for p in encoders.collections()}
    out: list[NodeWithScore] = []
    for collection, encoder in collections_for_intent(analysis.intent):
        if collection not in registered or encoder not in encoders.labels() or not vectors.has_collection(collection):
            continue
        vector = embed_query(ctx, encoder, query)
        flt = StoreFilter(kb_names=tuple(request.kb_names), document_ids=doc_ids)
        hits = vectors.search(collection, vector, limit, flt)
        nodes = [NodeWithScore(node=h.chunk, score=h.score, collection=collection) for h in hits]
        reranked = rerank_entity_hits(query, nodes, terms)
        ctx.log_decision("retrieve_plan", plugin=PLUGIN_NAME, summary=f"supplement {collection}: {len(reranked)} hits "
                         f"in {len(doc_ids)} documents named after {', '.join(terms)}", stage="supplement",
                         collection=collection, encoder=encoder, limit=limit, documents=len(doc_ids))
        out.extend(reranked)
    return out

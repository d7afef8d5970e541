"""The retrieval channels of one plan: BM25 on the lexical index, ANN on the vector store and, in
collections with sentence rows, ANN over their sentences (:mod:`eagle_rag.ingest.sentences`)."""

from __future__ import annotations

from collections.abc import Sequence

from eagle_rag.context import HookContext
from eagle_rag.ingest.sentences import parent_chunk_id, sentence_collection
from eagle_rag.protocols import ScoredId, StoreFilter
from eagle_rag.retrieve.safe_hooks import call_hook
from eagle_rag.types import CollectionQueryPlan, NodeWithScore, ranked


def _nodes(hits: Sequence[ScoredId], collection: str, stage: str) -> list[NodeWithScore]:
    return ranked([NodeWithScore(node=h.chunk, score=h.score, collection=collection) for h in hits], stage)


def lexical_channel(ctx: HookContext, plan: CollectionQueryPlan, query: str, extra_terms: Sequence[str],
                    depth: int, flt: StoreFilter) -> list[NodeWithScore]:
    """BM25 hits of the plan's collection, ranked from 1 (stage ``bm25``)."""
    index = ctx.services.lexical_for(plan.collection)
    hits = index.search(query, depth, flt, extra_terms=tuple(extra_terms))
    return _nodes(hits, plan.collection, "bm25")


SENTENCE_FANOUT = 4
"""Sentence rows searched per chunk wanted: a chunk holds several sentences, so the nearest rows
repeat chunks; four times the depth leaves ``depth`` distinct chunks in practice."""


def embed_query(ctx: HookContext, encoder: str, text: str, kind: str = "query") -> list[float]:
    """The vector of ``text`` for an encoder label (EMBED_TEXT hook; ``kind`` "query", or "passage"
    to embed the query as a passage: without the query instruction of an asymmetric model)."""
    pm = ctx.services.pm
    vectors = call_hook(ctx, pm.hook.eagle_embed_text, None, encoder=encoder, texts=[text], kind=kind)
    if not vectors:
        raise RuntimeError(f"no plugin could embed with encoder {encoder!r}")
    return list(vectors[0])


def dense_channel(ctx: HookContext, plan: CollectionQueryPlan, dense_query: str, depth: int,
                  flt: StoreFilter) -> list[NodeWithScore]:
    """ANN hits of the plan's collection by cosine similarity, ranked from 1 (stage ``dense``)."""
    vector = embed_query(ctx, plan.encoder, dense_query)
    hits = ctx.services.vectors.search(plan.collection, vector, depth, flt)
    return _nodes(hits, plan.collection, "dense")


def sentence_channel(ctx: HookContext, plan: CollectionQueryPlan, dense_query: str, depth: int,
                     flt: StoreFilter, known: Sequence[NodeWithScore] = ()) -> list[NodeWithScore]:
    """Chunks of the plan's collection ranked by their most similar sentence (stage ``sentence``).

    Empty when the collection keeps no sentence rows. The query is embedded as a passage: a
    sentence is compared with a sentence, so an asymmetric model's query instruction is left out.
    Chunks already in ``known`` (the other channels' hits) are reused; the rest are read from the
    vector store. The score is the cosine similarity of the best sentence.
    """
    vectors = ctx.services.vectors
    companion = sentence_collection(plan.collection)
    if depth <= 0 or not vectors.has_collection(companion):
        return []
    vector = embed_query(ctx, plan.encoder, dense_query, kind="passage")
    hits = vectors.search(companion, vector, min(depth * SENTENCE_FANOUT, 16384), flt)
    best: dict[str, float] = {}
    for hit in hits:
        parent = parent_chunk_id(hit.id)
        if parent not in best and len(best) < depth:
            best[parent] = hit.score
    chunks = {n.node.id: n.node for n in known if n.node.id in best}
    missing = [i for i in best if i not in chunks]
    if missing:
        chunks.update((c.id, c) for c in vectors.get_chunks(plan.collection, missing))
    nodes = [NodeWithScore(node=chunks[i], score=score, collection=plan.collection)
             for i, score in best.items() if i in chunks]
    return ranked(nodes, "sentence")

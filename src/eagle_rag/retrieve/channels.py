"""The two retrieval channels of one plan: BM25 on the lexical index, ANN on the vector store."""

from __future__ import annotations

from collections.abc import Sequence

from eagle_rag.context import HookContext
from eagle_rag.protocols import ScoredId, StoreFilter
from eagle_rag.retrieve.safe_hooks import call_hook
from eagle_rag.types import CollectionQueryPlan, NodeWithScore, ranked


def _nodes(hits: Sequence[ScoredId], collection: str, stage: str) -> list[NodeWithScore]:
    return ranked([NodeWithScore(node=h.chunk, score=h.score, collection=collection) for h in hits], stage)


def lexical_channel(ctx: HookContext, plan: CollectionQueryPlan, query: str, extra_terms: Sequence[str],
                    depth: int, flt: StoreFilter) -> list[NodeWithScore]:
    """BM25 hits of the plan's collection, ranked from 1 (stage ``bm25``)."""
    index = ctx.services["lexical_for"](plan.collection)
    hits = index.search(query, depth, flt, extra_terms=tuple(extra_terms))
    return _nodes(hits, plan.collection, "bm25")


def embed_query(ctx: HookContext, encoder: str, text: str) -> list[float]:
    """The query vector of ``text`` for an encoder label (EMBED_TEXT hook, kind "query")."""
    pm = ctx.services["pm"]
    vectors = call_hook(ctx, pm.hook.eagle_embed_text, None, encoder=encoder, texts=[text], kind="query")
    if not vectors:
        raise RuntimeError(f"no plugin could embed with encoder {encoder!r}")
    return list(vectors[0])


def dense_channel(ctx: HookContext, plan: CollectionQueryPlan, dense_query: str, depth: int,
                  flt: StoreFilter) -> list[NodeWithScore]:
    """ANN hits of the plan's collection by cosine similarity, ranked from 1 (stage ``dense``)."""
    vector = embed_query(ctx, plan.encoder, dense_query)
    hits = ctx.services["vectors"].search(plan.collection, vector, depth, flt)
    return _nodes(hits, plan.collection, "dense")

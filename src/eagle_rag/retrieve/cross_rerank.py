"""Core Tier-2 for the ``full`` pipeline: the cross-encoder's rank fused with the incoming rank.

The cross-encoder (label ``minilm-rerank``) scores the top ``search.cross_encoder_pool``
candidates (passages truncated to ``search.cross_encoder_max_tokens``). Its ranking is fused with
the incoming (hybrid) ranking by weighted RRF, ``1/(k + rank_hybrid) + w_ce/(k + rank_ce)`` with
``w_ce = search.cross_encoder_weight``, because on its own it does not beat the hybrid ranking.
A model is asked only about texts in the languages it declares (``EncoderSpec.languages``; the
bundled MiniLM is English): for a query outside them no candidate is scored by it, and a passage
outside them is not; both carry a trail entry skipped for ``language``. The candidates of the pool
it did not score may be ranked by the multilingual e5 cosine instead
(:mod:`eagle_rag.retrieve.multilingual_rerank`, weight ``search.multilingual_rerank_weight``, 0 =
off): one more RRF list, ``+ w_ml/(k + rank_ml)``. A candidate no model scored keeps only its
incoming rank. Candidates below the pool keep their order after it. See docs/architecture.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from eagle_rag.analysis import model_covers
from eagle_rag.context import HookContext
from eagle_rag.retrieve.fusion import merge_rrf
from eagle_rag.retrieve.multilingual_rerank import multilingual_ranked
from eagle_rag.types import NodeWithScore, SearchMode, StageScore, ranked

CROSS_ENCODER_LABEL = "minilm-rerank"
STAGE = "cross_encoder"


def skipped_for_language(node: NodeWithScore, rank: int, stage: str = STAGE) -> NodeWithScore:
    """``node`` with a trail entry saying ``stage`` left it unscored for its language (``rank`` from 1)."""
    return dataclasses.replace(node, trail=(*node.trail, StageScore(stage, rank, node.score, skipped="language")))


def cross_encoder_rerank(ctx: HookContext, query: str, nodes: Sequence[NodeWithScore],
                         mode: SearchMode) -> list[NodeWithScore] | None:
    """Rerank for ``mode=full``; None (keep the order) for any other mode or an empty list."""
    if mode is not SearchMode.FULL or not nodes:
        return None
    opts = ctx.settings.search
    languages = ctx.services.encoders.spec(CROSS_ENCODER_LABEL).languages
    query_covered = model_covers(languages, query)
    pool = list(nodes[: opts.cross_encoder_pool])
    scorable = [n for n in pool if query_covered and model_covers(languages, n.node.text)]
    scored_ids = {n.node_id for n in scorable}
    multilingual = multilingual_ranked(ctx, query, [n for n in pool if n.node_id not in scored_ids])
    if not query_covered and not multilingual:
        ctx.log_decision("rerank_t2_general", summary="cross-encoder skipped: the query's language is not "
                         f"one of the model's ({', '.join(sorted(languages))})")
        return [skipped_for_language(n, rank) for rank, n in enumerate(nodes, start=1)]
    lists, weights = [pool], [1.0]
    if scorable:
        encoder = ctx.services.encoders.cross_encoder(CROSS_ENCODER_LABEL)
        scores = encoder.score_pairs(query, [n.node.text for n in scorable])
        lists.append(ranked([dataclasses.replace(n, score=float(s)) for n, s in zip(scorable, scores, strict=True)],
                            STAGE))
        weights.append(opts.cross_encoder_weight)
    if multilingual:
        lists.append(multilingual)
        weights.append(opts.multilingual_rerank_weight)
    fused = merge_rrf(lists, k=ctx.settings.router.rrf_k, weights=weights, stage="rerank_t2_core")
    fused = [n if n.node_id in scored_ids else skipped_for_language(n, rank) for rank, n in enumerate(fused, start=1)]
    rest = list(nodes[len(pool):]) if query_covered else [
        skipped_for_language(n, rank) for rank, n in enumerate(nodes[len(pool):], start=len(pool) + 1)]
    ctx.log_decision("rerank_t2_general", summary=f"cross-encoder over {len(scorable)} of {len(pool)} candidates, "
                     f"multilingual cosine over {len(multilingual)}", weight=opts.cross_encoder_weight,
                     multilingual_weight=opts.multilingual_rerank_weight,
                     skipped_language=len(pool) - len(scorable))
    return [*fused, *rest]

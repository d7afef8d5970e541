"""Core Tier-2 for the ``full`` pipeline: the cross-encoder's rank fused with the incoming rank.

The bundled ms-marco MiniLM cross-encoder scores the top ``search.cross_encoder_pool`` candidates
(passages truncated to ``search.cross_encoder_max_tokens``). Its ranking is fused with the
incoming (hybrid) ranking by weighted RRF, ``1/(k + rank_hybrid) + w_ce/(k + rank_ce)``, because on
its own it does not beat the hybrid ranking on scientific text (see bench/README.md); ``w_ce`` is
``search.cross_encoder_weight``, tuned on the SciFact train split. Candidates below the pool keep
their order after it.
"""

from __future__ import annotations

from collections.abc import Sequence

from eagle_rag.context import HookContext
from eagle_rag.retrieve.fusion import merge_rrf
from eagle_rag.types import NodeWithScore, SearchMode, ranked

CROSS_ENCODER_LABEL = "minilm-rerank"


def cross_encoder_rerank(ctx: HookContext, query: str, nodes: Sequence[NodeWithScore]) -> list[NodeWithScore] | None:
    """Rerank for ``mode=full``; None (keep the order) for any other mode or an empty list."""
    if ctx.extra.get("mode") is not SearchMode.FULL or not nodes:
        return None
    opts = ctx.settings.search
    pool = list(nodes[: opts.cross_encoder_pool])
    encoder = ctx.services.encoders.cross_encoder(CROSS_ENCODER_LABEL)
    scores = encoder.score_pairs(query, [n.node.text for n in pool])
    by_ce = ranked([n.scored("cross_encoder", float(s), 0) for n, s in zip(pool, scores, strict=True)],
                   "cross_encoder_rank")
    fused = merge_rrf([pool, by_ce], k=ctx.settings.router.rrf_k, weights=[1.0, opts.cross_encoder_weight],
                      stage="rerank_t2_core")
    ctx.log_decision("rerank_t2_general", summary=f"cross-encoder over {len(pool)} candidates",
                     weight=opts.cross_encoder_weight)
    return [*fused, *nodes[len(pool):]]

"""Model signals of Tier-2 and their normalisation: cross-encoder scores, late-interaction scores, rank prior.

``minmax``      ``(x - min) / (max - min)`` over the candidate pool; all zeros when every value is equal.
``rank_prior``  the incoming order as a score: ``1 / (k + rank)`` (ranks from 1, k = ``router.rrf_k``),
                min-max normalised, so the first candidate gets 1.0 and the last 0.0. Robust to the
                +100.0 of injected supplement hits, which a min-max of raw scores is not.
``rank_normalised`` a model's scores replaced by their rank prior: ``rank_prior`` of the order the scores
                give (best first; ties keep the incoming order), aligned with the input. With
                ``tier2.normalise = rank`` the models' ranks, not their score gaps, enter the formula
                (the reciprocal-rank form of RRF, k = ``router.rrf_k``).
``merged_prior`` the rank prior of a Tier-2 pool: the fused candidates are ranked among themselves
                and an injected supplement hit (``eagle_rag.retrieve.fusion.is_injected``) gets 0.0.
                The injection puts a hit into the pool so that the models can judge it; ranking
                it first by the prior would let the +100.0 decide instead.
``cross_encoder_scores`` / ``late_interaction_scores`` return None on any failure (logged as a
``hook_failure`` decision with the stage), and the caller falls back to the rank prior (the
incoming order).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from eagle_rag.plugin_api import HookContext, NodeWithScore
from eagle_rag.plugin_api.retrieve import is_injected
from eagle_rag_biomed.encoders.late_interaction import PASSAGE_TOKENS, LateInteractionScorer, get_scorer
from eagle_rag_biomed.rerank.signals import window_text
from eagle_rag_biomed.rerank.window import query_stems

__all__ = ["cross_encoder_scores", "late_interaction_scores", "merged_prior", "minmax", "rank_normalised",
           "rank_prior", "stored_token_vectors"]

log = logging.getLogger(__name__)


def minmax(values: Sequence[float]) -> list[float]:
    """Min-max normalise to [0, 1]; a constant (or empty) list gives zeros."""
    if not values:
        return []
    low, high = min(values), max(values)
    if high - low <= 0:
        return [0.0] * len(values)
    return [(v - low) / (high - low) for v in values]


def rank_prior(n: int, k: int = 60) -> list[float]:
    """``minmax([1/(k+1), 1/(k+2), ..., 1/(k+n)])``: 1.0 for the first, 0.0 for the last candidate."""
    return minmax([1.0 / (k + rank) for rank in range(1, n + 1)])


def rank_normalised(values: Sequence[float], k: int = 60) -> list[float]:
    """Each value's ``rank_prior`` by its rank among ``values`` (highest first, ties in input order)."""
    order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    prior = rank_prior(len(values), k)
    out = [0.0] * len(values)
    for rank, i in enumerate(order):
        out[i] = prior[rank]
    return out


def merged_prior(nodes: Sequence[NodeWithScore], k: int = 60) -> list[float]:
    """``rank_prior`` over the fused (not injected) nodes in their order; 0.0 for every injected node."""
    injected = [is_injected(n) for n in nodes]
    fused = iter(rank_prior(injected.count(False), k))
    return [0.0 if flag else next(fused) for flag in injected]


def _failed(ctx: HookContext, stage: str, label: str, exc: Exception) -> None:
    log.warning("biomed Tier-2 %s (%s) failed: %s", stage, label, exc)
    ctx.log_decision("hook_failure", plugin="biomed", summary=f"{stage} failed, falling back to the incoming "
                     f"ranking: {str(exc)[:300]}", hook="eagle_rerank_merged", stage=stage, encoder=label,
                     error=type(exc).__name__)


def cross_encoder_scores(ctx: HookContext, label: str, query: str, nodes: Sequence[NodeWithScore],
                         max_chars: int, with_name: bool = False, window_chars: int = 0) -> list[float] | None:
    """Raw cross-encoder scores of ``(query, text[:max_chars])``, or with ``window_chars`` > 0 of the
    query and each passage's best window (:func:`~eagle_rag_biomed.rerank.signals.window_text`);
    None on failure or a length mismatch."""
    try:
        encoder = ctx.services.encoders.cross_encoder(label)
        stems = query_stems(query)
        texts = [window_text(n, max_chars, with_name, stems, window_chars) for n in nodes]
        scores = [float(s) for s in encoder.score_pairs(query, texts)]
    except Exception as exc:  # noqa: BLE001 - any model failure falls back to the incoming order
        _failed(ctx, "cross_encoder", label, exc)
        return None
    if len(scores) != len(nodes):
        _failed(ctx, "cross_encoder", label, ValueError(f"{len(scores)} scores for {len(nodes)} passages"))
        return None
    return scores


def stored_token_vectors(ctx: HookContext, scorer: LateInteractionScorer, nodes: Sequence[NodeWithScore],
                         texts: Sequence[str]) -> list[np.ndarray | None]:
    """The token vectors of each node's passage ``texts[i]`` that the ingest stored, aligned with
    ``nodes``; None where there is no row or its key is not ``scorer.passage_key(texts[i])``."""
    if not ctx.services.has("tokens"):
        return [None] * len(nodes)
    rows = ctx.services.tokens.get([n.node.id for n in nodes])
    out: list[np.ndarray | None] = []
    for node, text in zip(nodes, texts, strict=True):
        row = rows.get(node.node.id)
        out.append(row.vectors if row is not None and row.key == scorer.passage_key(text) else None)
    return out


def late_interaction_scores(ctx: HookContext, label: str, query: str, nodes: Sequence[NodeWithScore],
                            max_chars: int, with_name: bool = False,
                            max_tokens: int = PASSAGE_TOKENS, window_chars: int = 0) -> list[float] | None:
    """MaxSim scores of the bundled late-interaction model, passages cut to ``max_tokens`` (with
    ``window_chars`` > 0, each passage's best window, as the cross-encoder reads it); None on failure.

    A passage whose token vectors the ingest stored under the same key (same model, cut and text:
    :func:`stored_token_vectors`) is not encoded again; the others are encoded now.
    """
    try:
        stems = query_stems(query)
        texts = [window_text(n, max_chars, with_name, stems, window_chars) for n in nodes]
        scorer = get_scorer(label, max_tokens)
        known = stored_token_vectors(ctx, scorer, nodes, texts)
        scores = scorer.score_pairs(query, texts, known)
        ctx.log_decision("biomed_late_interaction", plugin="biomed", summary=f"{len(texts)} passages, "
                         f"{sum(v is not None for v in known)} from stored token vectors", encoder=label)
    except Exception as exc:  # noqa: BLE001 - any model failure falls back to the incoming order
        _failed(ctx, "late_interaction", label, exc)
        return None
    if len(scores) != len(nodes):
        _failed(ctx, "late_interaction", label, ValueError(f"{len(scores)} scores for {len(nodes)} passages"))
        return None
    return [float(s) for s in scores]

"""Tier-2 (RERANK_MERGED): ``post_rrf_rerank`` fuses model and domain signals over the merged candidates.

For each text candidate of the pool (the first ``tier2.pool``)::

    final = w_ce * ce_norm + w_li * li_norm + w_prior * prior
            + w_entity * entity + w_sec * section - w_xdrug_penalty * xdrug

``ce_norm``   normalised cross-encoder scores (label ``domain_rerank_encoder``, default
              ``medcpt-rerank``; passages cut to ``tier2.max_chars``). Without a cross-encoder (a
              mode other than ``full``, the stage switched off, or any failure) ``ce_norm`` falls back
              to the rank prior: the existing order, as in the seeds.
``li_norm``   normalised late-interaction (ColBERT MaxSim) scores, only when ``w_li > 0`` in
              mode full with the ``late_interaction`` stage on; else 0.
              Both are min-max normalised raw scores, or with ``tier2.normalise = rank`` the rank
              prior of the order each model gives (``model_signals.rank_normalised``).
``prior``     the incoming rank as a score (``model_signals.merged_prior``: injected supplement hits get
              0.0, so the models, not the injection's +100.0, decide where they land).
``entity``    ``entity_match_score`` against the query's boost terms (``boost_terms_for_query``).
``section``   ``section_match_score`` against the intent's section cues.
``xdrug``     ``cross_drug_penalty`` against the drugs the query names (``penalty_drugs_for_query``).

Weights come from the workflow's profile (:mod:`rerank_weights`). File names are filled in from the
registry first (``enrich_file_names``). Candidates beyond the pool follow in their incoming order,
and image nodes (chunk type image / medical_image) are passed through at the end, unscored. For the
chemical workflow the chemical branch (:mod:`chemical_branch`) runs on the fused list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from eagle_rag.plugin_api import HookContext, NodeWithScore, QueryRetrievalIntent, SearchMode
from eagle_rag_biomed.chemical_branch import apply_chemical_branch
from eagle_rag_biomed.model_signals import (
    cross_encoder_scores,
    late_interaction_scores,
    merged_prior,
    minmax,
    rank_normalised,
)
from eagle_rag_biomed.query_intent import Workflow
from eagle_rag_biomed.query_options import query_options, seed_options
from eagle_rag_biomed.rerank import model_of
from eagle_rag_biomed.rerank_weights import ProfileWeights, weights_for
from eagle_rag_biomed.scoring import (
    boost_terms_for_query,
    cross_drug_penalty,
    enrich_file_names,
    entity_match_score,
    penalty_drugs_for_query,
    section_match_score,
)

__all__ = ["IMAGE_CHUNK_TYPES", "Signals", "fuse_signals", "post_rrf_rerank", "split_images"]

IMAGE_CHUNK_TYPES = frozenset({"image", "medical_image"})


@dataclass(frozen=True)
class Signals:
    """Per-candidate signals of one pool, aligned with its nodes."""

    ce_norm: list[float]
    li_norm: list[float]
    prior: list[float]
    entity: list[float]
    section: list[float]
    xdrug: list[float]


def split_images(nodes: Sequence[NodeWithScore]) -> tuple[list[NodeWithScore], list[NodeWithScore]]:
    """(text nodes, image nodes), each in incoming order."""
    texts = [n for n in nodes if n.node.chunk_type not in IMAGE_CHUNK_TYPES]
    images = [n for n in nodes if n.node.chunk_type in IMAGE_CHUNK_TYPES]
    return texts, images


def fuse_signals(nodes: Sequence[NodeWithScore], signals: Signals, w: ProfileWeights) -> list[NodeWithScore]:
    """Score every node by the Tier-2 formula and sort, best first (ties keep the incoming order)."""
    scored = []
    for i in range(len(nodes)):
        final = (w.w_ce * signals.ce_norm[i] + w.w_li * signals.li_norm[i] + w.w_prior * signals.prior[i]
                 + w.w_entity * signals.entity[i] + w.w_sec * signals.section[i]
                 - w.w_xdrug_penalty * signals.xdrug[i])
        detail = {"ce_norm": signals.ce_norm[i], "li_norm": signals.li_norm[i], "prior": signals.prior[i],
                  "entity": signals.entity[i], "section": signals.section[i], "xdrug": signals.xdrug[i]}
        scored.append((final, i, detail))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [nodes[i].scored("rerank_t2", final, rank, detail) for rank, (final, i, detail) in enumerate(scored, 1)]


def post_rrf_rerank(ctx: HookContext, query: str, nodes: Sequence[NodeWithScore],
                    intent: QueryRetrievalIntent) -> list[NodeWithScore]:
    """The Tier-2 ranking of ``nodes`` (see the module docstring). Raises ValueError for bad weights."""
    opts = query_options(ctx.settings)
    texts, images = split_images(nodes)
    texts = enrich_file_names(texts, ctx.services.registry if ctx.services.has("registry") else None)
    pool, rest = texts[: opts.tier2.pool], texts[opts.tier2.pool:]
    weights = weights_for(intent.workflow, seed_options(ctx.settings).retrieval_scoring)
    full = ctx.extra.get("mode") is SearchMode.FULL
    prior = merged_prior(pool, ctx.settings.router.rrf_k)
    ce_label = seed_options(ctx.settings).domain_rerank_encoder
    ce_raw = None
    if full and opts.stages.cross_encoder and weights.w_ce > 0 and pool:
        ce_raw = cross_encoder_scores(ctx, ce_label, query, pool, opts.tier2.max_chars, opts.tier2.with_name)
    li_raw = None
    li_label = opts.tier2.late_interaction_encoder
    if full and opts.stages.late_interaction and weights.w_li > 0 and pool:
        li_raw = late_interaction_scores(ctx, li_label, query, pool, opts.tier2.max_chars, opts.tier2.with_name,
                                         opts.tier2.late_interaction_tokens)
    k = ctx.settings.router.rrf_k

    def norm(raw: list[float]) -> list[float]:
        return rank_normalised(raw, k) if opts.tier2.normalise == "rank" else minmax(raw)

    boost = boost_terms_for_query(query)
    protected = penalty_drugs_for_query(query)
    signals = Signals(
        ce_norm=norm(ce_raw) if ce_raw is not None else list(prior),
        li_norm=norm(li_raw) if li_raw is not None else [0.0] * len(pool),
        prior=prior,
        entity=[entity_match_score(n, boost) for n in pool],
        section=[section_match_score(n, intent.section_cues) for n in pool],
        xdrug=[cross_drug_penalty(n, protected) for n in pool],
    )
    fused = fuse_signals(pool, signals, weights)
    if intent.workflow == Workflow.CHEMICAL and opts.stages.chemical_branch:
        fused = apply_chemical_branch(ctx, query, fused, scale=weights.positive_total)
    ctx.log_decision("biomed_rerank_t2", plugin="biomed",
                     summary=f"{len(pool)} candidates, profile {intent.workflow}, "
                             f"ce={'on' if ce_raw is not None else 'fallback'}, "
                             f"li={'on' if li_raw is not None else 'off'}",
                     workflow=intent.workflow, weights=weights.__dict__, boost_terms=boost,
                     cross_encoder=ce_label if ce_raw is not None else None,
                     cross_encoder_model=model_of(ctx, ce_label) if ce_raw is not None else None,
                     late_interaction=li_label if li_raw is not None else None,
                     images_passed_through=len(images))
    return [*fused, *rest, *images]

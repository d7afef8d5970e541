"""Tier-2 (RERANK_MERGED): ``post_rrf_rerank`` fuses model and domain signals over the merged candidates.

For each text candidate of the pool (the first ``tier2.pool``)::

    final = w_ce * ce_norm + w_li * li_norm + w_prior * prior
            + w_entity * entity + w_sec * section - w_xdrug_penalty * xdrug

``ce_norm``   normalised cross-encoder scores (label ``domain_rerank_encoder``, default
              ``medcpt-rerank``; passages cut to ``tier2.max_chars``). Without a cross-encoder (a
              mode other than ``full``, the stage switched off, or any failure) ``ce_norm`` falls back
              to the rank prior: the existing order. The model reads only the first
              ``tier2.cross_encoder_pool`` candidates by the formula without it
              (:func:`cross_encoder_choice`); the others get ``ce_norm`` = 0. In mode full, a query
              outside the cross-encoder's languages (Chinese) gets, in its place, the normalised
              multilingual e5 query-passage cosine (stage ``multilingual_cosine``;
              ``search.multilingual_rerank_weight`` 0 turns it off and leaves the prior there).
``li_norm``   normalised late-interaction (ColBERT MaxSim) scores, only when ``w_li > 0`` in
              mode full with the ``late_interaction`` stage on; else 0.
              Both are min-max normalised raw scores, or with ``tier2.normalise = rank`` the rank
              prior of the order each model gives (:func:`~eagle_rag_biomed.rerank.models.rank_normalised`).
``prior``     the incoming rank as a score (:func:`~eagle_rag_biomed.rerank.models.merged_prior`: injected
              supplement hits get 0.0, so the models, not the injection's +100.0, decide where they land).
              In mode full the service hands over the candidates in the hybrid relevance model's order
              (``search.full_relevance_prior``), so this is the hybrid answer's rank.
``entity``    ``entity_match_score`` against ``QueryAnalysis.boost_terms``.
``section``   ``section_match_score`` against ``QueryAnalysis.section_cues``.
``xdrug``     ``cross_drug_penalty`` against ``QueryAnalysis.penalty_drugs``.

Weights come from the workflow's profile (:mod:`eagle_rag_biomed.rerank.weights`). File names are filled in from the
registry first (``enrich_file_names``). Candidates beyond the pool follow in their incoming order,
and image nodes (chunk type image / medical_image) are passed through at the end, unscored. For the
chemical workflow the chemical branch (:mod:`eagle_rag_biomed.rerank.chemical`) runs on the fused
list. See docs/biomed.md, "Tier-2: the merged rerank".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from eagle_rag.plugin_api import HookContext, NodeWithScore, SearchMode
from eagle_rag.plugin_api.retrieve import CROSS_ENCODER_STAGE, multilingual_ranked, skipped_for_language
from eagle_rag.plugin_api.text import model_covers
from eagle_rag_biomed.names import PLUGIN_NAME, RERANK_LANGUAGES
from eagle_rag_biomed.options import biomed_options
from eagle_rag_biomed.query.analysis import QueryAnalysis
from eagle_rag_biomed.query.intent import Workflow
from eagle_rag_biomed.rerank.chemical import apply_chemical_branch
from eagle_rag_biomed.rerank.models import (
    cross_encoder_scores,
    late_interaction_scores,
    merged_prior,
    minmax,
    rank_normalised,
)
from eagle_rag_biomed.rerank.signals import (
    cross_drug_penalty,
    enrich_file_names,
    entity_match_score,
    section_match_score,
)
from eagle_rag_biomed.rerank.tier1 import model_of
from eagle_rag_biomed.rerank.weights import ProfileWeights, weights_for

__all__ = ["IMAGE_CHUNK_TYPES", "Signals", "cross_encoder_choice", "fuse_signals", "post_rrf_rerank", "split_images",
           "tier2_order", "tier2_score"]

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


def tier2_score(signals: Signals, w: ProfileWeights, i: int) -> float:
    """The Tier-2 formula (module docstring) for candidate ``i``."""
    return (w.w_ce * signals.ce_norm[i] + w.w_li * signals.li_norm[i] + w.w_prior * signals.prior[i]
            + w.w_entity * signals.entity[i] + w.w_sec * signals.section[i] - w.w_xdrug_penalty * signals.xdrug[i])


def tier2_order(signals: Signals, w: ProfileWeights) -> list[tuple[float, int]]:
    """(Tier-2 score, index) of every candidate, best first; ties keep the incoming order."""
    return sorted(((tier2_score(signals, w, i), i) for i in range(len(signals.prior))),
                  key=lambda item: (-item[0], item[1]))


def fuse_signals(nodes: Sequence[NodeWithScore], signals: Signals, w: ProfileWeights) -> list[NodeWithScore]:
    """Score every node by the Tier-2 formula and sort, best first (ties keep the incoming order)."""
    out = []
    for rank, (final, i) in enumerate(tier2_order(signals, w), start=1):
        detail = {"ce_norm": signals.ce_norm[i], "li_norm": signals.li_norm[i], "prior": signals.prior[i],
                  "entity": signals.entity[i], "section": signals.section[i], "xdrug": signals.xdrug[i]}
        out.append(nodes[i].scored("rerank_t2", final, rank, detail))
    return out


def with_stage(nodes: Sequence[NodeWithScore], stage: str, scores: Sequence[float]) -> list[NodeWithScore]:
    """``nodes`` in the same order, each with a trail entry of ``stage``: its score and its rank (from 1,
    ties in incoming order) among ``scores``, so ``explain`` shows what a model said before the fusion."""
    order = sorted(range(len(nodes)), key=lambda i: (-scores[i], i))
    rank = {i: r for r, i in enumerate(order, start=1)}
    return [node.scored(stage, scores[i], rank[i]) for i, node in enumerate(nodes)]


def _covered(languages: frozenset[str], query: str, pool: Sequence[NodeWithScore]) -> list[bool]:
    """Per passage: may a model of ``languages`` score it with ``query`` (both in its languages)?"""
    if not model_covers(languages, query):
        return [False] * len(pool)
    return [model_covers(languages, n.node.text) for n in pool]


def _spread(scored: Sequence[float], covered: Sequence[bool], fallback: Sequence[float]) -> list[float]:
    """The values of the scored passages back in pool order; ``fallback[i]`` where passage i was skipped."""
    values = iter(scored)
    return [next(values) if ok else fallback[i] for i, ok in enumerate(covered)]


def cross_encoder_choice(covered: Sequence[bool], cheap: Signals, weights: ProfileWeights, size: int) -> list[bool]:
    """Per passage: is it one of the ``size`` best ``covered`` passages (those in the model's languages)
    by every signal but the cross-encoder's (the Tier-2 formula with ``ce_norm`` = the rank prior, as
    without a cross-encoder)?"""
    chosen = set([i for _, i in tier2_order(cheap, weights) if covered[i]][:size])
    return [i in chosen for i in range(len(covered))]


def _trail_cross_encoder(pool: Sequence[NodeWithScore], covered: Sequence[bool], asked: Sequence[bool],
                         raw: Sequence[float] | None) -> list[NodeWithScore]:
    """The cross-encoder's trail entry on each passage: its score and rank among the scored ones,
    ``skipped: language`` (rank = pool position) for a passage outside the model's languages, nothing
    for one outside the cross-encoder's pool."""
    scored = [n for n, ok in zip(pool, asked, strict=True) if ok]
    staged = iter(with_stage(scored, CROSS_ENCODER_STAGE, raw) if raw is not None else [])
    out = []
    for rank, (node, ok, ask) in enumerate(zip(pool, covered, asked, strict=True), start=1):
        if ask and raw is not None:
            out.append(next(staged))
        elif not ok:
            out.append(skipped_for_language(node, rank, CROSS_ENCODER_STAGE))
        else:
            out.append(node)
    return out


def post_rrf_rerank(ctx: HookContext, analysis: QueryAnalysis, nodes: Sequence[NodeWithScore],
                    mode: SearchMode) -> list[NodeWithScore]:
    """The Tier-2 ranking of ``nodes`` (see the module docstring); the models run in mode ``full`` only.

    Raises ValueError for bad weights.
    """
    opts = biomed_options(ctx.settings)
    query, workflow = analysis.query, analysis.workflow
    texts, images = split_images(nodes)
    texts = enrich_file_names(texts, ctx.services.registry if ctx.services.has("registry") else None)
    pool, rest = texts[: opts.tier2.pool], texts[opts.tier2.pool:]
    weights = weights_for(workflow, opts.retrieval_scoring)
    full = mode is SearchMode.FULL
    prior = merged_prior(pool, ctx.settings.router.rrf_k)
    ce_label = opts.domain_rerank_encoder
    k = ctx.settings.router.rrf_k

    def norm(raw: list[float]) -> list[float]:
        return rank_normalised(raw, k) if opts.tier2.normalise == "rank" else minmax(raw)

    # a model scores only the query and passages in its languages (docs/architecture.md, "Rerankers and
    # languages"); a passage it may not read keeps the fallback value of that signal
    li_covered = _covered(RERANK_LANGUAGES, query, pool)
    li_raw = li_norm = None
    li_label = opts.tier2.late_interaction_encoder
    if full and opts.stages.late_interaction and weights.w_li > 0 and any(li_covered):
        scorable = [n for n, ok in zip(pool, li_covered, strict=True) if ok]
        li_raw = late_interaction_scores(ctx, li_label, query, scorable, opts.tier2.max_chars, opts.tier2.with_name,
                                         opts.tier2.late_interaction_tokens, opts.tier2.window_chars)
        if li_raw is not None:
            li_norm = _spread(norm(li_raw), li_covered, [0.0] * len(pool))

    boost, protected = analysis.boost_terms, analysis.penalty_drugs
    cheap = Signals(
        ce_norm=list(prior),
        li_norm=li_norm if li_norm is not None else [0.0] * len(pool),
        prior=prior,
        entity=[entity_match_score(n, boost) for n in pool],
        section=[section_match_score(n, analysis.section_cues) for n in pool],
        xdrug=[cross_drug_penalty(n, protected) for n in pool],
    )
    ce_covered = _covered(RERANK_LANGUAGES, query, pool)
    ce_asked = cross_encoder_choice(ce_covered, cheap, weights, opts.tier2.cross_encoder_pool)
    ce_raw = ce_norm = None
    if full and opts.stages.cross_encoder and weights.w_ce > 0 and any(ce_asked):
        scorable = [n for n, ok in zip(pool, ce_asked, strict=True) if ok]
        ce_raw = cross_encoder_scores(ctx, ce_label, query, scorable, opts.tier2.max_chars, opts.tier2.with_name,
                                      opts.tier2.window_chars)
    if ce_raw is not None:
        # a passage outside the model's languages keeps its prior; one outside the cross-encoder's
        # pool ranks below every passage it read
        fallback = [0.0 if ok else p for p, ok in zip(prior, ce_covered, strict=True)]
        ce_norm = _spread(norm(ce_raw), ce_asked, fallback)
    if full and opts.stages.cross_encoder and weights.w_ce > 0:
        pool = _trail_cross_encoder(pool, ce_covered, ce_asked, ce_raw)
        if not any(ce_covered):  # a query the cross-encoder cannot read (Chinese): the e5 cosine in its place
            read = {n.node_id: n for n in multilingual_ranked(ctx, query, pool)}  # trail + multilingual_cosine
            cosine = dict(zip(read, norm([n.score for n in read.values()]), strict=True))
            ce_norm = [cosine.get(n.node_id, p) for n, p in zip(pool, prior, strict=True)] if read else ce_norm
            pool = [replace(n, trail=read[n.node_id].trail) if n.node_id in read else n for n in pool]

    signals = replace(cheap, ce_norm=ce_norm) if ce_norm is not None else cheap
    fused = fuse_signals(pool, signals, weights)
    if workflow is Workflow.CHEMICAL and opts.stages.chemical_branch:
        fused = apply_chemical_branch(ctx, analysis, fused, scale=weights.positive_total)
    ctx.log_decision("biomed_rerank_t2", plugin=PLUGIN_NAME,
                     summary=f"{len(pool)} candidates, profile {workflow.value}, "
                             f"ce={'on' if ce_raw is not None else 'fallback'}, "
                             f"li={'on' if li_raw is not None else 'off'}",
                     workflow=workflow.value, weights=weights.__dict__, boost_terms=list(boost),
                     cross_encoder=ce_label if ce_raw is not None else None,
                     cross_encoder_model=model_of(ctx, ce_label) if ce_raw is not None else None,
                     late_interaction=li_label if li_raw is not None else None,
                     images_passed_through=len(images))
    return [*fused, *rest, *images]

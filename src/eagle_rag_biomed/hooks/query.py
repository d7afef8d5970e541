"""The biomed plugin's query hooks: thin adapters from the core hooks to the stage modules.

Every hook abstains (returns None) when ``ctx.namespace`` is not ``biomed``. What the query is about
(intent, drugs, entities, section cues, boost and penalty terms) is a
:class:`~eagle_rag_biomed.query.analysis.QueryAnalysis`, computed once per request by
:func:`~eagle_rag_biomed.query.analysis.analysis_for` and read by every hook below. The search mode
comes with the request (a hook argument): Tier-1, the supplement, the injection and Tier-2 run in the
``hybrid`` and ``full`` modes; ``bm25`` and ``dense`` stay the plain channels. Stages can be switched
off with the ``stages`` options (:mod:`eagle_rag_biomed.options`) for ablations.

=====================  ==========================  ===========================================
hook                   implementation              stage module
=====================  ==========================  ===========================================
QUERY_ASSEMBLE         biomed_query_assemble       query.expand (canonical drug names)
CLASSIFY_QUERY         biomed_classify_query       query.route + query.scope
QUERY_DENSE_EXPAND     biomed_dense_expand         query.expand (sparse terms, dense suffix)
RERANK                 biomed_rerank_plan          rerank.tier1
RETRIEVE_SUPPLEMENT    biomed_retrieve_supplement  supplement
RRF_POST_MERGE         biomed_rrf_post_merge       the core's inject_supplement_candidates
RERANK_MERGED          biomed_post_rrf_rerank      rerank.policy + rerank.tier2
eagle_cli_register     biomed_cli_register         hooks.cli (``eagle-rag eval biomed``)
=====================  ==========================  ===========================================
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from eagle_rag.plugin_api import (
    CollectionQueryPlan,
    ExpandedQuery,
    HookContext,
    NodeWithScore,
    QueryRouteDecision,
    SearchMode,
    SearchRequest,
    hookimpl,
)
from eagle_rag.plugin_api.retrieve import inject_supplement_candidates
from eagle_rag_biomed.hooks.cli import biomed_cli_register
from eagle_rag_biomed.names import NAMESPACE, PLUGIN_NAME, Collection
from eagle_rag_biomed.options import biomed_options
from eagle_rag_biomed.query.analysis import analysis_for
from eagle_rag_biomed.query.expand import dense_query
from eagle_rag_biomed.query.intent import Workflow
from eagle_rag_biomed.query.route import QUERY_LABELS, BiomedQueryRouteClassifier, collection_counts
from eagle_rag_biomed.query.scope import apply_scope_aware_union
from eagle_rag_biomed.rerank.policy import DECISION_CATEGORY, RerankPolicy, resolve_rerank_policy
from eagle_rag_biomed.rerank.tier1 import biomed_rerank, model_of
from eagle_rag_biomed.rerank.tier2 import post_rrf_rerank
from eagle_rag_biomed.supplement import supplement_entity_anchored_hits

__all__ = ["biomed_classify_query", "biomed_cli_register", "biomed_dense_expand", "biomed_post_rrf_rerank",
           "biomed_query_assemble", "biomed_rerank_plan", "biomed_retrieve_supplement", "biomed_rrf_post_merge"]

INJECT_MIN_NEW = 2
RERANK_MODES = frozenset({SearchMode.HYBRID, SearchMode.FULL})


def _mine(ctx: HookContext) -> bool:
    return ctx.namespace == NAMESPACE


def _reranking(request: SearchRequest) -> bool:
    return request.mode in RERANK_MODES


@hookimpl(specname="eagle_query_assemble")
def biomed_query_assemble(ctx: HookContext, request: SearchRequest) -> str | None:
    """Canonical drug names the query writes another way ("Gleevec" -> "imatinib"); None when none."""
    if not _mine(ctx) or not biomed_options(ctx.settings).stages.assemble:
        return None
    names = analysis_for(ctx, request.query).canonical_names
    if not names:
        return None
    ctx.log_decision("route_query", plugin=PLUGIN_NAME, summary=f"assembled canonical names: {', '.join(names)}",
                     stage="query_assemble", names=list(names))
    return " ".join(names)


@hookimpl(specname="eagle_classify_query")
def biomed_classify_query(ctx: HookContext, request: SearchRequest, query: str) -> QueryRouteDecision | None:
    """The biomed routing decision (query.route), widened to the scope's collections (query.scope)."""
    if not _mine(ctx):
        return None
    options = biomed_options(ctx.settings)
    services = ctx.services
    analysis = analysis_for(ctx, query)
    classifier = BiomedQueryRouteClassifier(
        services.encoders, default_dual_text_search=options.default_dual_text_search,
        medcpt_dual_search=options.medcpt_dual_search, exploratory=tuple(options.exploratory_search_collections),
        recall_top_k=options.collection_recall_top_k, count=collection_counts(services.vectors),
        general_text_weight=options.general_text_weight)
    decision = classifier.route(query, ctx.namespace, has_image=request.has_image, route_mode=request.mode.value,
                                analysis=analysis, doc_types=request.doc_types)
    if decision is None:
        return None
    decision, added = apply_scope_aware_union(decision, request, services.encoders, services.vectors,
                                              services.registry, query_labels=QUERY_LABELS,
                                              suppressed=analysis.intent.suppress_collections)
    if options.stages.tier2 and _reranking(request):
        # Tier-2 scores tier2.pool candidates: ask the core for that many (router.rerank_pool may be fewer)
        decision = replace(decision, retrieval_hints={**decision.retrieval_hints, "rerank_pool": options.tier2.pool})
    ctx.log_decision("route_query", plugin=PLUGIN_NAME, summary=decision.reason, workflow=analysis.workflow.value,
                     plans=[f"{p.collection}/{p.encoder}" for p in decision.plans], scope_added=added,
                     models={p.encoder: model_of(ctx, p.encoder) for p in decision.plans},
                     hints=dict(decision.retrieval_hints))
    return decision


@hookimpl(specname="eagle_query_dense_expand")
def biomed_dense_expand(ctx: HookContext, query: str, plan: CollectionQueryPlan | None) -> ExpandedQuery | None:
    """Dense suffix for the pubmedbert plan only; sparse terms = drugs + section cues (query.expand)."""
    if not _mine(ctx):
        return None
    analysis = analysis_for(ctx, query)
    return ExpandedQuery(dense_query=dense_query(ctx, analysis, plan), sparse_terms=analysis.sparse_terms,
                         intent=analysis.intent)


@hookimpl(specname="eagle_rerank")
def biomed_rerank_plan(ctx: HookContext, query: str, plan: CollectionQueryPlan, nodes: Sequence[NodeWithScore],
                       request: SearchRequest) -> list[NodeWithScore] | None:
    """Tier-1 cosine rerank of one plan (domain-encoder collections only).

    The chemical plan that the router adds to a text query naming drugs keeps only those drugs'
    compounds in every mode, with or without Tier-1: it is part of the route, and any other compound
    would enter the merged ranking at the top of a one-hit list (RRF rank 1).
    """
    if not _mine(ctx):
        return None
    analysis = analysis_for(ctx, query)
    routed_compounds = plan.collection == Collection.CHEMICAL and analysis.workflow is not Workflow.CHEMICAL
    if not routed_compounds and (not _reranking(request) or not biomed_options(ctx.settings).stages.tier1):
        return None
    return biomed_rerank(ctx, analysis, plan, nodes)


@hookimpl(specname="eagle_retrieve_supplement")
def biomed_retrieve_supplement(ctx: HookContext, query: str, request: SearchRequest,
                               plans: Sequence[CollectionQueryPlan]) -> list[NodeWithScore] | None:
    """Entity-anchored hits (supplement); None when switched off or not reranking."""
    if not _mine(ctx) or not _reranking(request) or not biomed_options(ctx.settings).stages.supplement:
        return None
    return supplement_entity_anchored_hits(ctx, analysis_for(ctx, query), request)


@hookimpl(specname="eagle_rrf_post_merge")
def biomed_rrf_post_merge(ctx: HookContext, query: str, merged: Sequence[NodeWithScore],
                          supplement: Sequence[NodeWithScore], request: SearchRequest) -> list[NodeWithScore] | None:
    """Inject up to 2 unseen supplement hits (+100.0) when the intent requires an entity match."""
    if not _mine(ctx) or not _reranking(request) or not biomed_options(ctx.settings).stages.inject:
        return None
    if not analysis_for(ctx, query).intent.require_entity_match or not supplement:
        return None
    out = inject_supplement_candidates(merged, supplement, min_new=INJECT_MIN_NEW)
    injected = len(out) - len(merged)
    ctx.log_decision("rrf_dedupe", plugin=PLUGIN_NAME, summary=f"injected {injected} supplement hits",
                     stage="rrf_post_merge", injected=injected, supplement=len(supplement))
    return out


@hookimpl(specname="eagle_rerank_merged")
def biomed_post_rrf_rerank(ctx: HookContext, query: str, nodes: Sequence[NodeWithScore], top_k: int,
                           request: SearchRequest) -> list[NodeWithScore] | None:
    """Tier-2 by the rerank policy: domain (post_rrf_rerank), general (the core's), none (passthrough)."""
    if not _mine(ctx):
        return None
    pm = ctx.services.pm if ctx.services.has("pm") else None
    policy, why = resolve_rerank_policy(ctx.plugin_options(PLUGIN_NAME), pm)
    stages = biomed_options(ctx.settings).stages
    if policy is RerankPolicy.DOMAIN and not (stages.tier2 and _reranking(request)):
        policy, why = RerankPolicy.NONE, "tier2 stage off" if not stages.tier2 else "mode without reranking"
    ctx.log_decision(DECISION_CATEGORY[policy], plugin=PLUGIN_NAME, summary=f"rerank policy {policy.value} ({why})",
                     candidates=len(nodes), top_k=top_k)
    if policy is RerankPolicy.GENERAL:
        return None
    if policy is RerankPolicy.NONE:
        return list(nodes)
    return post_rrf_rerank(ctx, analysis_for(ctx, query), nodes, request.mode)

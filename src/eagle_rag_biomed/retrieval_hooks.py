"""The biomed plugin's query hooks: thin adapters from the core hooks to the stage modules.

Every hook abstains (returns None) when ``ctx.namespace`` is not ``biomed``. The request's intent is
detected once, by the request-wide QUERY_DENSE_EXPAND pass, and kept in ``ctx.extra["retrieval_intent"]``
for every later hook. Tier-1, the supplement, the injection and Tier-2 run in the ``hybrid`` and
``full`` modes; ``bm25`` and ``dense`` stay the plain channels. Stages can be switched off with the
``stages`` options (:mod:`query_options`) for ablations.

=====================  ==========================  ===========================================
hook                   implementation              stage module
=====================  ==========================  ===========================================
QUERY_ASSEMBLE         biomed_query_assemble       canonical drug names for brand names / aliases
CLASSIFY_QUERY         biomed_classify_query       query_route + scope_routing
QUERY_DENSE_EXPAND     biomed_dense_expand         query_intent + ontology expansion (dense_suffix_on)
RERANK                 biomed_rerank_plan          rerank (Tier-1)
RETRIEVE_SUPPLEMENT    biomed_retrieve_supplement  supplement
RRF_POST_MERGE         biomed_rrf_post_merge       core inject_supplement_candidates
RERANK_MERGED          biomed_post_rrf_rerank      rerank_policy + rerank_merged (Tier-2)
eagle_cli_register     biomed_cli_register         cli_hooks (``eagle-rag eval biomed``)
=====================  ==========================  ===========================================
"""

from __future__ import annotations

from collections.abc import Sequence

from eagle_rag.plugin_api import (
    CollectionQueryPlan,
    ExpandedQuery,
    HookContext,
    NodeWithScore,
    QueryRetrievalIntent,
    QueryRouteDecision,
    SearchMode,
    SearchRequest,
    hookimpl,
    inject_supplement_candidates,
)
from eagle_rag_biomed.cli_hooks import biomed_cli_register
from eagle_rag_biomed.collections import CHEMICAL
from eagle_rag_biomed.encoders import has_domain_checkpoint
from eagle_rag_biomed.ontology import EntityType, expand_query_for_dense_retrieval, match_drug_entities, match_entities
from eagle_rag_biomed.query_intent import Workflow, detect_retrieval_intent
from eagle_rag_biomed.query_options import query_options, seed_options
from eagle_rag_biomed.query_route import QUERY_LABELS, BiomedQueryRouteClassifier, collection_counts
from eagle_rag_biomed.rerank import biomed_rerank, model_of
from eagle_rag_biomed.rerank_merged import post_rrf_rerank
from eagle_rag_biomed.rerank_policy import DECISION_CATEGORY, RerankPolicy, resolve_rerank_policy
from eagle_rag_biomed.scope_routing import apply_scope_aware_union
from eagle_rag_biomed.supplement import supplement_entity_anchored_hits

__all__ = ["INTENT_KEY", "biomed_classify_query", "biomed_cli_register", "biomed_dense_expand",
           "biomed_post_rrf_rerank", "biomed_query_assemble", "biomed_rerank_plan", "biomed_retrieve_supplement",
           "biomed_rrf_post_merge", "current_intent"]

NAMESPACE = "biomed"
PLUGIN = "biomed"
INTENT_KEY = "retrieval_intent"
SPARSE_KEY = "biomed_sparse_terms"
DENSE_ENCODER = "pubmedbert"
INJECT_MIN_NEW = 2
_RERANK_MODES = (SearchMode.HYBRID, SearchMode.FULL)


def _mine(ctx: HookContext) -> bool:
    return ctx.namespace == NAMESPACE


def _reranking(ctx: HookContext) -> bool:
    return ctx.extra.get("mode", SearchMode.HYBRID) in _RERANK_MODES


def sparse_terms_for(query: str, intent: QueryRetrievalIntent) -> tuple[str, ...]:
    """The query's drugs plus the intent's section cues (``_`` as spaces), each once."""
    terms = [*match_drug_entities(query), *(cue.replace("_", " ") for cue in intent.section_cues)]
    return tuple(dict.fromkeys(terms))


def current_intent(ctx: HookContext, query: str) -> QueryRetrievalIntent:
    """The request's intent: the one stored by the dense-expand pass, else detected (and stored) now."""
    intent = ctx.extra.get(INTENT_KEY)
    if not isinstance(intent, QueryRetrievalIntent):
        intent = detect_retrieval_intent(query)
        ctx.extra[INTENT_KEY] = intent
    return intent


@hookimpl(specname="eagle_query_assemble")
def biomed_query_assemble(ctx: HookContext, request: SearchRequest) -> str | None:
    """Canonical drug names the query writes another way ("Gleevec" -> "imatinib"); None when none."""
    if not _mine(ctx) or not query_options(ctx.settings).stages.assemble:
        return None
    names: list[str] = []
    for match in match_entities(request.query, include_keywords=False):
        canonical = match.canonical.lower()
        if (match.type is EntityType.DRUG and canonical not in request.query.lower() and canonical not in names
                and canonical in match_drug_entities(request.query)):
            names.append(canonical)
    if not names:
        return None
    ctx.log_decision("route_query", plugin=PLUGIN, summary=f"assembled canonical names: {', '.join(names)}",
                     stage="query_assemble", names=names)
    return " ".join(names)


@hookimpl(specname="eagle_classify_query")
def biomed_classify_query(ctx: HookContext, request: SearchRequest, query: str) -> QueryRouteDecision | None:
    """The biomed routing decision (query_route), widened to the scope's collections (scope_routing)."""
    if not _mine(ctx):
        return None
    seeds = seed_options(ctx.settings)
    services = ctx.services
    classifier = BiomedQueryRouteClassifier(
        services.encoders, default_dual_text_search=seeds.default_dual_text_search,
        medcpt_dual_search=seeds.medcpt_dual_search, exploratory=tuple(seeds.exploratory_search_collections),
        recall_top_k=seeds.collection_recall_top_k, count=collection_counts(services.vectors))
    decision = classifier.route(query, ctx.namespace, has_image=request.has_image, route_mode=request.mode.value)
    if decision is None:
        return None
    intent = current_intent(ctx, query)
    decision, added = apply_scope_aware_union(decision, request, services.encoders, services.vectors,
                                              services.registry, query_labels=QUERY_LABELS,
                                              suppressed=intent.suppress_collections)
    ctx.log_decision("route_query", plugin=PLUGIN, summary=decision.reason, workflow=intent.workflow,
                     plans=[f"{p.collection}/{p.encoder}" for p in decision.plans], scope_added=added,
                     models={p.encoder: model_of(ctx, p.encoder) for p in decision.plans},
                     hints=dict(decision.retrieval_hints))
    return decision


@hookimpl(specname="eagle_query_dense_expand")
def biomed_dense_expand(ctx: HookContext, query: str, plan: CollectionQueryPlan | None) -> ExpandedQuery | None:
    """Dense suffix for the pubmedbert plan only; sparse terms = drugs + section cues; intent stored."""
    if not _mine(ctx):
        return None
    intent = current_intent(ctx, query)
    sparse = ctx.extra.get(SPARSE_KEY)
    if sparse is None:
        sparse = ctx.extra[SPARSE_KEY] = sparse_terms_for(query, intent)
    dense = query
    if plan is not None and plan.encoder == DENSE_ENCODER and dense_suffix_on(ctx):
        dense = expand_query_for_dense_retrieval(query)
    return ExpandedQuery(dense_query=dense, sparse_terms=tuple(sparse), intent=intent)


def dense_suffix_on(ctx: HookContext) -> bool:
    """The ``dense_suffix`` stage: True / False, or ``auto`` = only with a real pubmedbert checkpoint."""
    setting = query_options(ctx.settings).stages.dense_suffix
    if setting != "auto":
        return bool(setting)
    return has_domain_checkpoint(ctx.services.encoders if ctx.services.has("encoders") else None, DENSE_ENCODER)


@hookimpl(specname="eagle_rerank")
def biomed_rerank_plan(ctx: HookContext, query: str, plan: CollectionQueryPlan,
                       nodes: Sequence[NodeWithScore]) -> list[NodeWithScore] | None:
    """Tier-1 cosine rerank of one plan (domain-encoder collections only).

    The chemical plan that the router adds to a text query naming drugs keeps only those drugs'
    compounds in every mode, with or without Tier-1: it is part of the route, and any other compound
    would enter the merged ranking at the top of a one-hit list (RRF rank 1).
    """
    if not _mine(ctx):
        return None
    intent = current_intent(ctx, query)
    routed_compounds = plan.collection == CHEMICAL and intent.workflow != Workflow.CHEMICAL
    if not routed_compounds and (not _reranking(ctx) or not query_options(ctx.settings).stages.tier1):
        return None
    sparse = ctx.extra.get(SPARSE_KEY) or sparse_terms_for(query, intent)
    return biomed_rerank(ctx, query, plan, nodes, intent, sparse)


@hookimpl(specname="eagle_retrieve_supplement")
def biomed_retrieve_supplement(ctx: HookContext, query: str, request: SearchRequest,
                               plans: Sequence[CollectionQueryPlan]) -> list[NodeWithScore] | None:
    """Entity-anchored hits (supplement); None when switched off or not reranking."""
    if not _mine(ctx) or not _reranking(ctx) or not query_options(ctx.settings).stages.supplement:
        return None
    hits = supplement_entity_anchored_hits(ctx, query, request, current_intent(ctx, query))
    ctx.extra["biomed_supplement"] = len(hits)
    return hits


@hookimpl(specname="eagle_rrf_post_merge")
def biomed_rrf_post_merge(ctx: HookContext, query: str, merged: Sequence[NodeWithScore],
                          supplement: Sequence[NodeWithScore]) -> list[NodeWithScore] | None:
    """Inject up to 2 unseen supplement hits (+100.0) when the intent requires an entity match."""
    if not _mine(ctx) or not _reranking(ctx) or not query_options(ctx.settings).stages.inject:
        return None
    intent = current_intent(ctx, query)
    if not intent.require_entity_match or not supplement:
        return None
    out = inject_supplement_candidates(merged, supplement, min_new=INJECT_MIN_NEW)
    injected = len(out) - len(merged)
    ctx.log_decision("rrf_dedupe", plugin=PLUGIN, summary=f"injected {injected} supplement hits",
                     stage="rrf_post_merge", injected=injected, supplement=len(supplement))
    return out


@hookimpl(specname="eagle_rerank_merged")
def biomed_post_rrf_rerank(ctx: HookContext, query: str, nodes: Sequence[NodeWithScore],
                           top_k: int) -> list[NodeWithScore] | None:
    """Tier-2 by the rerank policy: domain (post_rrf_rerank), general (the core's), none (passthrough)."""
    if not _mine(ctx):
        return None
    policy, why = resolve_rerank_policy(ctx.plugin_options(PLUGIN), ctx.services.pm if ctx.services.has("pm") else None)
    stages = query_options(ctx.settings).stages
    if policy is RerankPolicy.DOMAIN and not (stages.tier2 and _reranking(ctx)):
        policy, why = RerankPolicy.NONE, "tier2 stage off" if not stages.tier2 else "mode without reranking"
    ctx.log_decision(DECISION_CATEGORY[policy], plugin=PLUGIN, summary=f"rerank policy {policy.value} ({why})",
                     candidates=len(nodes), top_k=top_k)
    if policy is RerankPolicy.GENERAL:
        return None
    if policy is RerankPolicy.NONE:
        return list(nodes)
    return post_rrf_rerank(ctx, query, nodes, current_intent(ctx, query))

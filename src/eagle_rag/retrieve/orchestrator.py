"""RetrieverOrchestrator: the query pipeline of DESIGN.md section 2 as a plain sequence of stages.

QUERY_ASSEMBLE -> CLASSIFY_QUERY -> per plan (QUERY_DENSE_EXPAND -> BM25 + dense -> fuse ->
RERANK) -> RETRIEVE_SUPPLEMENT -> merge_rrf + dedupe_cross_collection -> RRF_POST_MERGE ->
parent-document grouping (the request's ``max_per_document`` when set, else ``router.parent_doc_*``)
-> RERANK_MERGED -> the caller cuts the final top k.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import pluggy

from eagle_rag.analysis import cjk_ratio
from eagle_rag.context import HookContext
from eagle_rag.protocols import StoreFilter
from eagle_rag.retrieve.channels import dense_channel, keep_admitted, lexical_channel, sentence_channel, tally
from eagle_rag.retrieve.diversity import collapse_per_document
from eagle_rag.retrieve.fusion import dedupe_cross_collection, hybrid_fuse_dense_sparse, merge_plans, merge_rrf
from eagle_rag.retrieve.parent_doc import group_by_parent
from eagle_rag.retrieve.safe_hooks import call_hook
from eagle_rag.types import (
    CollectionQueryPlan,
    ExpandedQuery,
    HybridMode,
    NodeWithScore,
    QueryRouteDecision,
    SearchMode,
    SearchRequest,
)


@dataclass
class RetrievalResult:
    nodes: list[NodeWithScore]
    decision: QueryRouteDecision
    query: str
    plans_run: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)


class _Clock:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._t = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.timings[stage] = self.timings.get(stage, 0.0) + (now - self._t) * 1000
        self._t = now


class RetrieverOrchestrator:
    """Runs the query pipeline. Cheap to build: stores and models live in ``ctx.services``."""

    def __init__(self, pm: pluggy.PluginManager) -> None:
        self.pm = pm
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="eagle-plan")

    def retrieve(self, ctx: HookContext, request: SearchRequest, flt: StoreFilter,
                 before_rerank: Callable[[list[NodeWithScore]], list[NodeWithScore]] | None = None) -> RetrievalResult:
        """Run the pipeline; ``before_rerank`` (when given) orders the pool handed to RERANK_MERGED."""
        clock = _Clock()
        hook = self.pm.hook
        settings = ctx.settings.router
        suffixes = call_hook(ctx, hook.eagle_query_assemble, [], request=request) or []
        query = " ".join([request.query, *[s for s in suffixes if s]])
        decision = call_hook(ctx, hook.eagle_classify_query, None, request=request, query=query)
        if decision is None:
            decision = QueryRouteDecision(plans=(), reason="no classifier answered")
        ctx.log_decision("route_query", plugin=decision.classifier or "core",
                         summary=decision.reason, plans=[p.collection for p in decision.plans])
        call_hook(ctx, hook.eagle_query_dense_expand, None, query=query, plan=None, request=request)
        clock.lap("route")
        plans = list(decision.plans)
        futures = [self._pool.submit(self._retrieve_plan, ctx, request, query, plan, flt) for plan in plans]
        per_plan = [f.result() for f in futures]
        clock.lap("plans")
        supplement_lists = call_hook(ctx, hook.eagle_retrieve_supplement, [], query=query,
                                     request=request, plans=plans) or []
        supplement = keep_admitted(ctx, [n for lst in supplement_lists for n in lst], flt)
        merged = merge_plans(plans, per_plan, k=settings.rrf_k)
        if sum(1 for lst in per_plan if lst) > 1:
            before = len(merged)
            merged = dedupe_cross_collection(merged)
            ctx.log_decision("rrf_dedupe", summary=f"{before} -> {len(merged)}")
        post = call_hook(ctx, hook.eagle_rrf_post_merge, None, query=query, merged=merged,
                         supplement=supplement, request=request)
        nodes = merged if post is None else keep_admitted(ctx, post, flt)
        if request.max_per_document is not None:
            nodes, left_out = collapse_per_document(nodes, request.max_per_document)
            tally(ctx).note_collapsed(left_out)
        elif decision.retrieval_hints.get("parent_doc_retrieval", settings.parent_doc_retrieval):
            nodes = group_by_parent(nodes, settings.parent_doc_max_chunks)
        clock.lap("merge")
        pool = nodes[: rerank_pool_size(settings.rerank_pool, decision, request.top_k)]
        tally(ctx).note_cut(nodes[len(pool):])
        if before_rerank is not None:
            pool = before_rerank(pool)
        reranked = call_hook(ctx, hook.eagle_rerank_merged, None, query=query, nodes=pool,
                             top_k=request.top_k, request=request)
        final = pool if reranked is None else keep_admitted(ctx, reranked, flt)
        clock.lap("rerank")
        return RetrievalResult(nodes=final, decision=decision, query=query,
                               plans_run=[p.collection for p, lst in zip(plans, per_plan, strict=True) if lst],
                               timings_ms=clock.timings)

    # ------------------------------------------------------------------------------ one plan
    def _retrieve_plan(self, ctx: HookContext, request: SearchRequest, query: str,
                       plan: CollectionQueryPlan, flt: StoreFilter) -> list[NodeWithScore]:
        services = ctx.services
        encoders = services.encoders
        encoders.validate_plan(plan.collection, plan.encoder)
        if not services.vectors.has_collection(plan.collection):
            ctx.log_decision("retrieve_plan", summary="collection missing", collection=plan.collection)
            return []
        expanded = call_hook(ctx, self.pm.hook.eagle_query_dense_expand, None, query=query, plan=plan,
                             request=request)
        if expanded is None:
            expanded = ExpandedQuery(dense_query=query)
        router = ctx.settings.router
        depth = max(router.channel_top_k, request.top_k)
        hybrid_ok = (plan.collection in router.hybrid_text_collections
                     or encoders.hybrid_enabled_for_collection(plan.collection))
        use_lexical = plan.lexical and request.mode is not SearchMode.DENSE and hybrid_ok
        use_dense = plan.dense and request.mode is not SearchMode.BM25
        lexical = (lexical_channel(ctx, plan, query, expanded.sparse_terms, depth, flt)
                   if use_lexical else [])
        dense = dense_channel(ctx, plan, expanded.dense_query, depth, flt, request.image) if use_dense else []
        sentences = (sentence_channel(ctx, plan, expanded.dense_query, depth, flt, [*lexical, *dense])
                     if use_dense and sentence_weight(ctx, query) > 0 else [])
        fused = self._fuse(ctx, query, expanded, lexical, dense, sentences)
        keep = max(plan.top_k, request.top_k)
        tally(ctx).note_cut(fused[keep:])
        fused = fused[:keep]
        ctx.log_decision("retrieve_plan", collection=plan.collection, encoder=plan.encoder,
                         lexical=len(lexical), dense=len(dense), sentence=len(sentences), fused=len(fused))
        reranked = call_hook(ctx, self.pm.hook.eagle_rerank, None, query=query, plan=plan, nodes=fused,
                             request=request)
        return fused if reranked is None else reranked

    def _fuse(self, ctx: HookContext, query: str, expanded: ExpandedQuery, lexical: Sequence[NodeWithScore],
              dense: Sequence[NodeWithScore], sentences: Sequence[NodeWithScore] = ()) -> list[NodeWithScore]:
        """Weighted RRF of the channels; in ``alpha`` mode the score blend of lexical and dense
        (the sentence channel takes part in RRF only)."""
        router = ctx.settings.router
        if router.hybrid_mode is HybridMode.ALPHA and lexical and dense:
            return hybrid_fuse_dense_sparse(dense, lexical, query, router.hybrid_alpha, expanded.sparse_terms)
        weights = [*channel_weights(ctx, query), sentence_weight(ctx, query)]
        return merge_rrf([lexical, dense, sentences], k=router.rrf_k, weights=weights, stage="hybrid_rrf")

    def close(self) -> None:
        self._pool.shutdown(wait=False)


def rerank_pool_size(rerank_pool: int, decision: QueryRouteDecision, top_k: int) -> int:
    """How many merged candidates RERANK_MERGED receives: the largest of ``router.rerank_pool``, the
    route decision's hint ``rerank_pool`` (a plugin whose merged rerank scores a deeper pool asks for
    it) and ``top_k``."""
    return max(rerank_pool, int(decision.retrieval_hints.get("rerank_pool", 0)), top_k)


_IDENTIFIER = re.compile(r"\S*(?:[0-9]|[^\w\s])\S*")


def is_identifier_query(query: str) -> bool:
    """True for a query that is one token with a digit or a symbol and no CJK script: a SMILES
    ("CC(=O)Oc1ccccc1C(=O)O"), an accession or catalogue number ("D-001234", "NCT01234567")."""
    text = query.strip()
    return bool(_IDENTIFIER.fullmatch(text)) and cjk_ratio(text) == 0.0 and len(text) >= 3


def channel_weights(ctx: HookContext, query: str) -> list[float]:
    """RRF weights (lexical, dense): measured per language (``router.*_weight_cjk``); a one-identifier
    query is led by its exact lexical match (``router.*_weight_symbol``)."""
    router = ctx.settings.router
    if cjk_ratio(query) >= 0.5:
        return [router.lexical_weight_cjk, router.dense_weight_cjk]
    if is_identifier_query(query):
        return [router.lexical_weight_symbol, router.dense_weight_symbol]
    return [router.lexical_weight, router.dense_weight]


def sentence_weight(ctx: HookContext, query: str) -> float:
    """RRF weight of the sentence channel: ``router.sentence_weight`` for Latin-script queries, 0 for
    CJK queries and one-identifier queries (a SMILES or an accession has no sentence to match)."""
    if ctx.settings.router.hybrid_mode is HybridMode.ALPHA or cjk_ratio(query) >= 0.5 or is_identifier_query(query):
        return 0.0
    return ctx.settings.router.sentence_weight

"""Tier-1 (RERANK): per-plan cosine rerank with the entity filter, and the shared ``cosine_rerank``.

:func:`biomed_rerank` answers only for the collections with a domain encoder (``eagle_text_biomed`` ->
pubmedbert, ``eagle_chemical`` -> molformer) and abstains (None) for any other collection:

1. entity filter, only when the intent requires an entity match and there are sparse terms: a hit is
   kept when ``entity_boost_score(meta, sparse_terms) > 0`` or a term occurs in ``text[:512]`` or its
   path; applied only when something is kept. The other hits are demoted below the kept ones (in
   their incoming order), not dropped, so a filter never costs recall;
2. :func:`cosine_rerank` of the first ``tier1.pool`` hits: the query and each passage (cut to
   ``tier1.max_chars``, 2048) are embedded with the plan's domain encoder and sorted by the dot product
   (cosine: vectors are L2-normalised), best first. With ``tier1.mode = fuse`` (the default; ``cosine``
   is the plain sort) the cosine rank is fused with the incoming rank by RRF (k = ``router.rrf_k``)
   instead of replacing it.

The chemical plan of a non-chemical query (added by the router because the query names drugs, not
because its ``doc_types`` filter asks for compounds) keeps
only the compounds of those drugs (:func:`compounds_of_named_drugs`): other compounds would enter the
merged ranking at the top ranks of their own list.

With ``tier1.stored_vectors`` (the default) a passage's vector is the one its collection holds, when
the collection's encoder is the plan's domain encoder: the ingest embedded the document name and the
text, and nothing is encoded at query time but the query. Other passages are embedded now (cut to
``tier1.max_chars``) and cached per (encoder, chunk id, text), so repeated candidates are embedded once.
"""

from __future__ import annotations

from collections.abc import Sequence

from eagle_rag.plugin_api import CollectionQueryPlan, HookContext, NodeWithScore, VectorMemo, memo_key
from eagle_rag.plugin_api.retrieve import call_hook, embed_query, merge_rrf
from eagle_rag_biomed.names import PLUGIN_NAME, Collection, EncoderLabel
from eagle_rag_biomed.options import biomed_options
from eagle_rag_biomed.query.analysis import QueryAnalysis
from eagle_rag_biomed.query.intent import Workflow
from eagle_rag_biomed.query.route import COMPOUND_FILTER
from eagle_rag_biomed.rerank.signals import (
    TEXT_WINDOW,
    entity_boost_score,
    node_meta,
    passage_text,
)

__all__ = ["TIER1_ENCODERS", "biomed_rerank", "compounds_of_named_drugs", "cosine_rerank", "entity_filter",
           "model_of", "stored_vectors"]

TIER1_ENCODERS: dict[str, str] = {Collection.TEXT_BIOMED: EncoderLabel.PUBMEDBERT,
                                  Collection.CHEMICAL: EncoderLabel.MOLFORMER}
CACHE_SIZE = 20_000


_CACHE = VectorMemo(CACHE_SIZE)
"""Passage vectors Tier-1 embedded, by encoder label, chunk id and text (any encoder, not only ONNX)."""


def _remembered(key: bytes) -> list[float] | None:
    row = _CACHE.get(key)
    return None if row is None else row.tolist()  # type: ignore[no-any-return]


def _embed(ctx: HookContext, encoder: str, texts: Sequence[str], kind: str) -> list[list[float]]:
    vectors = call_hook(ctx, ctx.services.pm.hook.eagle_embed_text, None, encoder=encoder, texts=list(texts),
                        kind=kind)
    if vectors is None or len(vectors) != len(texts):
        raise RuntimeError(f"encoder {encoder!r} returned no vectors")
    return [list(v) for v in vectors]


def model_of(ctx: HookContext, label: str) -> str:
    """What an encoder label really resolves to (for the audit): the loaded model, else its reference."""
    encoders = ctx.services.encoders if ctx.services.has("encoders") else None
    if encoders is None:
        return label
    try:
        spec = encoders.spec(label)
    except ValueError:
        return f"{label} (not registered)"
    if encoders.is_loaded(label):
        instance = encoders.get_encoder(label)
        return str(getattr(instance, "model_info", spec.model_ref or label))
    return spec.model_ref or label


def stored_vectors(ctx: HookContext, collection: str, encoder: str,
                   nodes: Sequence[NodeWithScore]) -> list[list[float] | None]:
    """The vectors ``collection`` holds for ``nodes`` (what the ingest embedded: the document name, then
    the text), aligned with them, when the collection's encoder is ``encoder``; None where there is none."""
    if not (ctx.services.has("vectors") and ctx.services.has("encoders")):
        return [None] * len(nodes)
    try:
        own = ctx.services.encoders.collection(collection).default_encoder
    except ValueError:
        return [None] * len(nodes)
    if own != encoder:
        return [None] * len(nodes)
    rows = {chunk.id: vector for chunk, vector in ctx.services.vectors.get_rows(collection, [n.node.id for n in nodes])}
    return [rows.get(n.node.id) for n in nodes]


def cosine_rerank(ctx: HookContext, nodes: Sequence[NodeWithScore], query: str, encoder: str,
                  max_chars: int = 2048, stage: str = "cosine_rerank", with_name: bool = False,
                  known: Sequence[list[float] | None] | None = None) -> list[NodeWithScore]:
    """``nodes`` sorted by the cosine between the query and each passage (``text[:max_chars]``), best first;
    a passage with a vector in ``known`` (aligned with ``nodes``) is not embedded again.

    Ties keep the incoming order. Raises RuntimeError when the encoder gives no vectors.
    """
    if not nodes:
        return []
    query_vec = embed_query(ctx, encoder, query)  # the dense channel's vector when it embedded the same text
    texts = [passage_text(n, max_chars, with_name) for n in nodes]
    keys = [memo_key(f"{encoder}|{n.node.id}", t) for n, t in zip(nodes, texts, strict=True)]
    given = list(known) if known is not None else [None] * len(nodes)
    vectors: list[list[float] | None] = [v if v is not None else _remembered(k) for k, v in zip(keys, given,
                                                                                                 strict=True)]
    missing = [i for i, v in enumerate(vectors) if v is None]
    if missing:
        for i, vec in zip(missing, _embed(ctx, encoder, [texts[i] for i in missing], "passage"), strict=True):
            vectors[i] = vec
            _CACHE.put(keys[i], vec)
    scored = [(sum(a * b for a, b in zip(query_vec, vec or [], strict=False)), i) for i, vec in enumerate(vectors)]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [nodes[i].scored(stage, score, rank) for rank, (score, i) in enumerate(scored, start=1)]


def entity_filter(nodes: Sequence[NodeWithScore], terms: Sequence[str]) -> tuple[list[NodeWithScore],
                                                                                   list[NodeWithScore]]:
    """Split ``nodes`` into (kept, demoted) by the Tier-1 entity rule; (all, []) when nothing is kept."""
    wanted = [t.lower() for t in terms if t]
    kept: list[NodeWithScore] = []
    other: list[NodeWithScore] = []
    for node in nodes:
        window = (node.node.text[:TEXT_WINDOW] + " " + node.node.path).lower()
        if entity_boost_score(node_meta(node), wanted) > 0 or any(t in window for t in wanted):
            kept.append(node)
        else:
            other.append(node)
    return (kept, other) if kept else (list(nodes), [])


def compounds_of_named_drugs(ctx: HookContext, analysis: QueryAnalysis, plan: CollectionQueryPlan,
                             nodes: Sequence[NodeWithScore]) -> list[NodeWithScore]:
    """The chemical plan of a text query keeps only the compounds of the drugs the query is about.

    The router adds ``eagle_chemical`` to a text query that names drugs (or genes with related drugs)
    to bring in those drugs' compound records; any other compound is noise in the merged ranking, so it
    is dropped here. Returns the kept hits in incoming order, maybe [].
    """
    terms = list(analysis.boost_terms)
    kept = [n for n in nodes if terms and (entity_boost_score(node_meta(n), terms) > 0
                                           or any(t in n.node.text[:TEXT_WINDOW].lower() for t in terms))]
    ctx.log_decision("biomed_rerank_t1", plugin=PLUGIN_NAME,
                     summary=f"{plan.collection}: kept {len(kept)} of {len(nodes)} compounds of {', '.join(terms)}",
                     collection=plan.collection, encoder=plan.encoder, model=model_of(ctx, plan.encoder),
                     kept=len(kept), demoted=len(nodes) - len(kept), terms=terms)
    return kept


def biomed_rerank(ctx: HookContext, analysis: QueryAnalysis, plan: CollectionQueryPlan,
                  nodes: Sequence[NodeWithScore]) -> list[NodeWithScore] | None:
    """Tier-1 for one plan (see the module docstring); None for a collection without a domain encoder."""
    encoder = TIER1_ENCODERS.get(plan.collection)
    if encoder is None or not nodes:
        return None
    opts = biomed_options(ctx.settings).tier1
    if (plan.collection == Collection.CHEMICAL and analysis.workflow is not Workflow.CHEMICAL
            and plan.reason != COMPOUND_FILTER):  # a filter that asks for compounds keeps every one
        return compounds_of_named_drugs(ctx, analysis, plan, nodes)
    pool, rest = list(nodes[: opts.pool]), list(nodes[opts.pool:])
    demoted: list[NodeWithScore] = []
    if analysis.intent.require_entity_match and analysis.sparse_terms:
        pool, demoted = entity_filter(pool, analysis.sparse_terms)
    known = stored_vectors(ctx, plan.collection, encoder, pool) if opts.stored_vectors else None
    ranked = cosine_rerank(ctx, pool, analysis.query, encoder, opts.max_chars, stage="rerank_t1_cosine",
                           with_name=opts.with_name, known=known)
    if opts.mode == "fuse":
        ranked = merge_rrf([pool, ranked], k=ctx.settings.router.rrf_k, stage="rerank_t1_fuse")
    ctx.log_decision("biomed_rerank_t1", plugin=PLUGIN_NAME,
                     summary=f"{plan.collection}: cosine rerank of {len(pool)} hits ({opts.mode})",
                     collection=plan.collection, encoder=encoder, model=model_of(ctx, encoder),
                     kept=len(pool), demoted=len(demoted), workflow=analysis.workflow.value,
                     stored_vectors=sum(v is not None for v in known or ()))
    return [*ranked, *demoted, *rest]

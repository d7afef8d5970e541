"""The retrieval channels of one plan: BM25 on the lexical index, ANN on the vector store and, in
collections with sentence rows, ANN over their sentences (:mod:`eagle_rag.ingest.sentences`)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from eagle_rag.context import HookContext
from eagle_rag.protocols import ScoredId, StoreFilter
from eagle_rag.retrieve.safe_hooks import call_hook
from eagle_rag.types import CollectionQueryPlan, Modality, NodeWithScore, parent_chunk_id, ranked, sentence_collection

FILTER_FANOUT = 4
"""With metadata filters, a channel reads this many times its depth from the store, then keeps the
hits that pass (the stores cannot index every chunk attribute)."""
TALLY_KEY = "retrieval_tally"


@dataclass
class RetrievalTally:
    """What the channels of one search cut or left out, read by the service to report ``total``.

    ``cut`` is true when a lexical list was cut at its depth (more term matches may exist);
    ``cut_nodes`` are the candidates a fused list or the rerank pool left out (the service asks
    whether any of them would have been an answer, :func:`eagle_rag.service.searching.floor_keeps`);
    ``dense_tail`` holds, per collection, the lowest cosine of a dense list that filled its depth
    (more hits at least that similar may exist); ``filtered`` the chunk ids the metadata filters
    removed; ``collapsed`` the chunk ids the request's ``max_per_document`` left out. Shared by the
    plan threads of one request.
    """

    cut: bool = False
    cut_nodes: list[NodeWithScore] = field(default_factory=list)
    dense_tail: dict[str, float] = field(default_factory=dict)
    filtered: set[str] = field(default_factory=set)
    collapsed: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def note_cut(self, left_out: Sequence[NodeWithScore]) -> None:
        """Keep the candidates a list left out at its depth."""
        if left_out:
            with self.lock:
                self.cut_nodes.extend(left_out)

    def note_collapsed(self, left_out: Sequence[NodeWithScore]) -> None:
        """Keep the ids of the chunks ``max_per_document`` left out (a set: a retried search counts once)."""
        with self.lock:
            self.collapsed.update(n.node.id for n in left_out)

    def note_dense(self, collection: str, hits: Sequence[ScoredId], depth: int) -> None:
        if hits and len(hits) >= depth:
            with self.lock:
                low = min(h.score for h in hits)
                self.dense_tail[collection] = max(self.dense_tail.get(collection, low), low)


def tally(ctx: HookContext) -> RetrievalTally:
    """The request's tally (created on first use)."""
    found = ctx.extra.get(TALLY_KEY)
    if not isinstance(found, RetrievalTally):
        found = ctx.extra.setdefault(TALLY_KEY, RetrievalTally())
    return found


def _fetch_depth(depth: int, flt: StoreFilter) -> int:
    return depth if flt.metadata is None or flt.metadata.empty else min(depth * FILTER_FANOUT, 16384)


def keep_matching(ctx: HookContext, hits: Sequence[ScoredId], depth: int, flt: StoreFilter) -> list[ScoredId]:
    """The first ``depth`` hits that pass ``flt.metadata``; the others are noted in the tally."""
    if flt.metadata is None or flt.metadata.empty:
        return list(hits)
    kept = [h for h in hits if flt.metadata.matches(h.chunk)]
    dropped = {h.id for h in hits if not flt.metadata.matches(h.chunk)}
    if dropped:
        record = tally(ctx)
        with record.lock:
            record.filtered |= dropped
    return kept[:depth]


def keep_admitted(ctx: HookContext, nodes: Sequence[NodeWithScore], flt: StoreFilter) -> list[NodeWithScore]:
    """The nodes inside every field of ``flt``; the others are noted in the tally.

    The channels ask the stores with ``flt``; a plugin that finds hits its own way (an entity-anchored
    supplement, an injection, a reranker) may hand back chunks outside the request's filters, so the
    orchestrator passes what the plugins add through this check as well.
    """
    kept: list[NodeWithScore] = []
    dropped: set[str] = set()
    for node in nodes:
        if flt.admits(node.node):
            kept.append(node)
        else:
            dropped.add(node.node.id)
    if dropped:
        record = tally(ctx)
        with record.lock:
            record.filtered |= dropped
    return kept


def _nodes(hits: Sequence[ScoredId], collection: str, stage: str) -> list[NodeWithScore]:
    return ranked([NodeWithScore(node=h.chunk, score=h.score, collection=collection) for h in hits], stage)


def lexical_channel(ctx: HookContext, plan: CollectionQueryPlan, query: str, extra_terms: Sequence[str],
                    depth: int, flt: StoreFilter) -> list[NodeWithScore]:
    """BM25 hits of the plan's collection, ranked from 1 (stage ``bm25``)."""
    index = ctx.services.lexical_for(plan.collection)
    fetch = _fetch_depth(depth, flt)
    raw = index.search(query, fetch, flt, extra_terms=tuple(extra_terms))
    hits = keep_matching(ctx, raw, depth, flt)
    if len(raw) >= fetch:
        tally(ctx).cut = True
    return _nodes(hits, plan.collection, "bm25")


SENTENCE_FANOUT = 4
"""Sentence rows searched per chunk wanted: a chunk holds several sentences, so the nearest rows
repeat chunks; four times the depth leaves ``depth`` distinct chunks in practice."""


def embed_query(ctx: HookContext, encoder: str, text: str, kind: str = "query") -> list[float]:
    """The vector of ``text`` for an encoder label (EMBED_TEXT hook; ``kind`` "query", or "passage"
    to embed the query as a passage: without the query instruction of an asymmetric model).

    The vector is kept for the request (``ctx.query_vectors``): a later stage asking for the same text, label
    and kind (the multilingual Tier-2 after the dense channel) does not embed it again.
    """
    key = (encoder, kind, text)
    found = ctx.query_vectors.get(key)
    if found is None:
        vectors = call_hook(ctx, ctx.services.pm.hook.eagle_embed_text, None, encoder=encoder, texts=[text],
                            kind=kind)
        if not vectors:
            raise RuntimeError(f"no plugin could embed with encoder {encoder!r}")
        found = ctx.query_vectors.setdefault(key, [float(x) for x in vectors[0]])
    return list(found)


def embed_query_image(ctx: HookContext, encoder: str, image: bytes) -> list[float]:
    """The vector of a query image for a visual encoder label (EMBED_VISUAL hook)."""
    vectors = call_hook(ctx, ctx.services.pm.hook.eagle_embed_visual, None, encoder=encoder, images=[image])
    if not vectors:
        raise RuntimeError(f"no plugin could embed an image with encoder {encoder!r}")
    return list(vectors[0])


def dense_channel(ctx: HookContext, plan: CollectionQueryPlan, dense_query: str, depth: int,
                  flt: StoreFilter, image: bytes | None = None) -> list[NodeWithScore]:
    """ANN hits of the plan's collection by cosine similarity, ranked from 1 (stage ``dense``).

    With a query ``image`` and a plan whose encoder is visual, the image is embedded, not the text.
    """
    visual = image is not None and ctx.services.encoders.spec(plan.encoder).modality is Modality.VISUAL
    if visual and image is not None:
        vector = embed_query_image(ctx, plan.encoder, image)
    else:
        vector = embed_query(ctx, plan.encoder, dense_query)
    fetch = _fetch_depth(depth, flt)
    raw = ctx.services.vectors.search(plan.collection, vector, fetch, flt)
    tally(ctx).note_dense(plan.collection, raw, fetch)
    return _nodes(keep_matching(ctx, raw, depth, flt), plan.collection, "dense")


def sentence_channel(ctx: HookContext, plan: CollectionQueryPlan, dense_query: str, depth: int,
                     flt: StoreFilter, known: Sequence[NodeWithScore] = ()) -> list[NodeWithScore]:
    """Chunks of the plan's collection ranked by their most similar sentence (stage ``sentence``).

    Empty when the collection keeps no sentence rows. The query is embedded as a passage: a
    sentence is compared with a sentence, so an asymmetric model's query instruction is left out.
    Chunks already in ``known`` (the other channels' hits) are reused; the rest are read from the
    vector store. The score is the cosine similarity of the best sentence.
    """
    vectors = ctx.services.vectors
    companion = sentence_collection(plan.collection)
    if depth <= 0 or not vectors.has_collection(companion):
        return []
    vector = embed_query(ctx, plan.encoder, dense_query, kind="passage")
    fetch = min(depth * SENTENCE_FANOUT, 16384)
    hits = vectors.search(companion, vector, fetch, flt)
    tally(ctx).note_dense(plan.collection, hits, fetch)
    best: dict[str, float] = {}
    for hit in hits:
        parent = parent_chunk_id(hit.id)
        if parent not in best and len(best) < depth:
            best[parent] = hit.score
    chunks = {n.node.id: n.node for n in known if n.node.id in best}
    missing = [i for i in best if i not in chunks]
    if missing:
        chunks.update((c.id, c) for c in vectors.get_chunks(plan.collection, missing))
    matching = {h.id for h in keep_matching(ctx, [ScoredId(i, 0.0, c) for i, c in chunks.items()], len(chunks),
                                                flt)}
    nodes = [NodeWithScore(node=chunks[i], score=score, collection=plan.collection)
             for i, score in best.items() if i in matching]
    return ranked(nodes, "sentence")

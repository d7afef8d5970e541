"""Fusion primitives: RRF merge, cross-collection dedupe, supplement injection, alpha blend.

Ranks start at 1 everywhere in this module. Reciprocal Rank Fusion (Cormack, Clarke and
Buettcher, SIGIR 2009): ``score(d) = sum_i w_i / (k + rank_i(d))`` with ``k = 60`` by default.
Raw scores of different channels are never added: only ranks are comparable.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import replace

from eagle_rag.analysis import analyze, analyze_query
from eagle_rag.types import CollectionQueryPlan, NodeWithScore, StageScore

SUPPLEMENT_BOOST = 100.0
INJECT_STAGE = "inject"  # the trail stage of an injected supplement hit (see is_injected)


def dedupe_key(node: NodeWithScore) -> Hashable:
    """Identity of a hit: node id, else source_chunk_id, else (document_id, path)."""
    chunk = node.node
    if chunk.id:
        return chunk.id
    if chunk.source_chunk_id:
        return ("source", chunk.source_chunk_id)
    return ("path", chunk.document_id, chunk.path)


def merge_rrf(lists: Sequence[Sequence[NodeWithScore]], k: int = 60,
              weights: Sequence[float] | None = None, stage: str = "rrf") -> list[NodeWithScore]:
    """Fuse ranked lists by RRF: each node gets ``sum(w_i / (k + rank_i))``.

    Empty lists contribute nothing. A single non-empty list passes through unchanged (no fusion
    arithmetic). Within one list only a node's first (best) occurrence counts. Ties keep the
    order of first appearance. Raises ValueError for ``k < 1`` or mismatched weights.
    """
    if k < 1:
        raise ValueError(f"RRF k must be >= 1, got {k}")
    if weights is not None and len(weights) != len(lists):
        raise ValueError(f"{len(weights)} weights for {len(lists)} lists")
    ws = list(weights) if weights is not None else [1.0] * len(lists)
    active = [(lst, w) for lst, w in zip(lists, ws, strict=True) if lst]
    if not active:
        return []
    if len(active) == 1:
        return list(active[0][0])
    scores: dict[Hashable, float] = {}
    best: dict[Hashable, NodeWithScore] = {}
    trails: dict[Hashable, list[StageScore]] = {}
    detail: dict[Hashable, dict[str, float]] = {}
    for index, (lst, weight) in enumerate(active):
        seen: set[Hashable] = set()
        for rank, node in enumerate(lst, start=1):
            key = dedupe_key(node)
            if key in seen:
                continue
            seen.add(key)
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
            detail.setdefault(key, {})[f"rank_{index}"] = float(rank)
            best.setdefault(key, node)
            trail = trails.setdefault(key, [])
            trail.extend(entry for entry in node.trail if entry not in trail)
    order = sorted(scores, key=lambda key: -scores[key])
    return [replace(best[key], trail=tuple(trails[key])).scored(stage, scores[key], rank, detail[key])
            for rank, key in enumerate(order, start=1)]


def merge_plans(plans: Sequence[CollectionQueryPlan], lists: Sequence[Sequence[NodeWithScore]],
                k: int = 60) -> list[NodeWithScore]:
    """The RRF merge across collection plans: ``lists[i]`` (plan ``i``'s ranked hits) weighs ``plans[i].weight``.

    A side collection searched only because it holds rows (a weight under 1) cannot put its best hits
    beside the routed collection's best: its first hit weighs as much as the routed list's hit of rank
    ``(k + 1) / w - k``.
    """
    if len(plans) != len(lists):
        raise ValueError(f"{len(lists)} lists for {len(plans)} plans")
    return merge_rrf(lists, k=k, weights=[p.weight for p in plans], stage="rrf_merge")


def dedupe_cross_collection(nodes: Sequence[NodeWithScore]) -> list[NodeWithScore]:
    """Collapse copies of one chunk found in several collections, keeping the better-ranked one.

    The key is source_chunk_id when set, else (document_id, path). Order is preserved.
    """
    seen: set[Hashable] = set()
    out: list[NodeWithScore] = []
    for node in nodes:
        chunk = node.node
        key: Hashable = chunk.source_chunk_id or (chunk.document_id, chunk.path)
        if key in seen:
            continue
        seen.add(key)
        out.append(node)
    return out


def inject_supplement_candidates(merged: Sequence[NodeWithScore], supplement: Sequence[NodeWithScore],
                                 min_new: int = 2) -> list[NodeWithScore]:
    """Put up to ``min_new`` supplement hits not already in ``merged`` at the top.

    Each injected node's score is its own score + 100.0 so that it survives the rerank cut.
    Returns a new list; ``merged`` keeps its order below the injected nodes.
    """
    present = {dedupe_key(n) for n in merged}
    injected: list[NodeWithScore] = []
    for node in supplement:
        if len(injected) >= min_new:
            break
        key = dedupe_key(node)
        if key in present:
            continue
        present.add(key)
        injected.append(node.scored(INJECT_STAGE, node.score + SUPPLEMENT_BOOST, len(injected) + 1))
    return [*injected, *merged]


def is_injected(node: NodeWithScore) -> bool:
    """True for a hit that :func:`inject_supplement_candidates` put into a fused list."""
    return any(entry.stage == INJECT_STAGE for entry in node.trail)


def sparse_overlap_score(query: str, text: str, extra_terms: Sequence[str] = ()) -> float:
    """Share of query terms (plus extra terms) found in ``text``: ``hits / len(terms)``, in [0, 1]."""
    terms = analyze_query(" ".join([query, *extra_terms]))
    if not terms:
        return 0.0
    present = set(analyze(text))
    return sum(1 for t in terms if t in present) / len(terms)


def hybrid_fuse_dense_sparse(dense: Sequence[NodeWithScore], sparse: Sequence[NodeWithScore], query: str,
                             alpha: float, extra_terms: Sequence[str] = ()) -> list[NodeWithScore]:
    """The alpha blend of router.hybrid_mode ``alpha``: ``combined = alpha * dense_score + (1 - alpha) * sparse_score``.

    ``dense_score`` is the cosine similarity clipped to [0, 1] (0 for a node the dense channel did
    not return); ``sparse_score`` is :func:`sparse_overlap_score` of the node's text. Both inputs
    are lists of candidates; the union is scored and sorted. Raises ValueError for alpha outside
    [0, 1].
    """
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"hybrid alpha must be in [0, 1], got {alpha}")
    dense_scores = {dedupe_key(n): min(1.0, max(0.0, n.score)) for n in dense}
    union: dict[Hashable, NodeWithScore] = {}
    for node in [*dense, *sparse]:
        union.setdefault(dedupe_key(node), node)
    scored = []
    for key, node in union.items():
        d = dense_scores.get(key, 0.0)
        s = sparse_overlap_score(query, node.node.text, extra_terms)
        scored.append((alpha * d + (1 - alpha) * s, d, s, node))
    scored.sort(key=lambda item: -item[0])
    return [node.scored("hybrid_alpha", combined, rank, {"dense": d, "sparse": s})
            for rank, (combined, d, s, node) in enumerate(scored, start=1)]

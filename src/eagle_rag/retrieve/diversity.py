"""Diversity: at most N chunks of one document (``max_per_document``, applied by the retrieval
orchestrator in place of its parent-document grouping, so the rerank pool holds at most N chunks of a
document) and maximal marginal relevance (``diversity``, the MMR lambda) over the candidates' stored
dense vectors.

MMR (Carbonell and Goldstein, SIGIR 1998), greedy, ranks from 1. With the candidates' scores ``s``::

    rel(d)      = (s(d) - min s) / (max s - min s)        (1 for every candidate when all scores are equal)
    sim(d, e)   = cosine of the stored vectors of d and e  (0 when either has none, or they lie in
                                                            different collections: different encoders)
    mmr(d | S)  = lambda * rel(d) - (1 - lambda) * max_{e in S} sim(d, e)   (the max is 0 while S is empty)

Each step moves the candidate with the highest ``mmr`` into ``S`` (ties: the earlier in the incoming
order); the hit's new score is that value. ``lambda = 1`` keeps the incoming order; ``lambda = 0`` takes
the best hit, then always the one least like those already taken.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np

from eagle_rag.protocols import VectorStore
from eagle_rag.types import NodeWithScore, StageScore

MMR_STAGE = "mmr"
COLLAPSE_STAGE = "max_per_document"
NO_VECTOR = "no_vector"


def collapse_per_document(nodes: Sequence[NodeWithScore],
                          max_per_document: int) -> tuple[list[NodeWithScore], list[NodeWithScore]]:
    """The first ``max_per_document`` hits of each document (``Chunk.document_id``), in order, and the hits
    left out. Each kept hit gets a ``max_per_document`` trail entry (its new rank; detail
    ``document_rank``: its place among its document's hits, from 1). Raises ValueError when
    ``max_per_document < 1``."""
    if max_per_document < 1:
        raise ValueError(f"max_per_document must be at least 1, got {max_per_document}")
    seen: dict[str, int] = {}
    kept: list[NodeWithScore] = []
    left_out: list[NodeWithScore] = []
    for node in nodes:
        place = seen.get(node.node.document_id, 0) + 1
        seen[node.node.document_id] = place
        if place <= max_per_document:
            kept.append(node.scored(COLLAPSE_STAGE, node.score, len(kept) + 1, {"document_rank": float(place)}))
        else:
            left_out.append(node)
    return kept, left_out


def stored_vectors(store: VectorStore, nodes: Sequence[NodeWithScore]) -> dict[tuple[str, str], list[float]]:
    """The stored dense vector of each hit, keyed by (collection, chunk id), read from its collection
    (hits of a collection that does not exist, or whose row is gone, have none)."""
    by_collection: dict[str, list[str]] = {}
    for node in nodes:
        if node.collection:
            by_collection.setdefault(node.collection, []).append(node.node.id)
    out: dict[tuple[str, str], list[float]] = {}
    for collection, ids in by_collection.items():
        if store.has_collection(collection):
            out.update(((collection, chunk.id), vector) for chunk, vector in store.get_rows(collection, ids))
    return out


def _similarities(nodes: Sequence[NodeWithScore], vectors: Mapping[tuple[str, str], Sequence[float]]) -> np.ndarray:
    """The matrix of :func:`mmr`'s ``sim``: cosine within one collection, 0 across or without a vector."""
    n = len(nodes)
    sim = np.zeros((n, n))
    by_collection: dict[str, list[int]] = {}
    for i, node in enumerate(nodes):
        if (node.collection, node.node.id) in vectors:
            by_collection.setdefault(node.collection, []).append(i)
    for collection, rows in by_collection.items():
        matrix = np.array([vectors[(collection, nodes[i].node.id)] for i in rows], dtype=float)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        unit = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
        sim[np.ix_(rows, rows)] = unit @ unit.T
    return sim


def mmr(nodes: Sequence[NodeWithScore], vectors: Mapping[tuple[str, str], Sequence[float]],
        lam: float) -> list[NodeWithScore]:
    """``nodes`` reordered by maximal marginal relevance (module docstring), each with an ``mmr`` trail
    entry (detail ``relevance``, ``max_similarity``, ``lambda``; ``skipped`` ``no_vector`` for a hit without
    a stored vector). Raises ValueError for ``lam`` outside [0, 1]."""
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"the MMR lambda must be in [0, 1], got {lam!r}")
    if not nodes:
        return []
    scores = np.array([n.score for n in nodes], dtype=float)
    spread = scores.max() - scores.min()
    relevance = (scores - scores.min()) / spread if spread > 0 else np.ones(len(nodes))
    sim = _similarities(nodes, vectors)
    closest = np.zeros(len(nodes))
    left = list(range(len(nodes)))
    out: list[NodeWithScore] = []
    while left:
        values = lam * relevance[left] - (1 - lam) * closest[left]
        pick = left.pop(int(np.argmax(values)))  # argmax takes the first of equal values: incoming order
        node = nodes[pick]
        score = float(lam * relevance[pick] - (1 - lam) * closest[pick])
        detail = {"relevance": float(relevance[pick]), "max_similarity": float(closest[pick]), "lambda": lam}
        skipped = "" if (node.collection, node.node.id) in vectors else NO_VECTOR
        entry = StageScore(stage=MMR_STAGE, rank=len(out) + 1, score=score, detail=detail, skipped=skipped)
        out.append(dataclasses.replace(node, score=score, trail=(*node.trail, entry)))
        closest = np.maximum(closest, sim[:, pick])
    return out

"""max_per_document and MMR over stored vectors, pinned with the arithmetic written out."""

from __future__ import annotations

import pytest

from eagle_rag.retrieve.diversity import collapse_per_document, mmr
from eagle_rag.types import Chunk, NodeWithScore

pytestmark = pytest.mark.unit


def hit(node_id: str, score: float, doc: str = "", collection: str = "c") -> NodeWithScore:
    return NodeWithScore(node=Chunk(id=node_id, text=node_id, document_id=doc or f"d-{node_id}"), score=score,
                         collection=collection)


def test_collapse_keeps_the_first_n_chunks_of_each_document() -> None:
    nodes = [hit("a1", 5, "A"), hit("a2", 4, "A"), hit("b1", 3, "B"), hit("a3", 2, "A"), hit("b2", 1, "B")]
    kept, dropped = collapse_per_document(nodes, 1)
    assert [n.node.id for n in kept] == ["a1", "b1"] and [n.node.id for n in dropped] == ["a2", "a3", "b2"]
    kept, dropped = collapse_per_document(nodes, 2)
    assert [n.node.id for n in kept] == ["a1", "a2", "b1", "b2"] and dropped == [nodes[3]]
    entry = kept[3].trail[-1]
    assert (entry.stage, entry.rank, entry.score, entry.detail) == ("max_per_document", 4, 1.0, {"document_rank": 2.0})
    with pytest.raises(ValueError):
        collapse_per_document(nodes, 0)


# a and b are near-duplicates, c points elsewhere (unit vectors, so the dot product is the cosine)
VECTORS = {("c", "a"): [1.0, 0.0], ("c", "b"): [0.8, 0.6], ("c", "c"): [0.0, 1.0]}
NODES = [hit("a", 0.9), hit("b", 0.8), hit("c", 0.5)]


def test_mmr_pinned() -> None:
    # rel = (s - 0.5) / (0.9 - 0.5): a 1.0, b 0.75, c 0.0;  cos(a, b) = 0.8, cos(a, c) = 0.0, cos(b, c) = 0.6
    out = mmr(NODES, VECTORS, 0.5)
    # step 1: a = 0.5 * 1.0 = 0.5 (b 0.375, c 0)
    # step 2: b = 0.5 * 0.75 - 0.5 * 0.8 = -0.025;  c = 0.5 * 0.0 - 0.5 * 0.0 = 0.0  -> c
    # step 3: b = 0.5 * 0.75 - 0.5 * max(0.8, 0.6) = -0.025
    assert [n.node.id for n in out] == ["a", "c", "b"]
    assert [n.score for n in out] == pytest.approx([0.5, 0.0, -0.025])
    entry = out[2].trail[-1]
    assert entry.stage == "mmr" and entry.rank == 3
    assert entry.detail == pytest.approx({"relevance": 0.75, "max_similarity": 0.8, "lambda": 0.5})


def test_mmr_lambda_one_keeps_the_order_and_zero_takes_the_least_alike() -> None:
    assert [n.node.id for n in mmr(NODES, VECTORS, 1.0)] == ["a", "b", "c"]
    # lambda 0: the first is a (ties at 0 go to the incoming order), then c (cos 0 with a), then b
    assert [n.node.id for n in mmr(NODES, VECTORS, 0.0)] == ["a", "c", "b"]
    with pytest.raises(ValueError):
        mmr(NODES, VECTORS, 1.5)


def test_mmr_without_a_vector_or_across_collections_counts_no_similarity() -> None:
    other = [hit("a", 0.9), hit("b", 0.8, collection="other"), hit("x", 0.5)]
    out = mmr(other, {("c", "a"): [1.0, 0.0], ("other", "b"): [1.0, 0.0]}, 0.5)
    # b lies in another collection (another encoder): sim 0, so b = 0.5 * 0.75 = 0.375 comes second
    assert [n.node.id for n in out] == ["a", "b", "x"]
    assert out[2].trail[-1].skipped == "no_vector"
    equal = mmr([hit("p", 1.0), hit("q", 1.0)], {}, 0.7)
    assert [n.score for n in equal] == pytest.approx([0.7, 0.7])  # equal scores: relevance 1 for both
    assert mmr([], {}, 0.5) == []

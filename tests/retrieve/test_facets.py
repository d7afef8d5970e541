"""Facet counts: every value a hit carries counted once, most frequent first."""

from __future__ import annotations

import pytest

from eagle_rag.retrieve.facets import facet_counts
from eagle_rag.types import Chunk, Facet, NodeWithScore

pytestmark = pytest.mark.unit


def hit(kb: str, source: str, **metadata: object) -> NodeWithScore:
    return NodeWithScore(node=Chunk(id=f"{kb}-{len(metadata)}", text="t", document_id="d", kb_name=kb,
                                    source_type=source, metadata=metadata), score=1.0)


def test_facet_counts() -> None:
    nodes = [hit("a", "jsonl", doc_type="trial", biomed_doc_type="research", published="2019-06", section="results"),
             hit("a", "jsonl", doc_type="trial", published="2023"),
             hit("b", "markdown", section="Results", year="2019"),
             hit("b", "markdown", doc_type="note", biomed_doc_type="note")]
    counts = facet_counts(nodes, list(Facet))
    assert counts == {"source_type": {"jsonl": 2, "markdown": 2}, "kb": {"a": 2, "b": 2},
                      "doc_type": {"trial": 2, "note": 1, "research": 1},  # "note" twice on one hit: once
                      "section": {"Results": 1, "results": 1}, "year": {"2019": 2, "2023": 1}}
    assert list(counts["doc_type"]) == ["trial", "note", "research"]
    assert facet_counts(nodes, [Facet.YEAR]) == {"year": {"2019": 2, "2023": 1}}
    assert facet_counts([], [Facet.KB]) == {"kb": {}}

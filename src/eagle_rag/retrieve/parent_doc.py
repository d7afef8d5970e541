"""Two-stage parent-document retrieval: chunks first, then grouped by their parent document.

A parent is ranked by its best chunk, and it keeps at most ``max_chunks`` chunks in the list, so
a long document is found through any of its chunks but cannot fill the top k by itself. The
other matching chunks of a parent are counted in the trail detail (``parent_matches``).
"""

from __future__ import annotations

from collections.abc import Sequence

from eagle_rag.types import NodeWithScore


def group_by_parent(nodes: Sequence[NodeWithScore], max_chunks: int = 1) -> list[NodeWithScore]:
    """Keep each document's best ``max_chunks`` chunks, in the order of the input ranking.

    ``nodes`` must already be ranked best first. Raises ValueError for ``max_chunks < 1``.
    """
    if max_chunks < 1:
        raise ValueError(f"max_chunks must be >= 1, got {max_chunks}")
    kept: dict[str, int] = {}
    matches: dict[str, int] = {}
    for node in nodes:
        matches[node.node.document_id] = matches.get(node.node.document_id, 0) + 1
    out: list[NodeWithScore] = []
    for node in nodes:
        doc = node.node.document_id
        if kept.get(doc, 0) >= max_chunks:
            continue
        kept[doc] = kept.get(doc, 0) + 1
        out.append(node.scored("parent_doc", node.score, len(out) + 1,
                               {"parent_matches": float(matches[doc])}))
    return out

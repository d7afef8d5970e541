"""The result options of a request, applied in this order to the ranked matching set of a search:
facet counts (over the whole set), ``recency``, then ``diversity`` (MMR). ``max_per_document`` is
applied earlier, by the retrieval orchestrator, in place of the parent-document grouping (so the
rerankers see at most N chunks of a document); facets count what it kept.

All are off by default: a request without them gets the ranking unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from eagle_rag.protocols import VectorStore
from eagle_rag.retrieve.diversity import mmr, stored_vectors
from eagle_rag.retrieve.facets import facet_counts
from eagle_rag.retrieve.recency import apply_recency
from eagle_rag.types import Facet, NodeWithScore, SearchRequest


@dataclass(frozen=True)
class ShapedResult:
    """The ranking after the result options, with what they counted: ``facets`` (per facet asked) and
    ``undated`` (hits ``recency`` left undecayed)."""

    nodes: list[NodeWithScore]
    facets: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    undated: int = 0


def apply_result_options(request: SearchRequest, nodes: Sequence[NodeWithScore], store: VectorStore, *,
                         rrf_k: int, today: date) -> ShapedResult:
    """Apply the options ``request`` sets (a validated request: ``facets`` are :class:`Facet` names).

    ``store`` gives the stored vectors MMR compares (read only when ``diversity`` is set); ``rrf_k`` is
    the ``k`` of the recency formula; ``today`` the date ages count to.
    """
    facets = facet_counts(nodes, [Facet(name) for name in request.facets]) if request.facets else {}
    ranked, undated = list(nodes), 0
    if request.recency is not None:
        ranked, undated = apply_recency(ranked, request.recency, today, rrf_k)
    if request.diversity is not None:
        ranked = mmr(ranked, stored_vectors(store, ranked), request.diversity)
    return ShapedResult(ranked, facets, undated)

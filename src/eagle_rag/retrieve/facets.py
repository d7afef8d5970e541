"""Facets: how many hits of the matching set carry each value of an attribute (request ``facets``).

The counts run over every hit of the candidate pool that the search ranks (after visibility, the
semantic floor, the filters and ``max_per_document``: the hits ``total`` counts), not only the page
returned. A hit counts once under each distinct value it carries (a chunk with ``doc_type`` and a
different ``biomed_doc_type`` counts under both); a hit without the attribute is not counted. Values are the
stored ones, so each can be sent back as the matching filter: ``source_type`` -> ``source_types``,
``doc_type`` -> ``doc_types``, ``section`` -> ``sections``, ``year`` -> ``published_from`` and
``published_to``, ``kb`` -> ``kb_names``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from eagle_rag.retrieve.recency import publication_date
from eagle_rag.types import DOC_TYPE_KEYS, SECTION_KEYS, Chunk, Facet, NodeWithScore, attribute_values


def _year(chunk: Chunk) -> tuple[str, ...]:
    published = publication_date(chunk.metadata)
    return (f"{published.year:04d}",) if published else ()


_VALUES: dict[Facet, Callable[[Chunk], tuple[str, ...]]] = {
    Facet.SOURCE_TYPE: lambda chunk: (chunk.source_type,) if chunk.source_type else (),
    Facet.DOC_TYPE: lambda chunk: attribute_values(chunk.metadata, DOC_TYPE_KEYS),
    Facet.SECTION: lambda chunk: attribute_values(chunk.metadata, SECTION_KEYS),
    Facet.YEAR: _year,
    Facet.KB: lambda chunk: (chunk.kb_name,) if chunk.kb_name else (),
}


def facet_counts(nodes: Sequence[NodeWithScore], facets: Sequence[Facet]) -> dict[str, dict[str, int]]:
    """For each facet of ``facets``, the number of ``nodes`` carrying each value, most frequent first
    (ties by value), e.g. ``{"year": {"2023": 4, "2019": 2}}``."""
    out: dict[str, dict[str, int]] = {}
    for facet in facets:
        counts = Counter(value for node in nodes for value in set(_VALUES[facet](node.node)))
        out[facet.value] = dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
    return out

"""Filters over card facets, and how many cards each filter alone excludes.

Within one filter any value may match; across filters all must. Values are compared normalised
(see :mod:`eagle_rag_datasets.catalog.facets`): ``zh`` / ``Chinese`` / ``cmn-Hans``; ``cc-by`` matches
every CC BY version; tasks ignore case and underscores; sources match the whole name or its last
``/`` segment; tags ignore case. See docs/datasets.md, section 5.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from eagle_rag_datasets.catalog.cards import DatasetCard
from eagle_rag_datasets.catalog.facets import (
    license_matches,
    normalize_facet,
    normalize_language,
    normalize_task,
)


def _invert(pairs: list[tuple[str, int]]) -> dict[str, frozenset[int]]:
    out: dict[str, set[int]] = defaultdict(set)
    for key, ordinal in pairs:
        out[key].add(ordinal)
    return {k: frozenset(v) for k, v in out.items()}


@dataclass(frozen=True)
class FacetIndex:
    """Normalised facet value -> card ordinals."""

    size: int
    languages: dict[str, frozenset[int]]
    licenses: dict[str, frozenset[int]]
    tasks: dict[str, frozenset[int]]
    sources: dict[str, frozenset[int]]
    tags: dict[str, frozenset[int]]

    @classmethod
    def build(cls, cards: Sequence[DatasetCard]) -> FacetIndex:
        sources: list[tuple[str, int]] = []
        for i, card in enumerate(cards):
            if card.source:
                sources.append((normalize_facet(card.source), i))
                sources.append((normalize_facet(card.source.rsplit("/", 1)[-1]), i))
        return cls(
            size=len(cards),
            languages=_invert([(code, i) for i, c in enumerate(cards) for code in c.language_codes]),
            licenses=_invert([(c.license_id, i) for i, c in enumerate(cards)]),
            tasks=_invert([(t, i) for i, c in enumerate(cards) for t in c.task_labels]),
            sources=_invert(sources),
            tags=_invert([(normalize_facet(t), i) for i, c in enumerate(cards) for t in c.tags]),
        )

    def select(self, name: str, values: Sequence[str]) -> frozenset[int]:
        """Cards that pass filter ``name`` ("languages", "licenses", ...) with ``values``."""
        out: set[int] = set()
        for value in values:
            if name == "languages":
                out |= self.languages.get(normalize_language(value), frozenset())
            elif name == "licenses":
                for lic, cards in self.licenses.items():
                    if license_matches(lic, value):
                        out |= cards
            elif name == "tasks":
                out |= self.tasks.get(normalize_task(value), frozenset())
            elif name == "sources":
                out |= self.sources.get(normalize_facet(value), frozenset())
            elif name == "tags":
                out |= self.tags.get(normalize_facet(value), frozenset())
            else:
                raise KeyError(name)
        return frozenset(out)

    def allowed(self, active: dict[str, tuple[str, ...]]) -> tuple[frozenset[int] | None, dict[str, frozenset[int]]]:
        """Cards passing every active filter (None when no filter is active), and each filter's set."""
        sets = {name: self.select(name, values) for name, values in active.items()}
        if not sets:
            return None, sets
        return frozenset.intersection(*sets.values()), sets

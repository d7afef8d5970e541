"""The ``substring`` engine: the plain case-insensitive substring filter, kept for comparison.

A card matches when the whole query, case-folded and trimmed, is a substring of its name, an
alias or its id (ranked first, whole-string equality before that), or of its description, tags
or tasks. No analysis, no name-variant folding, no synonyms, no typo tolerance, no partial matches.
"""

from __future__ import annotations

from collections.abc import Sequence

from eagle_rag_datasets.catalog.cards import DatasetCard
from eagle_rag_datasets.search.ranking import RankedHit, Tier


class SubstringEngine:
    """Case-insensitive substring matching."""

    def __init__(self, cards: Sequence[DatasetCard]) -> None:
        self.ids = [c.id for c in cards]
        self.keys = [(c.name.casefold(), c.id.casefold()) for c in cards]
        self.aliases = [tuple(a.casefold() for a in c.aliases) for c in cards]
        self.names = ["\n".join(k) + "\n" + "\n".join(a) for k, a in zip(self.keys, self.aliases, strict=True)]
        self.text = [" ".join([c.description, c.description_zh, *c.tags, *c.tasks]).casefold() for c in cards]

    def search(self, text: str) -> list[RankedHit]:
        """Every card containing the query, tiered exact > alias > name > text."""
        query = text.strip().casefold()
        hits = []
        for i, card_id in enumerate(self.ids):
            if query in self.keys[i]:
                tier = Tier.EXACT
            elif query in self.aliases[i]:
                tier = Tier.ALIAS
            elif query in self.names[i]:
                tier = Tier.NAME
            elif query in self.text[i]:
                tier = Tier.TEXT
            else:
                continue
            in_name = tier is not Tier.TEXT
            hits.append(RankedHit(i, card_id, tier, 1.0, 1.0 if in_name else 0.0))
        return hits

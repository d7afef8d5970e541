"""Ranking tiers, the verification prior, and the order of hits.

Tiers, best first (a hit never moves across tiers; docs/datasets.md, sections 5 and 6):

======  =========  ==========================================================================
tier    match      when
======  =========  ==========================================================================
8       exact      the query (generic words aside) equals the card's name or id, variants unified
7       alias      the query equals one of the card's aliases
6       lexical    every query term found in the name, aliases or id (``fields = "name"``)
5       synonym    every term found in the name, aliases or id once a phrase of the query is
                   replaced by a synonym from the synonym file ("drug-drug interactions" -> "DDI")
4       lexical    every query term found, some only in description, tags or tasks (``"text"``)
3       synonym    as tier 5, some terms only in description, tags or tasks
2       typo       every term found once a misspelt word is corrected, or the query is a misspelt name
1       partial    at least half of the query terms found (never in strict mode)
0       semantic   no lexical match, but the card's e5 vector is close to the query's
                   (:mod:`.semantic`; a partial match the semantic channel also finds is
                   labelled semantic too)
======  =========  ==========================================================================

The semantic channel is fused after the exact and alias tiers (:mod:`.fusion`): those come first
whatever the similarity, so a named dataset stays on top.

Hits in name fields rank above hits in description and tags, and synonym hits rank after the
exact hits and after the lexical hits of the same fields.

Within a tier: coverage, then title coverage, then datasets before models, tools and link pages
(:mod:`eagle_rag_datasets.catalog.kinds`), then phrase proximity (:mod:`.proximity`), then the
engine's BM25 score times the prior ``1 + PRIOR_WEIGHT * prior``, then the card id (so the input
order of cards never matters).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from enum import IntEnum, StrEnum
from typing import Any

from eagle_rag_datasets.catalog.cards import LicenseVerdict

PRIOR_WEIGHT = 0.1
FULL = 1.0 - 1e-9
PARTIAL_MIN = 0.5 - 1e-9


class MatchKind(StrEnum):
    """Why a hit matched."""

    EXACT = "exact"
    ALIAS = "alias"
    LEXICAL = "lexical"
    SYNONYM = "synonym"
    TYPO = "typo"
    PARTIAL = "partial"
    SEMANTIC = "semantic"


class Tier(IntEnum):
    SEMANTIC = 0
    PARTIAL = 1
    TYPO = 2
    SYNONYM = 3
    TEXT = 4
    SYNONYM_NAME = 5
    NAME = 6
    ALIAS = 7
    EXACT = 8

    @property
    def match(self) -> MatchKind:
        return _TIER_MATCH[self]


_TIER_MATCH = {
    Tier.EXACT: MatchKind.EXACT, Tier.ALIAS: MatchKind.ALIAS, Tier.NAME: MatchKind.LEXICAL,
    Tier.TEXT: MatchKind.LEXICAL, Tier.SYNONYM_NAME: MatchKind.SYNONYM, Tier.SYNONYM: MatchKind.SYNONYM,
    Tier.TYPO: MatchKind.TYPO,
    Tier.PARTIAL: MatchKind.PARTIAL, Tier.SEMANTIC: MatchKind.SEMANTIC,
}


def prior(verdict: LicenseVerdict | None, as_of: date) -> float:
    """The verification prior in [0, 1]: half recency, half evidence.

    Recency is 1 for a verdict verified within 365 days of ``as_of``, falling linearly to 0 at
    three years (1095 days); evidence is ``min(len(evidence), 3) / 3``. No verdict: 0.
    Example: verified 500 days ago with 2 evidence items: 0.5 * (1 - 135/730) + 0.5 * 2/3 = 0.74.
    """
    if verdict is None:
        return 0.0
    recency = 0.0
    if verdict.verified is not None:
        days = (as_of - verdict.verified).days
        recency = 1.0 if days <= 365 else max(0.0, 1.0 - (days - 365) / 730)
    evidence = min(len(verdict.evidence), 3) / 3
    return 0.5 * recency + 0.5 * evidence


@dataclass
class RankedHit:
    """One matching card before it becomes a response hit."""

    ordinal: int
    card_id: str
    tier: Tier
    coverage: float
    title_coverage: float
    score: float = 0.0
    prior: float = 0.0
    proximity: float = 0.0
    non_dataset: bool = False
    similarity: float | None = None
    fused: float = 0.0
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def match(self) -> MatchKind:
        """The tier's match kind; a partial match that the semantic channel also found is semantic."""
        if self.tier is Tier.PARTIAL and self.similarity is not None:
            return MatchKind.SEMANTIC
        return self.tier.match

    @property
    def fields(self) -> str:
        """``name`` when every matched term was found in name, aliases or id, else ``text``."""
        if self.tier in (Tier.EXACT, Tier.ALIAS, Tier.NAME, Tier.SYNONYM_NAME):
            return "name"
        return "name" if self.title_coverage >= self.coverage - 1e-9 and self.coverage > 0 else "text"

    def group_key(self) -> tuple[Any, ...]:
        """The part of :meth:`sort_key` known before scoring: tier, coverage, title coverage, kind."""
        return (-int(self.tier), -round(self.coverage, 6), -round(self.title_coverage, 6), int(self.non_dataset))

    def sort_key(self, use_prior: bool) -> tuple[Any, ...]:
        """Ascending sort key: tier, coverage, title coverage, kind, proximity, prior-weighted score, id."""
        boost = PRIOR_WEIGHT * self.prior if use_prior else 0.0
        score = self.score * (1.0 + boost) + boost
        return (*self.group_key(), -round(self.proximity, 6), -round(score, 9), self.card_id)


def order(hits: list[RankedHit], use_prior: bool = True) -> list[RankedHit]:
    """Hits sorted best first (see the module docstring)."""
    return sorted(hits, key=lambda h: h.sort_key(use_prior))


def leading_groups(hits: list[RankedHit], top_k: int) -> tuple[list[RankedHit], list[RankedHit]]:
    """Split hits into those whose group (tier, coverage, title coverage, kind) reaches the top
    ``top_k`` and the rest, which cannot enter the top ``top_k`` whatever their scores."""
    if len(hits) <= top_k:
        return hits, []
    keys = [h.group_key() for h in hits]
    cutoff = sorted(keys)[top_k - 1]
    head = [h for h, key in zip(hits, keys, strict=True) if key <= cutoff]
    tail = [h for h, key in zip(hits, keys, strict=True) if key > cutoff]
    return head, tail

"""Fusing the lexical ranking with the semantic channel (docs/datasets.md, "Semantic channel").

Tiered, then fused by rank, best first:

1. the exact and alias tiers, and the cards whose own name, alias or id the query mentions among
   other words ("licence of MedQA", "BC5CDR chemical disease relation"), in their lexical order: a
   named dataset comes first whatever the similarities;
2. the other full lexical matches (tiers name, synonym, words, typo: every query term found), in
   their lexical order;
3. the partial lexical matches and the semantic matches (cards at or above the semantic floor),
   ordered by weighted reciprocal rank fusion (Cormack, Clarke and Buettcher 2009):
   ``score = LEXICAL_WEIGHT / (RRF_K + r_lex) + SEMANTIC_WEIGHT / (RRF_K + r_sem)``, where ``r_lex``
   is the 1-based rank among the partial matches in lexical order (no term for a semantic-only
   card) and ``r_sem`` the 1-based rank among every card the filters and constraints allow, by
   similarity (so a partial match below the floor still has one; equal similarities share a rank,
   so the order of the card file never matters); ties: lexical before semantic-only, then card id.

A card of group 3 whose similarity reaches the floor is labelled ``semantic``; a partial match below
it stays ``partial``. ``LEXICAL_WEIGHT`` 2 keeps the regression set's figures
(eval/datasets/baseline.json); the tuning split scores the same with weights 1 to 2. A Chinese query
(:func:`.semantic.is_chinese`) weighs its lexical channel ``LEXICAL_WEIGHT_CJK`` 0.5 instead: its
character bigrams often match only the generic part of a request, and most of its right cards are
described in English, which only the semantic channel reaches (MRR on the 40 Chinese requests of
``eval/datasets/agent_requests.jsonl`` rose with weights 2 -> 0.5; the core lowers its lexical weight
for Chinese queries the same way, ``router.lexical_weight_cjk``).
"""

from __future__ import annotations

from bisect import bisect_right

from eagle_rag_datasets.search.ranking import RankedHit, Tier
from eagle_rag_datasets.search.semantic import is_chinese

RRF_K = 60
LEXICAL_WEIGHT = 2.0
SEMANTIC_WEIGHT = 1.0
LEXICAL_WEIGHT_CJK = 0.5
FIRST_TIERS = frozenset({Tier.EXACT, Tier.ALIAS})


def rrf(ranks: list[int | None], weights: tuple[float, ...] = (LEXICAL_WEIGHT, SEMANTIC_WEIGHT),
        k: int = RRF_K) -> float:
    """Weighted reciprocal rank fusion of 1-based ranks (None: not in that list)."""
    return sum(w / (k + r) for w, r in zip(weights, ranks, strict=True) if r is not None)


def fuse(lexical: list[RankedHit], semantic: list[tuple[int, float]], card_ids: list[str],
         ranks: dict[int, int] | None = None, named: frozenset[int] = frozenset(),
         weights: tuple[float, float] = (LEXICAL_WEIGHT, SEMANTIC_WEIGHT),
         naming: dict[int, int] | None = None) -> list[RankedHit]:
    """``lexical`` (ordered best first) and ``semantic`` (``(ordinal, similarity)`` above the floor, best
    first) as one list (see the module docstring). ``ranks``: the semantic rank of lexical hits below
    the floor and of the semantic matches (their rank among every card, :meth:`SemanticScores.ranks`, which
    follows the fused order of both spaces when there is an English space); without it a lexical hit below
    the floor has none and a semantic match ranks by its similarity among the matches.
    ``named``: the cards whose name, alias or id the query mentions among other words; they join group 1, the
    cards more of the query's names name first (``naming``: card -> how many; "R2MED IIYi-Clinical": the one card
    both name before the seven other R2MED cards).
    Sets ``similarity`` (above the floor only) and ``fused`` on the hits."""
    similarity = dict(semantic)
    for hit in lexical:
        hit.similarity = similarity.get(hit.ordinal)
    taken = {h.ordinal for h in lexical}
    only = [RankedHit(i, card_ids[i], Tier.SEMANTIC, 0.0, 0.0, similarity=s) for i, s in semantic if i not in taken]
    first = [h for h in lexical + only if h.tier in FIRST_TIERS or h.ordinal in named]
    if naming:
        first.sort(key=lambda h: -naming.get(h.ordinal, 0))  # stable: the lexical order within
    leading = {h.ordinal for h in first}
    lexical = [h for h in lexical if h.ordinal not in leading]
    only = [h for h in only if h.ordinal not in leading]
    full = [h for h in lexical if h.tier > Tier.PARTIAL]
    partial = [h for h in lexical if h.tier is Tier.PARTIAL]
    above = sorted(s for _, s in semantic)
    sem_rank = {i: len(above) - bisect_right(above, s) + 1 for i, s in semantic}  # equal similarity, equal rank
    sem_rank.update(ranks or {})
    lex_rank = {h.ordinal: rank for rank, h in enumerate(partial, start=1)}
    for hit in partial + only:
        hit.fused = rrf([lex_rank.get(hit.ordinal), sem_rank.get(hit.ordinal)], weights)
    rest = sorted(partial + only, key=lambda h: (-round(h.fused, 12), h.tier is Tier.SEMANTIC, h.card_id))
    return first + full + rest


def fusion_weights(text: str) -> tuple[float, float]:
    """``(lexical, semantic)`` RRF weights for a query: :data:`LEXICAL_WEIGHT_CJK` for a Chinese one."""
    return (LEXICAL_WEIGHT_CJK if is_chinese(text) else LEXICAL_WEIGHT, SEMANTIC_WEIGHT)

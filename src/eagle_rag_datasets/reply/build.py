"""Turning ranked matches into the response: hits, counts, exhaustiveness and the honest message
(docs/datasets.md, section 8)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from eagle_rag_datasets.catalog.cards import DatasetCard
from eagle_rag_datasets.catalog.kinds import card_kind
from eagle_rag_datasets.reply.advice import MORE_CARDS
from eagle_rag_datasets.reply.response import DatasetHit, DatasetSearchResponse, FilterExclusion, Suggestion
from eagle_rag_datasets.search.constraints import Constraint, ConstraintKind
from eagle_rag_datasets.search.query import FILTER_LABELS, DatasetQuery
from eagle_rag_datasets.search.ranking import RankedHit, Tier
from eagle_rag_datasets.search.semantic import SemanticScores
from eagle_rag_datasets.search.units import parse_query

if TYPE_CHECKING:
    from eagle_rag_datasets.catalog.catalog import DatasetCatalog

DESCRIPTION_CHARS = 300
SUGGESTIONS = 3


@dataclass(frozen=True)
class Judgement:
    """What the reply needs beyond the hits: the query's constraints, the semantic scores (None when
    the channel did not run), the cards the filters and the constraints allow, and whether the
    channel was asked for but could not run (then an empty answer is never called complete)."""

    constraints: list[Constraint]
    semantic: SemanticScores | None
    allowed: frozenset[int] | None
    satisfying: frozenset[int] | None
    semantic_off: bool = False
    whole_scope: bool = False
    """Every card of the scope is a match, whatever its similarity (:data:`..search.pipeline.FEW`)."""

    @property
    def scope(self) -> frozenset[int] | None:
        """The cards both the filters and the constraints allow (None: every card)."""
        if self.allowed is None or self.satisfying is None:
            return self.allowed if self.satisfying is None else self.satisfying
        return self.allowed & self.satisfying

    def unsatisfied(self) -> list[Constraint]:
        """The constraints no card satisfies; or all of them when each is satisfied but never together."""
        alone = [c for c in self.constraints if not c.cards]
        return alone or (list(self.constraints) if self.satisfying is not None and not self.satisfying else [])


def to_hit(rank: int, hit: RankedHit, card: DatasetCard, explanation: dict[str, Any] | None) -> DatasetHit:
    description = card.description or card.description_zh
    if len(description) > DESCRIPTION_CHARS:
        description = description[:DESCRIPTION_CHARS].rstrip() + "..."
    return DatasetHit(
        rank=rank, id=card.id, name=card.name, kind=card_kind(card), match=hit.match.value, fields=hit.fields,
        coverage=hit.coverage, score=hit.score, similarity=hit.similarity, license=card.license,
        license_id=card.license_id,
        license_verdict=card.license_verdict.to_dict() if card.license_verdict else None,
        languages=card.languages, tasks=card.tasks, tags=card.tags, source=card.source,
        homepage=card.homepage, description=description, explanation=explanation,
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _match(n: int) -> str:
    return "1 card matches" if n == 1 else f"{n} cards match"


class Verdict(StrEnum):
    """What an answer says about the catalog (``verdict`` in the response)."""

    FOUND = "found"                  # hits
    UNSATISFIED = "unsatisfied"      # empty: no card satisfies a constraint term (a claim: none exists)
    UNCONFIRMED = "unconfirmed"      # empty: only a country no card names emptied it (cards seldom say their country)
    FILTERED = "filtered"            # empty: the query matches, the filters exclude every match
    STRICT = "strict"                # empty: only partial matches, hidden by strict
    SEMANTIC_OFF = "semantic_off"    # empty: no words match and the semantic channel did not run
    UNCERTAIN = "uncertain"          # empty: some card comes near in meaning (above the completeness floor)
    ABSENT = "absent"                # empty: neither channel finds a card above its floor (a claim)


def verdict_of(judged: Judgement, total: int, unfiltered: int, exclusions: list[FilterExclusion],
               partial_hidden: int) -> Verdict:
    """The verdict of an answer with ``total`` matches (see :class:`Verdict`, in order of precedence)."""
    if total:
        return Verdict.FOUND
    if failed := judged.unsatisfied():
        if all(c.kind is ConstraintKind.COUNTRY for c in failed):
            return Verdict.UNCONFIRMED
        return Verdict.UNSATISFIED
    if exclusions and unfiltered:
        return Verdict.FILTERED
    if partial_hidden:
        return Verdict.STRICT
    if judged.semantic is None:  # switched off (strict, semantic=false, engine substring) or unavailable
        return Verdict.SEMANTIC_OFF
    if judged.semantic.best(judged.scope) >= judged.semantic.complete:
        return Verdict.UNCERTAIN
    return Verdict.ABSENT


def _message(request: DatasetQuery, verdict: Verdict, total: int, shown: int, counts: dict[str, int],
             unfiltered: int, exclusions: list[FilterExclusion], partial_hidden: int, size: int,
             judged: Judgement) -> str:
    query = repr(request.text)
    if verdict is Verdict.FOUND:
        kinds = ", ".join(f"{n} {kind}" for kind, n in counts.items())
        text = f"{_match(total)} {query} ({kinds})"
        if shown >= total:
            text += "; this is the complete list."
        else:
            text += f"; showing the first {shown}. {MORE_CARDS} or add filters to see the rest."
        if counts.get("partial"):
            text += " Partial matches hold only some of the query terms."
        if judged.whole_scope and judged.scope is not None:
            text += (f" The language, licence or edition asked for leaves only "
                     f"{_plural(len(judged.scope), 'card')}, listed here, the nearest in meaning first.")
        elif counts.get("semantic") and judged.semantic is not None:
            near = f"similarity at least {judged.semantic.floor:.2f}"
            if judged.semantic.english is not None:
                near += ", or among the nearest in the English space"
            text += f" Semantic matches are close in meaning ({near}) but do not hold every query term."
        return text
    if verdict in (Verdict.UNSATISFIED, Verdict.UNCONFIRMED):
        failed = judged.unsatisfied()
        what = " and ".join(c.message(size).removeprefix("no card in the catalog ").rsplit(" (", 1)[0] for c in failed)
        count = f"0 of {size}" if len(failed) > 1 else f"{len(failed[0].cards)} of {size}"
        if verdict is Verdict.UNCONFIRMED:
            return (f"No card matches {query}: no card in the catalog says it {what} ({count}), but a card seldom "
                    "names its country, so the search is not conclusive. The nearest cards are under suggestions; "
                    "they are not matches.")
        return (f"No card matches {query}: no card in the catalog {what} ({count}). The nearest cards are under "
                "suggestions; they are not matches.")
    if verdict is Verdict.FILTERED:
        parts = ", ".join(f"the {FILTER_LABELS[e.filter]} filter excludes {e.excluded_matches}" for e in exclusions)
        return (f"No card matches {query} with these filters. Without filters {_match(unfiltered)}; "
                f"on its own {parts}. Nothing else in the catalog matches.")
    text = f"No card in the catalog ({size} cards) matches {query}"
    text += ", with or without the filters." if exclusions else "."
    if judged.constraints:
        text += " Cards satisfying " + ", ".join(f"{c.term!r} ({len(c.cards)})" for c in judged.constraints)
        text += " exist, but none of them matches the rest of the request."
    if verdict is Verdict.STRICT:
        text += f" {_match(partial_hidden)} part of the query; repeat without strict to see them."
    elif verdict is Verdict.SEMANTIC_OFF:
        why = "could not run" if judged.semantic_off else "was off (strict, semantic off or engine substring)"
        text += (f" No card holds its words, but the semantic channel {why}, so a card describing it in other "
                 "words may exist.")
    elif verdict is Verdict.UNCERTAIN and judged.semantic is not None:
        best = judged.semantic.best(judged.scope)
        text += (f" No card holds its words and none is close enough in meaning to count as a match (best "
                 f"similarity {best:.2f}, floor {judged.semantic.floor:.2f}), but the search is not conclusive: "
                 "the nearest cards are under suggestions, and the catalog may describe such a dataset otherwise.")
    else:
        text += " The search is complete: there is no such dataset card here."
    return text


def _suggestions(judged: Judgement, verdict: Verdict, unfiltered: list[RankedHit],
                 catalog: DatasetCatalog) -> list[Suggestion]:
    """The nearest cards of an inconclusive answer (within the filters and constraints), or those an
    unsatisfied constraint left out (within the filters), semantic order, else lexical; with the
    constraints each one fails."""
    if verdict not in (Verdict.UNSATISFIED, Verdict.UNCONFIRMED, Verdict.UNCERTAIN):
        return []
    near: list[tuple[int, float | None]]
    scope = judged.allowed if verdict in (Verdict.UNSATISFIED, Verdict.UNCONFIRMED) else judged.scope
    if judged.semantic is not None:
        near = list(judged.semantic.nearest(SUGGESTIONS, scope))
    else:
        near = [(h.ordinal, None) for h in unfiltered if judged.allowed is None or h.ordinal in judged.allowed]
        near = near[:SUGGESTIONS]
    out = []
    for ordinal, similarity in near:
        card = catalog.cards[ordinal]
        fails = tuple(f"{c.kind.value}: {c.term}" for c in judged.constraints if ordinal not in c.cards)
        out.append(Suggestion(card.id, card.name, similarity, card.languages, fails))
    return out


def build_response(request: DatasetQuery, top: list[DatasetHit], ranked: list[RankedHit],
                   unfiltered: list[RankedHit], sets: dict[str, frozenset[int]], partial_hidden: int,
                   catalog: DatasetCatalog, judged: Judgement) -> DatasetSearchResponse:
    """The response for ``ranked`` (filtered, ordered) of which ``top`` are returned."""
    order = [t.match.value for t in sorted(Tier, reverse=True)]
    found = Counter(h.match.value for h in ranked)
    counts = {kind: found[kind] for kind in dict.fromkeys(order) if found[kind]}
    exclusions = [
        FilterExclusion(name, request.active_filters()[name],
                        sum(1 for h in unfiltered if h.ordinal not in cards), catalog.size - len(cards))
        for name, cards in sets.items()
    ]
    verdict = verdict_of(judged, len(ranked), len(unfiltered), exclusions, partial_hidden)
    failed = judged.unsatisfied() if verdict in (Verdict.UNSATISFIED, Verdict.UNCONFIRMED) else []
    semantic: dict[str, Any] = {"used": judged.semantic is not None}
    if judged.semantic is not None:
        semantic.update(floor=judged.semantic.floor, complete_floor=judged.semantic.complete,
                        best=round(judged.semantic.best(judged.scope), 4))
    warnings = []
    if judged.semantic_off:
        warnings.append(f"the semantic channel is off: {catalog.semantic_error}")
    if request.engine != "substring" and not parse_query(request.text).units:
        warnings.append("the query has no searchable words (only stop words, filler words or punctuation)")
    if catalog.load_errors:
        first = "; ".join(str(e) for e in catalog.load_errors[:3])
        warnings.append(f"{_plural(len(catalog.load_errors), 'invalid card record')} skipped when loading "
                        f"{catalog.source}: {first}")
    return DatasetSearchResponse(
        query=request.text, engine=request.engine, hits=tuple(top), total=len(ranked),
        exhaustive=len(top) >= len(ranked),
        message=_message(request, verdict, len(ranked), len(top), counts, len(unfiltered), exclusions,
                         partial_hidden, catalog.size, judged),
        counts=counts, strict=request.strict, synonyms=request.synonyms, filters=request.active_filters(),
        matches_without_filters=len(unfiltered), exclusions=tuple(exclusions), partial_hidden=partial_hidden,
        catalog_size=catalog.size, catalog_version=catalog.version, warnings=tuple(warnings),
        constraints=tuple(c.to_dict(catalog.size) for c in judged.constraints),
        unsatisfied=tuple(c.to_dict(catalog.size) for c in failed),
        suggestions=tuple(_suggestions(judged, verdict, unfiltered, catalog)), semantic=semantic,
        verdict=verdict.value,
    )

"""Turning ranked matches into the response: hits, counts, exhaustiveness and the honest message
(docs/datasets.md, section 8)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from eagle_rag_datasets.catalog.cards import DatasetCard
from eagle_rag_datasets.catalog.kinds import card_kind
from eagle_rag_datasets.reply.advice import MORE_CARDS
from eagle_rag_datasets.reply.response import DatasetHit, DatasetSearchResponse, FilterExclusion
from eagle_rag_datasets.search.query import FILTER_LABELS, DatasetQuery
from eagle_rag_datasets.search.ranking import RankedHit, Tier
from eagle_rag_datasets.search.units import parse_query

if TYPE_CHECKING:
    from eagle_rag_datasets.catalog.catalog import DatasetCatalog

DESCRIPTION_CHARS = 300


def to_hit(rank: int, hit: RankedHit, card: DatasetCard, explanation: dict[str, Any] | None) -> DatasetHit:
    description = card.description or card.description_zh
    if len(description) > DESCRIPTION_CHARS:
        description = description[:DESCRIPTION_CHARS].rstrip() + "..."
    return DatasetHit(
        rank=rank, id=card.id, name=card.name, kind=card_kind(card), match=hit.match.value, fields=hit.fields,
        coverage=hit.coverage, score=hit.score, license=card.license, license_id=card.license_id,
        license_verdict=card.license_verdict.to_dict() if card.license_verdict else None,
        languages=card.languages, tasks=card.tasks, tags=card.tags, source=card.source,
        homepage=card.homepage, description=description, explanation=explanation,
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _match(n: int) -> str:
    return "1 card matches" if n == 1 else f"{n} cards match"


def _message(request: DatasetQuery, total: int, shown: int, counts: dict[str, int], unfiltered: int,
             exclusions: list[FilterExclusion], partial_hidden: int, size: int) -> str:
    query = repr(request.text)
    if total:
        kinds = ", ".join(f"{n} {kind}" for kind, n in counts.items())
        text = f"{_match(total)} {query} ({kinds})"
        if shown >= total:
            text += "; this is the complete list."
        else:
            text += f"; showing the first {shown}. {MORE_CARDS} or add filters to see the rest."
        if counts.get("partial"):
            text += " Partial matches hold only some of the query terms."
        return text
    if exclusions and unfiltered:
        parts = ", ".join(f"the {FILTER_LABELS[e.filter]} filter excludes {e.excluded_matches}" for e in exclusions)
        return (f"No card matches {query} with these filters. Without filters {_match(unfiltered)}; "
                f"on its own {parts}. Nothing else in the catalog matches.")
    text = f"No card in the catalog ({size} cards) matches {query}"
    text += ", with or without the filters." if exclusions else "."
    if partial_hidden:
        text += f" {_match(partial_hidden)} part of the query; repeat without strict to see them."
    else:
        text += " The search is complete: there is no such dataset card here."
    return text


def build_response(request: DatasetQuery, top: list[DatasetHit], ranked: list[RankedHit],
                   unfiltered: list[RankedHit], sets: dict[str, frozenset[int]], partial_hidden: int,
                   catalog: DatasetCatalog) -> DatasetSearchResponse:
    """The response for ``ranked`` (filtered, ordered) of which ``top`` are returned."""
    order = [t.match.value for t in sorted(Tier, reverse=True)]
    found = Counter(h.match.value for h in ranked)
    counts = {kind: found[kind] for kind in dict.fromkeys(order) if found[kind]}
    exclusions = [
        FilterExclusion(name, request.active_filters()[name],
                        sum(1 for h in unfiltered if h.ordinal not in cards), catalog.size - len(cards))
        for name, cards in sets.items()
    ]
    warnings = []
    if request.engine != "substring" and not parse_query(request.text).units:
        warnings.append("the query has no searchable words (only stop words, filler words or punctuation)")
    if catalog.load_errors:
        first = "; ".join(str(e) for e in catalog.load_errors[:3])
        warnings.append(f"{_plural(len(catalog.load_errors), 'invalid card record')} skipped when loading "
                        f"{catalog.source}: {first}")
    return DatasetSearchResponse(
        query=request.text, engine=request.engine, hits=tuple(top), total=len(ranked),
        exhaustive=len(top) >= len(ranked),
        message=_message(request, len(ranked), len(top), counts, len(unfiltered), exclusions, partial_hidden,
                         catalog.size),
        counts=counts, strict=request.strict, synonyms=request.synonyms, filters=request.active_filters(),
        matches_without_filters=len(unfiltered), exclusions=tuple(exclusions), partial_hidden=partial_hidden,
        catalog_size=catalog.size, catalog_version=catalog.version, warnings=tuple(warnings),
    )

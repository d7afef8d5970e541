"""The stages of one search, in order (docs/datasets.md, sections 4 to 8).

1. candidates: every card matching the query at some tier (:mod:`.candidates`), or the plain
   plain substring match for engine ``substring``;
2. strict mode drops partial matches (and counts them);
3. facet filters keep the cards passing every active filter (:mod:`.filters`), and the cards that
   do not satisfy the query's constraint terms are dropped (:mod:`.constraints`);
4. only the groups that can reach the top k are scored: BM25 from the engine, the verification
   prior and phrase proximity (:mod:`.engines`, :mod:`.ranking`, :mod:`.proximity`);
5. the lexical order of hits (:func:`.ranking.order`), fused with the semantic channel's cards
   above its floor, within the same filters and constraints (:mod:`.semantic`, :mod:`.fusion`); when
   the languages named leave at most :data:`NARROW` cards, the floor is the completeness floor;
6. the reply, which says what emptied an empty answer and offers suggestions apart from the hits
   (:mod:`eagle_rag_datasets.reply`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import date
from typing import TYPE_CHECKING, Any

from eagle_rag_datasets.catalog.kinds import DATASET
from eagle_rag_datasets.reply.build import Judgement, build_response, to_hit
from eagle_rag_datasets.reply.explain import explain_hit
from eagle_rag_datasets.reply.response import DatasetSearchResponse
from eagle_rag_datasets.search.candidates import find_matches
from eagle_rag_datasets.search.constraints import Constraint, ConstraintKind, asked_text
from eagle_rag_datasets.search.engines import Engine
from eagle_rag_datasets.search.fusion import fuse, fusion_weights
from eagle_rag_datasets.search.matching import Coverage, scoring_terms
from eagle_rag_datasets.search.proximity import phrase_checks, proximity
from eagle_rag_datasets.search.query import DatasetQuery
from eagle_rag_datasets.search.ranking import RankedHit, Tier, leading_groups, order, prior
from eagle_rag_datasets.search.semantic import SHORT_WEIGHT, SemanticScores, semantic_text
from eagle_rag_datasets.search.units import parse_query

if TYPE_CHECKING:
    from eagle_rag_datasets.catalog.catalog import DatasetCatalog

NARROWING = (ConstraintKind.LANGUAGE, ConstraintKind.LICENSE)
NARROWING_FILTERS = ("languages", "licenses")
"""The filters of the :data:`NARROWING` kinds."""
"""The constraint kinds (and their filters) whose few cards are each likely what is asked for (:data:`NARROW`)."""
NARROW = 40
"""When the languages a query names (or its language filter) leave at most this many cards with its other
constraints and filters ("Danish-English medical parallel sentences": one Danish card; "SciFact in Dutch, not
the v2 versions"), each of them is likely what is asked for: the semantic channel then counts a card as a
match from the completeness floor on (:class:`.semantic.Floor`), not only from the match floor, and an empty
answer is never called complete (cards in those languages exist; the nearest are suggested). A country or
modality alone does not narrow so (a card from the UK is not thereby a UK Biobank card). 15 on the tuning
requests of v1-v4 (5 before: v3's Hit@5 0.881 -> 0.900, the others unchanged); 40 on v1-v6 and v7's tune half
(German leaves 21 cards, French 17: six Chinese requests for German or French cards found, none lost; 60 and 100
change nothing more)."""
FEW = 20
"""When one language or licence the query names (or one such filter), or one dataset name with its edition
("CHIP 2020", "BioCreative VI"), is carried by at most this many cards on its own, every card of the query's
scope is listed, nearest in meaning first, whatever its similarity ("丹麦语和英语对照的医学平行语料": the one
Danish card; "日语的医学检索评测": four Japanese cards): the asker names the few cards that can answer, and a
language rarely carried leaves no near neighbour to confuse with them. Counted for one constraint at a time,
not their intersection: Chinese and English together leave few cards, but each alone leaves a hundred and more,
and a request for Chinese cards that rules English ones out is not thereby asking for the bilingual few. On the
tuning requests of v1-v11 (docs/datasets.md, section 12), 20 finds 11 answered requests and empties no near-miss
one fewer; 5 finds 6."""


def _candidates(catalog: DatasetCatalog, request: DatasetQuery,
                engine: Engine) -> tuple[list[RankedHit], Coverage | None, list[Any]]:
    if engine is Engine.SUBSTRING:
        return catalog.substring.search(request.text), None, []
    result = find_matches(catalog.matcher, parse_query(request.text), catalog.card_ids,
                          catalog.synonyms() if request.synonyms else None, request.typos)
    return result.hits, result.base, result.scoring


def _semantic(catalog: DatasetCatalog, request: DatasetQuery, engine: Engine,
              constraints: list[Constraint]) -> SemanticScores | None:
    if engine is Engine.SUBSTRING or request.strict or not request.semantic:
        return None
    index = catalog.semantic()
    if index is None:
        return None
    weight = sum(unit.weight for unit in parse_query(request.text).units if not unit.soft)
    return index.scores(semantic_text(request.text, constraints), short=weight <= SHORT_WEIGHT)


def _with_named(hits: list[RankedHit], constraints: list[Constraint], card_ids: list[str]) -> list[RankedHit]:
    """``hits`` plus the cards a query names by their own name, alias or id that no tier found ("the Chinese
    version of ICD-9 ... ICD-10 we already have": the other words are the asker's context): a partial
    match (noted ``named``), which the fusion ranks first (:func:`.fusion.fuse`)."""
    taken = {h.ordinal for h in hits}
    out = list(hits)
    for constraint in constraints:
        if constraint.kind is not ConstraintKind.NAME or constraint.excluded:
            continue
        for card in sorted(constraint.named - taken):
            out.append(RankedHit(card, card_ids[card], Tier.PARTIAL, 0.0, 0.0, notes={"named": constraint.term}))
            taken.add(card)
    return out


def _few(constraints: list[Constraint], sets: dict[str, frozenset[int]]) -> bool:
    """Whether one language, licence or edition of a dataset the query asks for, or one language or licence
    filter, is carried by at most :data:`FEW` cards on its own (:data:`FEW`)."""
    sizes = [len(c.cards) for c in constraints if (c.kind in NARROWING or c.versioned) and not c.excluded]
    sizes += [len(cards) for name, cards in sets.items() if name in NARROWING_FILTERS]
    return any(size <= FEW for size in sizes)


def run_search(catalog: DatasetCatalog, request: DatasetQuery) -> DatasetSearchResponse:
    """Answer a validated request (:meth:`DatasetQuery.validated`) over ``catalog``."""
    engine = Engine.from_str(request.engine)
    constraints = catalog.constraints(request.text) if engine is not Engine.SUBSTRING else []
    asked = replace(request, text=asked_text(request.text, constraints))  # without what it rules out
    hits, base, scoring = _candidates(catalog, asked, engine)
    partial_hidden = sum(1 for h in hits if h.tier is Tier.PARTIAL) if request.strict else 0
    if request.strict:
        hits = [h for h in hits if h.tier is not Tier.PARTIAL]
    allowed, sets = catalog.facets.allowed(request.active_filters())
    hits = _with_named(hits, constraints, catalog.card_ids)
    restricting = [c.cards for c in constraints if c.restricts]
    satisfying = frozenset.intersection(*restricting) if restricting else None
    kept = [h for h in hits if (allowed is None or h.ordinal in allowed)
            and (satisfying is None or h.ordinal in satisfying)]
    if engine is not Engine.SUBSTRING:  # the substring engine stays plain
        for hit in kept:
            hit.non_dataset = catalog.kinds[hit.ordinal] != DATASET
    head, tail = leading_groups(kept, request.top_k)  # only the head can reach the top k: score it
    if engine is not Engine.SUBSTRING and head:
        scores = catalog.engine(engine).scores(scoring_terms(scoring), {h.ordinal for h in head})
        as_of = request.as_of or date.today()
        checks = phrase_checks(parse_query(asked.text))
        for hit in head:
            hit.score = scores.get(hit.ordinal, 0.0)
            hit.prior = prior(catalog.cards[hit.ordinal].license_verdict, as_of)
            hit.proximity = proximity(checks, catalog.flat_texts[hit.ordinal]) if checks else 0.0
    ranked = order(head, use_prior=request.prior) + tail  # the tail is only counted, never shown
    semantic = _semantic(catalog, asked, engine, constraints)
    off = (engine is not Engine.SUBSTRING and request.semantic and not request.strict and semantic is None
           and catalog.semantic_error is not None)
    judged = Judgement(constraints, semantic, allowed, satisfying, off)
    narrowed = bool(set(NARROWING_FILTERS) & set(request.active_filters())) or any(
        (c.kind in NARROWING or c.versioned) and not c.excluded for c in constraints)
    if semantic is not None and narrowed and judged.scope is not None and len(judged.scope) <= NARROW:
        whole = _few(constraints, sets)
        semantic = replace(semantic, floor=-1.0 if whole else semantic.complete, complete=-1.0)
        judged = replace(judged, semantic=semantic, whole_scope=whole)
    if semantic is not None:
        partial = [h.ordinal for h in ranked if h.tier is Tier.PARTIAL]
        named = frozenset().union(*(c.named for c in constraints))
        matches = semantic.ranked(judged.scope)
        if ranked or matches:
            matches = semantic.ranked(judged.scope, support=True)
        ranks = semantic.ranks(partial + [ordinal for ordinal, _ in matches], judged.scope)
        naming = Counter(ordinal for c in constraints if not c.excluded for ordinal in c.named)
        ranked = fuse(ranked, matches, catalog.card_ids, ranks,
                      named, fusion_weights(request.text), naming)
    top = [to_hit(rank, h, catalog.cards[h.ordinal],
                  explain_hit(h, base, engine.value, request.prior) if request.explain else None)
           for rank, h in enumerate(ranked[:request.top_k], start=1)]
    return build_response(request, top, ranked, hits, sets, partial_hidden, catalog, judged)


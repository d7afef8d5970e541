"""The candidates: every card matching a parsed query at some tier, through the query itself, its
synonym alternatives and its typo corrections (engines ``index`` and ``bm25``; tiers in
:mod:`.ranking`, rules in docs/datasets.md, section 5)."""

from __future__ import annotations

from dataclasses import dataclass, field

from eagle_rag_datasets.catalog.synonyms import SynonymSet
from eagle_rag_datasets.search.matching import Coverage, Matcher, TypoFix
from eagle_rag_datasets.search.ranking import FULL, PARTIAL_MIN, RankedHit, Tier
from eagle_rag_datasets.search.units import ParsedQuery, compose_query

SYNONYM_WEIGHT = 0.5
TYPO_WEIGHT = 0.5


@dataclass
class _Best:
    ratio: float = 0.0
    title: float = 0.0
    note: dict[str, object] = field(default_factory=dict)


@dataclass
class MatchResult:
    """Tiered hits (unscored), the coverages that decided them, and the queries to score with."""

    hits: list[RankedHit]
    base: Coverage
    scoring: list[tuple[ParsedQuery, float]]


def _keep_best(best: dict[int, _Best], cov: Coverage, note: dict[str, object]) -> None:
    for card in cov.complete_origin or ():
        ratio, title = cov.ratio.get(card, 0.0), cov.title.get(card, 0.0)
        old = best.get(card)
        if old is None or (ratio, title) > (old.ratio, old.title):
            best[card] = _Best(ratio, title, note)


def _synonyms(matcher: Matcher, synonyms: SynonymSet, query: ParsedQuery,
              scoring: list[tuple[ParsedQuery, float]]) -> dict[int, _Best]:
    best: dict[int, _Best] = {}
    spans = synonyms.find(query.text)
    for fragments in synonyms.alternatives(query.text, spans):
        alt = compose_query(fragments)
        scoring.append((alt, SYNONYM_WEIGHT))
        used = [dict(zip(("group", "from"), origin.split(":", 2)[1:], strict=True)) | {"to": text}
                for text, origin in fragments if origin]
        _keep_best(best, matcher.coverage(alt), {"synonym": used})
    return best


def _typos(matcher: Matcher, query: ParsedQuery, found: bool,
           scoring: list[tuple[ParsedQuery, float]]) -> dict[int, _Best]:
    """Typo corrections of unknown words; and, when no card matched the whole query (``found`` is
    False), cards whose name or id is a misspelling of the whole query."""
    best: dict[int, _Best] = {}
    fixed = matcher.typo_query(query)
    if fixed is not None:
        alt, fixes = fixed
        scoring.append((alt, TYPO_WEIGHT))
        _keep_best(best, matcher.coverage(alt), {"typo": [_fix(f) for f in fixes]})
    if not found:
        for card, fix in matcher.fuzzy_names(query).items():
            best[card] = _Best(1.0, 1.0, {"typo": [_fix(fix)], "typo_of_name": True})
    return best


def _fix(fix: TypoFix) -> dict[str, object]:
    return {"query": fix.query, "matched": fix.matched, "distance": fix.distance}


def find_matches(matcher: Matcher, query: ParsedQuery, card_ids: list[str],
                 synonyms: SynonymSet | None, typos: bool) -> MatchResult:
    """Every card matching ``query`` at some tier (strict mode and filters are applied later)."""
    base = matcher.coverage(query)
    scoring: list[tuple[ParsedQuery, float]] = [(query, 1.0)]
    exact: dict[int, Tier] = {}
    for key in query.keys:
        for card, kind in matcher.index.keys.get(key, ()):
            tier = Tier.ALIAS if kind == "alias" else Tier.EXACT
            exact[card] = max(exact.get(card, tier), tier)
    syn = _synonyms(matcher, synonyms, query, scoring) if synonyms is not None else {}
    found = bool(exact) or any(r >= FULL for r in base.ratio.values()) or any(b.ratio >= FULL for b in syn.values())
    typo = _typos(matcher, query, found, scoring) if typos else {}
    hits: list[RankedHit] = []
    for card in set(base.ratio) | set(exact) | set(syn) | set(typo):
        ratio, title = base.ratio.get(card, 0.0), base.title.get(card, 0.0)
        s, t = syn.get(card, _Best()), typo.get(card, _Best())
        notes: dict[str, object] = {}
        if card in exact:
            tier, ratio, title = exact[card], 1.0, 1.0
            notes["exact_key"] = next(k for k in query.keys if any(c == card for c, _ in matcher.index.keys.get(k, ())))
        else:
            options: list[tuple[Tier, float, float, dict[str, object]]] = []  # the best tier wins
            if ratio >= FULL:
                options.append((Tier.NAME if title >= FULL else Tier.TEXT, ratio, title, {}))
            if s.ratio >= FULL:
                options.append((Tier.SYNONYM_NAME if s.title >= FULL else Tier.SYNONYM, s.ratio, s.title, s.note))
            if t.ratio >= FULL:
                options.append((Tier.TYPO, t.ratio, t.title, t.note))
            if not options:
                best = max((ratio, title, {}), (s.ratio, s.title, s.note), (t.ratio, t.title, t.note),
                           key=lambda x: (x[0], x[1]))  # type: ignore[arg-type,return-value]
                if best[0] < PARTIAL_MIN:
                    continue
                options.append((Tier.PARTIAL, *best))
            tier, ratio, title, notes = max(options, key=lambda o: o[0])
        hits.append(RankedHit(card, card_ids[card], tier, ratio, title, notes=dict(notes)))
    return MatchResult(hits, base, scoring)

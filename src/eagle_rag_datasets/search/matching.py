"""Which cards match which query units, and how completely: the shared core of every ranked engine.

For each unit the matcher finds the cards holding it (all fields, and title fields alone) from
the postings of :class:`~eagle_rag_datasets.catalog.terms.TermIndex`; a card's coverage is the weighted
share of required units it matches (Chinese units fractionally, see :mod:`.units`). Adjacent Latin
words joined together ("BC5 CDR" -> ``bc5cdr``) also match a card holding the joined word.

Typo tolerance (rapidfuzz, optimal string alignment distance) applies to names, aliases and ids
only: a word unknown to the whole catalog may stand for a name word at distance 1 (5-8 letters)
or 2 (9 or more), and the whole query may stand for a card's compact name or id at the same
distances. A correction must keep the first letter and every digit (so "MIMIC-IV" never becomes
"MIMIC-III" and "CHIP2019" never "CHIP2020"). See docs/datasets.md, section 5.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

from rapidfuzz import process
from rapidfuzz.distance import OSA

from eagle_rag.plugin_api.text import analyze, compact_name
from eagle_rag_datasets.catalog.terms import TermIndex
from eagle_rag_datasets.search.units import ParsedQuery, Unit

_EMPTY: frozenset[int] = frozenset()


@dataclass(frozen=True)
class UnitHits:
    """Cards matching one unit: card -> fraction matched, over all fields and over title fields."""

    any: dict[int, float]
    title: dict[int, float]


@dataclass(frozen=True)
class Coverage:
    """Coverage of one parsed query: card -> share of required weight matched (0..1).

    ``complete_origin``: cards matching every substituted (synonym/typo) unit fully; None when
    the query has no substituted unit.
    """

    query: ParsedQuery
    ratio: dict[int, float]
    title: dict[int, float]
    units: tuple[UnitHits, ...]
    complete_origin: frozenset[int] | None


@dataclass(frozen=True)
class TypoFix:
    query: str
    matched: str
    distance: int


def max_distance(text: str) -> int:
    """Edit distance allowed for a misspelt name of this length (0 below five characters)."""
    return 0 if len(text) < 5 else 1 if len(text) <= 8 else 2


def _compatible(query: str, candidate: str) -> bool:
    return query[:1] == candidate[:1] and re.sub(r"\D", "", query) == re.sub(r"\D", "", candidate)


class Matcher:
    """Unit matching over one :class:`TermIndex`."""

    def __init__(self, index: TermIndex) -> None:
        self.index = index
        self._vocab: dict[str, list[str]] | None = None
        self._keys: dict[str, list[str]] | None = None

    # ------------------------------------------------------------------ units
    def _joins(self, query: ParsedQuery) -> dict[int, tuple[frozenset[int], frozenset[int]]]:
        out: dict[int, tuple[frozenset[int], frozenset[int]]] = {}
        tokens = [compact_name(t) for t in query.tokens]
        for i in range(len(tokens)):
            for j in range(i + 2, min(len(tokens), i + 4) + 1):
                join = "".join(tokens[i:j])
                cards = self.index.words.get(join)
                if not cards:
                    continue
                title = frozenset(self.index.title_words.get(join, ()))
                for k in range(i, j):
                    old_any, old_title = out.get(k, (_EMPTY, _EMPTY))
                    out[k] = (old_any | frozenset(cards), old_title | title)
        return out

    def _latin(self, unit: Unit, joins: dict[int, tuple[frozenset[int], frozenset[int]]]) -> UnitHits:
        idx = self.index
        any_set: set[int] = set()
        title_set: set[int] = set()
        for form in unit.forms:
            any_set |= idx.in_any(form)
            title_set |= idx.in_title(form)
        if unit.parts:
            any_set |= frozenset.intersection(*(idx.in_any(p) for p in unit.parts))
            title_set |= frozenset.intersection(*(idx.in_title(p) for p in unit.parts))
        for word in unit.words:  # typo corrections: words of any field (a name's words among them)
            any_set |= idx.words.get(word, set())
            title_set |= idx.title_words.get(word, set())
        if unit.token in joins:
            any_set |= joins[unit.token][0]
            title_set |= joins[unit.token][1]
        return UnitHits(dict.fromkeys(any_set, 1.0), dict.fromkeys(title_set, 1.0))

    def _cjk(self, unit: Unit) -> UnitHits:
        idx = self.index
        if len(unit.text) == 1:
            return UnitHits(dict.fromkeys(idx.chars.get(unit.text, ()), 1.0), {})
        need = [i for i, keep in enumerate(unit.required) if keep]
        out: list[dict[int, float]] = []
        for lookup in (idx.in_any, idx.in_title):
            bigram_sets = [lookup(b) for b in unit.bigrams]
            counts: Counter[int] = Counter()
            for pos in need:
                left = bigram_sets[pos - 1] if pos > 0 else _EMPTY
                right = bigram_sets[pos] if pos < len(bigram_sets) else _EMPTY
                counts.update(left | right)
            out.append({card: n / len(need) for card, n in counts.items()})
        return UnitHits(out[0], out[1])

    def coverage(self, query: ParsedQuery) -> Coverage:
        """Coverage of every card matching at least one required unit."""
        joins = self._joins(query)
        hits = tuple(self._latin(u, joins) if u.kind == "latin" else self._cjk(u) for u in query.units)
        required = [(u, h) for u, h in zip(query.units, hits, strict=True) if not u.soft]
        total = sum(u.weight for u, _ in required) or 1.0
        ratio: dict[int, float] = {}
        title: dict[int, float] = {}
        for unit, hit in required:
            weight = unit.weight / total
            for card, share in hit.any.items():
                ratio[card] = ratio.get(card, 0.0) + weight * share
            for card, share in hit.title.items():
                title[card] = title.get(card, 0.0) + weight * share
        complete: frozenset[int] | None = None
        for unit, hit in required:
            if unit.origin:
                full = frozenset(c for c, share in hit.any.items() if share >= 1.0)
                complete = full if complete is None else complete & full
        return Coverage(query, ratio, title, hits, complete)

    # ------------------------------------------------------------------ typos
    @staticmethod
    def _buckets(words: Iterable[str]) -> dict[str, list[str]]:
        """Words by first character: a correction keeps the first letter, so only one bucket is searched."""
        out: dict[str, list[str]] = {}
        for word in sorted(words):
            out.setdefault(word[:1], []).append(word)
        return out

    def _vocabulary(self) -> dict[str, list[str]]:
        if self._vocab is None:
            self._vocab = self._buckets(self.index.words)  # every card word, a name's words among them
        return self._vocab

    def _fuzzy(self, text: str, buckets: dict[str, list[str]], limit: int) -> list[tuple[str, int]]:
        limit_d = max_distance(text)
        choices = [c for c in buckets.get(text[:1], ()) if abs(len(c) - len(text)) <= limit_d]
        if not limit_d or not choices:
            return []
        found = process.extract(text, choices, scorer=OSA.distance, score_cutoff=limit_d, limit=limit)
        return [(c, int(d)) for c, d, _ in found if d > 0 and _compatible(text, c)]

    def typo_query(self, query: ParsedQuery) -> tuple[ParsedQuery, list[TypoFix]] | None:
        """The query with every catalog-unknown Latin word replaced by close name words, or None."""
        joins = self._joins(query)
        fixes: list[TypoFix] = []
        units = list(query.units)
        for i, unit in enumerate(units):
            if unit.kind != "latin" or unit.soft or unit.token in joins:
                continue
            if any(self.index.known(f) for f in unit.forms) or (
                unit.parts and all(self.index.known(p) for p in unit.parts)
            ):
                continue
            raw = compact_name(unit.text)
            close = self._fuzzy(raw, self._vocabulary(), limit=5)
            if close:
                units[i] = replace(unit, forms=(), parts=(), words=tuple(c for c, _ in close),
                                   origin=f"typo:{raw}")
                fixes += [TypoFix(raw, c, d) for c, d in close]
        if not fixes:
            return None
        return replace(query, units=tuple(units)), fixes

    def fuzzy_names(self, query: ParsedQuery) -> dict[int, TypoFix]:
        """Cards whose compact name, alias or id is within typo distance of the whole query."""
        if self._keys is None:
            self._keys = self._buckets(self.index.keys)
        out: dict[int, TypoFix] = {}
        for key in query.keys:
            for candidate, distance in self._fuzzy(key, self._keys, limit=10):
                for card, _kind in self.index.keys[candidate]:
                    if card not in out or out[card].distance > distance:
                        out[card] = TypoFix(key, candidate, distance)
        return out


def scoring_terms(queries: list[tuple[ParsedQuery, float]]) -> list[tuple[str, str, float]]:
    """Weighted engine terms ``(field, term, weight)`` for BM25; field "text" or "char".

    Soft units count a third; units of expansions carry the weight given with their query.
    """
    out: dict[tuple[str, str], float] = {}
    for query, weight in queries:
        for unit in query.units:
            w = weight * (0.3 if unit.soft else 1.0)
            if unit.kind == "cjk":
                terms = [("char", unit.text)] if len(unit.text) == 1 else [("text", b) for b in unit.bigrams]
            else:
                words = [t for word in unit.words for t in analyze(word)]
                terms = [("text", t) for t in (*unit.forms, *unit.parts, *words)]
            for key in terms:
                out[key] = max(out.get(key, 0.0), w)
    return [(f, t, w) for (f, t), w in out.items()]

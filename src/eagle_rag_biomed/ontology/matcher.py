"""Dictionary matching over the merged ontology: an Aho-Corasick automaton plus boundary rules.

Text is normalised (``normalize.py``) and scanned once by a ``pyahocorasick`` automaton holding
every surface key. A hit is accepted when:

- it is not glued to a letter or digit on either side: "EGFR" is not found in "VEGFR", "MET" not
  in "metastatic", "IL-6" not in "IL-60";
- digits may follow only an entity whose rules say ``digit_suffix`` (a family such as VEGFR, FGFR,
  PARP, BRCA): the digits, with ``-`` or ``/`` ranges, join the match ("VEGFR1-3", "BRCA1/2");
- a guarded candidate (an ambiguous short symbol that is a common word: CAT, SET, MET) is written
  in upper case in the original text, or exactly as in the source ("cAMP"), or, for a gene, is
  next to a gene context word ("CAT gene", "met mutation"; "a set of genes" is not).

Overlapping entity hits are resolved longest first (then leftmost, then curated before compiled,
then the better candidate): "VEGFR1-3" is the curated VEGFR family, and for "VEGFR1" (a tie with
the HGNC alias of FLT1) the curated entity wins. A curated entity inside a longer compiled match is
reported as well, nested ("PD-1 inhibitor": the MeSH class and PD-1; "small cell lung cancer": the
DO disease and lung cancer), so curated pathways and related drugs are never lost. Entity keywords
fill the gaps. Spans are offsets into the original text, end exclusive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

import ahocorasick

from eagle_rag_biomed.ontology.index import Candidate, Entity, OntologyIndex
from eagle_rag_biomed.ontology.normalize import normalize_with_offsets
from eagle_rag_biomed.ontology.rules import EntityType

_DIGIT_SUFFIX = re.compile(r"-?\d+(?:[-/]\d+)*")
_WORD = re.compile(r"[a-z0-9]+")
CONTEXT_WINDOW = 1


@dataclass(frozen=True, slots=True)
class EntityMatch:
    """One entity found in a text: ``span`` are (start, end) offsets of the original text."""

    canonical: str
    type: EntityType
    cui: str
    span: tuple[int, int]
    text: str
    source: str
    entity: Entity = field(compare=False, repr=False)


def _layer(candidate: Candidate) -> int:
    """Curated entities (0), compiled and UMLS ones (1), keywords (2)."""
    if candidate.entity.type is EntityType.KEYWORD:
        return 2
    return 0 if candidate.curated else 1


def _upper(original: str) -> bool:
    letters = [ch for ch in original if ch.isalpha()]
    return bool(letters) and all(ch.isupper() for ch in letters)


class _Hit(NamedTuple):
    start: int
    end: int
    layer: int
    candidate: Candidate


def _greedy(hits: list[_Hit], taken: bytearray) -> list[_Hit]:
    """Longest first, then leftmost, then curated, then the better candidate; no overlaps."""
    chosen: list[_Hit] = []
    for hit in sorted(hits, key=lambda h: (h.start - h.end, h.start, h.layer, h.candidate.rank)):
        if not any(taken[hit.start:hit.end]):
            taken[hit.start:hit.end] = b"\x01" * (hit.end - hit.start)
            chosen.append(hit)
    return chosen


def _resolve(hits: list[_Hit], size: int) -> list[_Hit]:
    """Entities longest-match-wins; curated entities inside a longer compiled match; keywords in gaps."""
    taken = bytearray(size + 1)
    chosen = _greedy([h for h in hits if h.layer < 2], taken)
    outer = [h for h in chosen if h.layer == 1]
    inner = [h for h in hits if h.layer == 0 and h not in chosen
             and any(o.start <= h.start and h.end <= o.end for o in outer)]
    chosen += _greedy(inner, bytearray(size + 1))
    chosen += _greedy([h for h in hits if h.layer == 2], taken)
    return sorted(chosen, key=lambda h: (h.start, h.start - h.end))


class EntityMatcher:
    """Aho-Corasick automaton over an :class:`OntologyIndex`; build once, match many times."""

    def __init__(self, index: OntologyIndex, gene_context_words: frozenset[str]) -> None:
        self.index = index
        self.gene_context_words = gene_context_words
        self._lengths = [len(key) for key in index.keys]
        automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
        for slot, key in enumerate(index.keys):
            automaton.add_word(key, slot)
        if index.keys:
            automaton.make_automaton()
        self._automaton = automaton

    def match(self, text: str) -> list[EntityMatch]:
        """Entities in ``text`` ordered by start (an outer match before a nested one)."""
        if not text or not self._lengths:
            return []
        norm, origin = normalize_with_offsets(text)
        hits: list[_Hit] = []
        for last, slot in self._automaton.iter(norm):
            start = last - self._lengths[slot] + 1
            if start > 0 and norm[start - 1].isalnum():
                continue
            accepted = self._accept(text, norm, origin, start, last + 1, self.index.candidates(slot))
            if accepted is not None:
                end, candidate = accepted
                hits.append(_Hit(start, end, _layer(candidate), candidate))
        chosen = _resolve(hits, len(norm))
        return [self._to_match(text, origin, hit.start, hit.end, hit.candidate) for hit in chosen]

    def _accept(self, text: str, norm: str, origin: list[int], start: int, end: int,
                candidates: list[Candidate]) -> tuple[int, Candidate] | None:
        """The best candidate whose boundary and guard rules pass, with its (possibly longer) end.

        Candidates are tried best first. Among those of the same source rank, one written exactly as
        in the text wins ("PrP" the prion protein alias, not the drug "PRP"); one that passes its guard
        only through a gene context word yields to any that needs no guard or matches its form.
        """
        following = norm[end] if end < len(norm) else ""
        strong: tuple[int, Candidate] | None = None
        fallback: tuple[int, Candidate] | None = None
        for candidate in candidates:
            if strong is not None and candidate.rank[0] != strong[1].rank[0]:
                break
            stop = end
            if following.isdigit():
                if not (candidate.curated and candidate.entity.digit_suffix and norm[end - 1].isalpha()):
                    continue
                suffix = _DIGIT_SUFFIX.match(norm, end)
                stop = suffix.end() if suffix else end
            if stop < len(norm) and norm[stop].isalnum():
                continue
            original = text[origin[start]:origin[stop - 1] + 1]
            if original == candidate.form:
                return stop, candidate
            if strong is None and (not candidate.guarded or _upper(original)):
                strong = (stop, candidate)
            elif fallback is None and candidate.guarded and self._gene_context(norm, start, stop, candidate):
                fallback = (stop, candidate)
        return strong or fallback

    def _gene_context(self, norm: str, start: int, end: int, candidate: Candidate) -> bool:
        if candidate.entity.type is not EntityType.GENE:
            return False
        before = _WORD.findall(norm[max(0, start - 64):start])[-CONTEXT_WINDOW:]
        after = _WORD.findall(norm[end:end + 64])[:CONTEXT_WINDOW]
        return any(word in self.gene_context_words for word in (*before, *after))

    @staticmethod
    def _to_match(text: str, origin: list[int], start: int, end: int, candidate: Candidate) -> EntityMatch:
        begin, finish = origin[start], origin[end - 1] + 1
        entity = candidate.entity
        return EntityMatch(entity.canonical, entity.type, entity.cui, (begin, finish), text[begin:finish],
                           entity.source, entity)

"""The narrow synonym file: loading, rule checking, and finding synonym phrases in a query.

A phrase of the query that is a term of a group (longest first, non-overlapping; Latin terms match
by stemmed word sequence, Chinese terms as substrings) yields alternative queries in which that
phrase is replaced by another term of its group. The rules the file must keep are checked by
:func:`eagle_rag_datasets.catalog.synonym_rules.validate_synonym_doc` (at load time and in the tests).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from eagle_rag.plugin_api.text import analyze, normalize
from eagle_rag_datasets.catalog.synonym_rules import validate_synonym_doc
from eagle_rag_datasets.errors import DatasetsError

DEFAULT_SYNONYMS = Path(__file__).parents[1] / "data" / "synonyms.yaml"
_LATIN_TOKEN = re.compile(r"[0-9a-z\u00df-\u024f]+(?:[-_./+][0-9a-z\u00df-\u024f]+)*")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+")


class SynonymFileError(DatasetsError):
    """The synonym file breaks one of its rules."""

    code = "invalid_synonyms"


@dataclass(frozen=True)
class SynonymGroup:
    id: str
    kind: str
    source: str
    origin: str
    en: tuple[str, ...]
    zh: tuple[str, ...]

    @property
    def terms(self) -> tuple[str, ...]:
        return self.en + self.zh


@dataclass(frozen=True)
class SynonymSpan:
    """A phrase of the (normalised) query that is a term of ``group``: ``text[start:end]``."""

    start: int
    end: int
    term: str
    group: SynonymGroup


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _token_key(token: str) -> str | None:
    """Lower-case, unstemmed, singular: close enough for plurals, and "medical" != "medication"."""
    terms = analyze(token, stem=False)
    return _singular(terms[0]) if terms else None


def phrase_keys(term: str) -> set[tuple[str, ...]]:
    """Stemmed word sequences a Latin term matches; hyphenated words also as parts and joined."""
    tokens = _LATIN_TOKEN.findall(normalize(term))
    whole = [k for k in (_token_key(t) for t in tokens) if k]
    spread: list[str] = []
    joined: list[str] = []
    for token in tokens:
        terms = [_singular(t) for t in analyze(token, stem=False)]
        if len(terms) > 1:
            spread.extend(terms[2:])
            joined.append(terms[1])
        elif terms:
            spread.append(terms[0])
            joined.append(terms[0])
    return {tuple(k) for k in (whole, spread, joined) if k}


@dataclass(frozen=True)
class SynonymSet:
    """The loaded synonym file, with lookup tables for phrase detection."""

    version: str
    groups: tuple[SynonymGroup, ...]
    latin: Mapping[tuple[str, ...], tuple[str, SynonymGroup]] = field(repr=False)
    cjk: tuple[tuple[str, SynonymGroup], ...] = field(repr=False)
    max_words: int = 1

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> SynonymSet:
        groups = tuple(
            SynonymGroup(str(g["id"]), str(g["kind"]), str(g["source"]), str(g.get("origin", "curated")),
                          tuple(str(t) for t in g.get("en") or ()), tuple(str(t) for t in g.get("zh") or ()))
            for g in doc["groups"]
        )
        latin: dict[tuple[str, ...], tuple[str, SynonymGroup]] = {}
        cjk: list[tuple[str, SynonymGroup]] = []
        for group in groups:
            for term in group.en:
                for key in phrase_keys(term):
                    latin.setdefault(key, (term, group))
            cjk.extend((normalize(term), group) for term in group.zh)
        cjk.sort(key=lambda item: -len(item[0]))
        longest = max((len(k) for k in latin), default=1)
        return cls(str(doc["version"]), groups, latin, tuple(cjk), longest)

    def find(self, text: str) -> list[SynonymSpan]:
        """Synonym phrases in normalised query ``text``: longest first, never overlapping."""
        spans: list[SynonymSpan] = []
        tokens = [(m.start(), m.end(), _token_key(m.group(0))) for m in _LATIN_TOKEN.finditer(text)]
        tokens = [(s, e, k) for s, e, k in tokens if k]
        taken = [False] * len(tokens)
        for size in range(min(self.max_words, len(tokens)), 0, -1):
            for i in range(len(tokens) - size + 1):
                if any(taken[i:i + size]):
                    continue
                hit = self.latin.get(tuple(t[2] for t in tokens[i:i + size]))  # type: ignore[misc]
                if hit:
                    spans.append(SynonymSpan(tokens[i][0], tokens[i + size - 1][1], hit[0], hit[1]))
                    taken[i:i + size] = [True] * size
        for run in _CJK_RUN.finditer(text):
            used = [False] * len(run.group(0))
            for term, group in self.cjk:
                start = run.group(0).find(term)
                while start >= 0:
                    if not any(used[start:start + len(term)]):
                        used[start:start + len(term)] = [True] * len(term)
                        begin = run.start() + start
                        spans.append(SynonymSpan(begin, begin + len(term), term, group))
                    start = run.group(0).find(term, start + 1)
        return sorted(spans, key=lambda s: s.start)

    def alternatives(self, text: str, spans: list[SynonymSpan], limit: int = 24) -> Iterator[
        list[tuple[str, str]]
    ]:
        """Alternative queries as fragments ``(text, origin)``; origin ``synonym:GROUP:TERM`` marks
        a substituted phrase. First each span alone, then all spans together."""
        choices = []
        for span in spans:
            own = phrase_keys(span.term) if not _CJK_RUN.fullmatch(span.term) else {(span.term,)}
            alts = [t for t in span.group.terms
                    if (phrase_keys(t) if not _CJK_RUN.fullmatch(normalize(t)) else {(normalize(t),)}) != own]
            span_cjk = bool(_CJK_RUN.fullmatch(span.term))
            alts.sort(key=lambda t: (bool(_CJK_RUN.fullmatch(normalize(t))) == span_cjk, len(t)))
            choices.append(alts)
        count = 0
        combos: list[tuple[int, ...]] = [(i,) for i in range(len(spans))]
        if len(spans) > 1:
            combos.append(tuple(range(len(spans))))
        for combo in combos:
            for picks in itertools.product(*(choices[i] for i in combo)):
                if count >= limit:
                    return
                count += 1
                yield _fragments(text, [(spans[i], pick) for i, pick in zip(combo, picks, strict=True)])


def _fragments(text: str, replaced: list[tuple[SynonymSpan, str]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    cursor = 0
    for span, alt in sorted(replaced, key=lambda item: item[0].start):
        out.append((text[cursor:span.start], ""))
        out.append((normalize(alt), f"synonym:{span.group.id}:{span.term}"))
        cursor = span.end
    out.append((text[cursor:], ""))
    return [f for f in out if f[0].strip()]


@lru_cache(maxsize=8)
def load_synonyms(path: str | None = None) -> SynonymSet:
    """Load and check a synonym file (the bundled one by default). Raises :class:`SynonymFileError`."""
    file = Path(path) if path else DEFAULT_SYNONYMS
    doc = yaml.safe_load(file.read_text(encoding="utf-8"))
    problems = validate_synonym_doc(doc)
    if problems:
        raise SynonymFileError(f"{file}: {len(problems)} rule violation(s): " + "; ".join(problems[:5]),
                               {"path": str(file), "problems": problems})
    return SynonymSet.from_doc(doc)

"""The one analyzer: text to terms, for the lexical index and for queries alike.

Rules (DESIGN.md section 4):

* NFKC folding (full-width forms become ASCII), Latin diacritics stripped, lower-cased.
* A word joined by hyphens, underscores, dots or slashes is kept whole ("pd-1", "vegfr1-3",
  "d-001234"), also as one joined term ("pd1", "bc5cdr") so hyphen, underscore and case variants
  of a name meet, and as its parts ("pd", "1").
* Plain English words lose stop words and are stemmed (Snowball English); words with digits or
  inner symbols are never stemmed.
* A SMILES string ("CC(=O)Oc1ccccc1C(=O)O") is kept whole as well as split, so a structure typed as
  a query meets the record that spells it: a whitespace-delimited token of SMILES characters with a
  double or triple bond, a bracket atom, or a branch and a ring digit; balanced brackets; outside
  brackets, only organic-subset element letters.
* Chinese (and other CJK) runs become adjacent character bigrams; a run of one character stays a
  unigram. No dictionary.

``analyze`` is deterministic and idempotent on its own output: analysing the joined terms of a
text gives the same set of terms back (property-tested).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

import Stemmer

_STOP_WORDS = frozenset(
    """
    a an and are as at be been but by for from has have if in into is it its of on or such that the
    their then there these they this to was were which will with we our not no can may than those
    also been being both do does did how what when where who whom why i you he she them his her
    """.split()  # noqa: SIM905 - a word list reads best as text
)

_CJK = (
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
)
_CJK_RUN = re.compile(f"[{_CJK}]+")
# A Latin/digit word, optionally joined to more by - _ . / (a symbol such as PD-1 or VEGFR1-3).
_WORD = re.compile(r"[0-9a-z\u00df-\u024f]+(?:[-_./+][0-9a-z\u00df-\u024f]+)*")
_SPLIT = re.compile(r"[-_./+]")
_SEGMENT = re.compile(f"([{_CJK}]+)")
# SMILES, after normalize() lower-cased it: bracket atoms, organic-subset letters, bonds, ring digits.
# A whole whitespace-delimited token (trailing sentence punctuation allowed), found in one scan.
_SMILES = re.compile(r"(?<!\S)(?=[bcnopsfi\[])(?:\[[0-9a-z@+\-#:]+\]|br|cl|[bcnopsfi]|[0-9%()=#$/\\.+\-@*:]){6,}"
                     r"(?=[.,;:]*(?:\s|$))")
_SMILES_SIGN = re.compile(r"[=#\[]|\(.*[0-9]|[0-9].*\(")  # a bond, a bracket atom, or a branch and a ring digit

_stemmer = Stemmer.Stemmer("english")


def normalize(text: str) -> str:
    """NFKC fold, strip Latin diacritics, lower-case, unify dashes. Idempotent."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("\u2010", "-").replace("\u2011", "-").replace("\u2012", "-")
    text = text.replace("\u2013", "-").replace("\u2014", "-").replace("\u2212", "-")
    decomposed = unicodedata.normalize("NFD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c) or _is_cjk(c))
    return unicodedata.normalize("NFC", stripped).lower()


def _is_cjk(char: str) -> bool:
    return bool(_CJK_RUN.fullmatch(char))


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return str(_stemmer.stemWord(word))


def _latin_terms(segment: str, stem: bool) -> Iterator[str]:
    for match in _WORD.finditer(segment):
        word = match.group(0).strip("._/+-")
        if not word:
            continue
        parts = [p for p in _SPLIT.split(word) if p]
        if len(parts) > 1:
            yield word
            yield "".join(parts)
            for part in parts:
                if part not in _STOP_WORDS:
                    yield part
            continue
        if word in _STOP_WORDS:
            continue
        if stem and word.isalpha():
            yield _stem(word)
        else:
            yield word


def _smiles_terms(segment: str) -> Iterator[str]:
    """Whole SMILES tokens of ``segment`` (see the module docstring); their parts come from the word rule."""
    for match in _SMILES.finditer(segment):
        token = match.group(0).rstrip(".,;:")
        if (len(token) >= 6 and _SMILES_SIGN.search(token)
                and token.count("(") == token.count(")") and token.count("[") == token.count("]")):
            yield token


def _cjk_terms(run: str) -> Iterator[str]:
    if len(run) == 1:
        yield run
        return
    for i in range(len(run) - 1):
        yield run[i : i + 2]


def analyze(text: str, stem: bool = True) -> list[str]:
    """Return the terms of ``text`` in order (duplicates kept: they are term frequencies)."""
    out: list[str] = []
    for segment in _SEGMENT.split(normalize(text)):
        if not segment:
            continue
        if _CJK_RUN.fullmatch(segment):
            out.extend(_cjk_terms(segment))
        else:
            out.extend(_smiles_terms(segment))
            out.extend(_latin_terms(segment, stem))
    return out


def analyze_query(text: str, stem: bool = True) -> list[str]:
    """Distinct query terms in first-seen order (same rules as :func:`analyze`)."""
    return list(dict.fromkeys(analyze(text, stem)))


def compact_name(text: str) -> str:
    """A name key that unifies hyphen, underscore, space, dot, case and width variants.

    ``compact_name("BC5-CDR") == compact_name("bc5cdr") == compact_name("BC5 CDR") == "bc5cdr"``.
    """
    return re.sub(rf"[^0-9a-z\u00df-\u024f{_CJK}]+", "", normalize(text))


def cjk_ratio(text: str) -> float:
    """Share of CJK characters among the letters of ``text`` (0.0 when it has no letters).

    Digits, punctuation and symbols are script-neutral: "10个月宝宝" is all CJK.
    """
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    return sum(1 for c in letters if _is_cjk(c)) / len(letters)

"""Phrase proximity: how many adjacent query words also stand next to each other in the card.

A tie-breaker inside a ranking tier (after coverage): "medical question pairs" prefers the card
saying "Medical Question Pairs" over one saying "medical question and answer pairs". Checks are
adjacent Latin word pairs of the query (stop words and filler words dropped, the second word in
singular form so "question pairs" also finds "question pair") and every Chinese run of three or
more characters, each looked up verbatim in the card's flattened text. See docs/datasets.md, section 6.
"""

from __future__ import annotations

import re

from eagle_rag.plugin_api.text import analyze, normalize
from eagle_rag_datasets.catalog.cards import DatasetCard
from eagle_rag_datasets.search.units import FILLER_TERMS, ParsedQuery

_NON_WORD = re.compile(r"[^0-9a-z\u00df-\u024f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def fold(text: str) -> str:
    """``text`` lower-cased with every run of non-word characters turned into one space, padded by spaces."""
    return " " + _NON_WORD.sub(" ", normalize(text)).strip() + " "


def flat_text(card: DatasetCard) -> str:
    """The card's text (name, aliases, descriptions, tags, tasks) through :func:`fold`."""
    return fold(" ".join([card.name, *card.aliases, card.description, card.description_zh, *card.tags,
                          *(t.replace("_", " ") for t in card.tasks)]))


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def phrase_checks(query: ParsedQuery) -> list[str]:
    """The strings whose presence in a card counts as proximity (see the module docstring)."""
    words = [t for t in query.tokens if analyze(t) and analyze(t)[0] not in FILLER_TERMS]
    words = [_NON_WORD.sub(" ", w).strip() for w in words]
    checks = [f" {a} {_singular(b)}" for a, b in zip(words, words[1:], strict=False) if a and b]
    checks += [u.text for u in query.units if u.kind == "cjk" and len(u.text) >= 3]
    return checks


def proximity(checks: list[str], text: str) -> float:
    """Share of ``checks`` found in ``text`` (0.0 when there are none)."""
    if not checks:
        return 0.0
    return sum(1 for check in checks if check in text) / len(checks)

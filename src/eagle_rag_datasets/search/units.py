"""A query as a list of units: the "terms" whose matches are counted.

A Latin word is one unit (a hyphenated symbol such as ``BC5-CDR`` too: it matches through its
whole form, its joined form, or all of its parts). A run of Chinese characters is one unit whose
match is fractional: the share of its characters covered by query bigrams that occur in the card,
so "中医问答" matches a card holding "中医" and "问答" apart, and a phrase not found verbatim still
matches a card holding all of its bigrams. A Chinese unit weighs about one per two characters.

Generic catalogue words ("dataset", "corpus", "benchmark", "medical", "数据集", "医学"...) are soft:
they add to the score but are not required, because nearly every card of a biomedical catalog
has them; filler words ("find", "请", "的") are dropped. A query of only soft words requires them.
See docs/datasets.md, section 4.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from eagle_rag.plugin_api.text import analyze, compact_name, normalize

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]+|[0-9a-z\u00df-\u024f]+(?:[-_./+][0-9a-z\u00df-\u024f]+)*")
_CJK_RUN = re.compile(rf"[{_CJK}]+")

_GENERIC_EN = (
    "dataset datasets data corpus corpora benchmark benchmarks collection database resource medical biomedical"
)
_FILLER_EN = (
    "find look looking need want show list give get available please recommend suggest any some about "
    "regarding license licence licensing homepage download"
)
GENERIC_TERMS = frozenset(t for w in _GENERIC_EN.split() for t in analyze(w))
FILLER_TERMS = frozenset(t for w in _FILLER_EN.split() for t in analyze(w))
# Longest first: optional spans inside a Chinese run.
GENERIC_ZH = ("生物医学", "数据集", "数据库", "语料库", "评测集", "语料", "数据", "基准", "医学", "医疗")
FILLER_ZH = ("有没有", "帮我", "查找", "搜索", "推荐", "哪些", "什么", "一些", "相关", "有关", "关于",
             "请", "找", "的", "和", "与", "及", "或")


@dataclass(frozen=True)
class Unit:
    """One query unit. ``forms``: any one matches; ``parts``: all must match (Latin symbols).

    ``required``: per character of a Chinese run, whether it counts. ``token``: position of the
    Latin token in :attr:`ParsedQuery.tokens` (-1 for Chinese runs). ``origin`` marks units
    substituted by a synonym or typo expansion (their match is mandatory in that expansion);
    ``words`` are the name words a misspelt unit was corrected to.
    """

    text: str
    kind: str  # "latin" | "cjk"
    forms: tuple[str, ...] = ()
    parts: tuple[str, ...] = ()
    required: tuple[bool, ...] = ()
    soft: bool = False
    token: int = -1
    origin: str = ""
    words: tuple[str, ...] = ()  # typo corrections: name/alias/id words that stand for this unit
    scale: float = 1.0  # a synonym carries the weight of the phrase it replaces

    @property
    def weight(self) -> float:
        base = 1.0 if self.kind == "latin" else float(max(1, (sum(self.required) + 1) // 2))
        return base * self.scale

    @property
    def bigrams(self) -> tuple[str, ...]:
        return tuple(self.text[i:i + 2] for i in range(len(self.text) - 1))


@dataclass(frozen=True)
class ParsedQuery:
    """Units plus the Latin token sequence (for joins) and the exact-match keys of the query."""

    text: str
    units: tuple[Unit, ...]
    tokens: tuple[str, ...]
    keys: tuple[str, ...]

    @property
    def required(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if not u.soft)

    @property
    def soft(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.soft)


def _optional_mask(run: str) -> tuple[bool, ...]:
    required = [True] * len(run)
    for word in (*GENERIC_ZH, *FILLER_ZH):
        start = run.find(word)
        while start >= 0:
            for i in range(start, start + len(word)):
                required[i] = False
            start = run.find(word, start + len(word))
    return tuple(required)


def _strip_generic(run: str) -> str:
    """Drop generic words at the start or end of a run ("糖尿病数据集" -> "糖尿病"), for exact keys."""
    original, changed = run, True
    while changed and run:
        changed = False
        for word in (*GENERIC_ZH, *FILLER_ZH):
            if run != word and run.endswith(word):
                run, changed = run[: -len(word)], True
            elif run != word and run.startswith(word):
                run, changed = run[len(word):], True
    return run if len(run) >= 2 else original


def _latin_unit(token: str, position: int) -> Unit | None:
    terms = analyze(token)
    if not terms:
        return None
    if len(terms) == 1:
        if terms[0] in FILLER_TERMS:
            return None
        return Unit(token, "latin", forms=(terms[0],), soft=terms[0] in GENERIC_TERMS, token=position)
    whole, joined, *parts = terms
    return Unit(token, "latin", forms=(whole, joined), parts=tuple(parts), token=position)


def _scan(norm: str, origin: str, first_token: int) -> tuple[list[Unit], list[str], list[str]]:
    units: list[Unit] = []
    tokens: list[str] = []
    stripped: list[str] = []
    for match in _TOKEN.finditer(norm):
        token = match.group(0)
        if _CJK_RUN.fullmatch(token):
            mask = _optional_mask(token)
            soft = not any(mask) and not origin
            required = mask if any(mask) else (True,) * len(token)
            units.append(Unit(token, "cjk", required=required, soft=soft, origin=origin))
            stripped.append(_strip_generic(token))
            continue
        unit = _latin_unit(token, first_token + len(tokens))
        tokens.append(token)
        if unit is not None:
            units.append(replace(unit, origin=origin, soft=unit.soft and not origin))
            if not unit.soft:
                stripped.append(token)
    return units, tokens, stripped


def compose_query(fragments: list[tuple[str, str]]) -> ParsedQuery:
    """A query from ``(text, origin)`` fragments; units of a fragment with an origin are marked.

    Used for synonym and typo alternatives: a substituted phrase is never soft, and the units of a
    synonym (origin ``synonym:GROUP:TERM``) together weigh what the replaced ``TERM`` weighed, so
    coverage stays comparable ("word segmentation" -> "分词" keeps a weight of two).
    """
    units: list[Unit] = []
    tokens: list[str] = []
    stripped: list[str] = []
    for text, origin in fragments:
        more_units, more_tokens, more_stripped = _scan(normalize(text), origin, len(tokens))
        if origin.startswith("synonym:") and more_units:
            replaced, _, _ = _scan(normalize(origin.split(":", 2)[2]), "", 0)
            target = sum(u.weight for u in replaced if not u.soft) or 1.0
            scale = target / (sum(u.weight for u in more_units) or 1.0)
            more_units = [replace(u, scale=scale) for u in more_units]
        units += more_units
        tokens += more_tokens
        stripped += more_stripped
    if units and all(u.soft for u in units):
        units = [replace(u, soft=False) for u in units]
    norm = " ".join(normalize(t) for t, _ in fragments)
    keys = tuple(dict.fromkeys(k for k in (compact_name(norm), compact_name(" ".join(stripped))) if k))
    return ParsedQuery(text=norm, units=tuple(units), tokens=tuple(tokens), keys=keys)


def parse_query(text: str) -> ParsedQuery:
    """Split a query into units (see the module docstring)."""
    return compose_query([(text, "")])

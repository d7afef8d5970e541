"""Card text to terms, per field group, and the postings every engine and the matcher share.

Two field groups, analysed with the shared analyzer (:mod:`eagle_rag.analysis`) so that index
and query agree: ``title`` (name, aliases, id and the id's last segment, plus a camel-case split
of names such as ``CmedqaRetrieval`` -> ``Cmedqa Retrieval``) and ``body`` (description(s),
tags, tasks, language names). ``chars`` holds every CJK character, for one-character queries. ``words`` holds
unstemmed words and compact names, which adjacent query words are joined against
("BC5 CDR" -> ``bc5cdr``), and which typo tolerance searches. See docs/datasets.md, section 3.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from eagle_rag.plugin_api.text import analyze, compact_name, normalize
from eagle_rag_datasets.catalog.cards import DatasetCard
from eagle_rag_datasets.catalog.kinds import host_named, own_names

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NAME_YEAR = re.compile(r"\b([A-Za-z]{2,})(\d{2,})\b")
_JOINED = re.compile(r"[-_./+]")
_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")


def camel_split(name: str) -> str:
    """``"CmedqaRetrieval"`` -> ``"Cmedqa Retrieval"``, ``"CCKS2017"`` -> ``"CCKS 2017"`` (a name
    followed by a year or version of two or more digits); other names unchanged."""
    return _NAME_YEAR.sub(r"\1 \2", _CAMEL.sub(" ", name))


def card_terms(text: str) -> list[str]:
    """The analyzer's terms plus the stems of the parts of joined words.

    The shared analyzer keeps the parts of "neurology/psychiatry" unstemmed; a query for
    "neurology" is stemmed, so the stemmed parts are added on the card side.
    """
    terms = analyze(text)
    extra = [stem for term in terms if _JOINED.search(term)
             for part in _JOINED.split(term) if part for stem in analyze(part) if stem != part]
    return terms + extra


def id_tail(card_id: str) -> str:
    """The last ``/`` segment of an id (``bigbio/bc5cdr`` -> ``bc5cdr``)."""
    return card_id.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class CardTerms:
    """The analysed fields of one card."""

    title: tuple[str, ...]
    body: tuple[str, ...]
    chars: frozenset[str]
    title_words: frozenset[str]
    words: frozenset[str]
    keys: tuple[tuple[str, str], ...]  # (compact key, "name" | "id" | "alias")


def title_parts(card: DatasetCard) -> list[str]:
    names = own_names(card)
    parts = [*names, card.id, id_tail(card.id)]
    for text in names:
        split = camel_split(text)
        if split != text:
            parts.append(split)
    return parts


_LANGUAGE_NAMES = {"zh": "Chinese 中文", "en": "English 英文", "es": "Spanish", "de": "German", "fr": "French",
                   "vi": "Vietnamese", "ja": "Japanese", "ko": "Korean", "nl": "Dutch", "pt": "Portuguese"}


_URL_PARTS = re.compile(r"[/_\-.?=#&:~+]+")
_URL_NOISE = frozenset(" ".join((
    "http https www com org net edu gov io co cn uk de fr html htm php aspx index main master tree blob abs pdf",
    "record records content datasets dataset sites view details")).split())


def homepage_words(url: str | None) -> str:
    """The words of a homepage address: its host's labels and its path's segments, split at punctuation,
    without the scheme, ``www``, top-level domains and generic path words ("https://physionet.org/content/mednli/"
    -> "physionet mednli"; "http://openkg.cn/dataset/x" -> "openkg x")."""
    if not url:
        return ""
    return " ".join(w for w in _URL_PARTS.split(url) if len(w) >= 2 and w.lower() not in _URL_NOISE)


def body_parts(card: DatasetCard) -> list[str]:
    """Description(s), tags, tasks, and the card's languages by name (so "Chinese" finds Chinese cards)."""
    languages = sorted({_LANGUAGE_NAMES.get(code, "") for code in card.language_codes} - {""})
    return [card.description, card.description_zh, *card.tags, *(t.replace("_", " ") for t in card.tasks),
            *languages]


def _words(parts: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for part in parts:
        out.update(analyze(part, stem=False))
        key = compact_name(part)
        if key:
            out.add(key)
    return out


def analyze_card(card: DatasetCard) -> CardTerms:
    """Analyse one card into its field groups."""
    titles, bodies = title_parts(card), body_parts(card)
    title = tuple(t for part in titles for t in card_terms(part))
    body = tuple(t for part in bodies if part for t in card_terms(part))
    chars = frozenset(_CJK_CHAR.findall(normalize(" ".join(titles + bodies))))
    title_words = _words(titles)
    keys = [(compact_name(card.name), "name")] if not host_named(card) else []
    keys += [(compact_name(card.id), "id"), (compact_name(id_tail(card.id)), "id")]
    keys += [(compact_name(alias), "alias") for alias in card.aliases]
    return CardTerms(
        title=title, body=body, chars=chars, title_words=frozenset(title_words),
        words=frozenset(title_words | _words(p for p in bodies if p)),
        keys=tuple((k, kind) for k, kind in dict.fromkeys(keys) if k),
    )


@dataclass
class TermIndex:
    """Postings over a list of cards (ordinals are positions in that list)."""

    size: int = 0
    title_tf: dict[str, dict[int, int]] = field(default_factory=dict)
    body_tf: dict[str, dict[int, int]] = field(default_factory=dict)
    title_len: list[int] = field(default_factory=list)
    body_len: list[int] = field(default_factory=list)
    chars: dict[str, set[int]] = field(default_factory=dict)
    title_words: dict[str, set[int]] = field(default_factory=dict)
    words: dict[str, set[int]] = field(default_factory=dict)
    keys: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    _all_cache: dict[str, frozenset[int]] = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, analysed: Sequence[CardTerms]) -> TermIndex:
        title_tf: dict[str, dict[int, int]] = defaultdict(dict)
        body_tf: dict[str, dict[int, int]] = defaultdict(dict)
        chars: dict[str, set[int]] = defaultdict(set)
        title_words: dict[str, set[int]] = defaultdict(set)
        words: dict[str, set[int]] = defaultdict(set)
        keys: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for ordinal, terms in enumerate(analysed):
            for term in terms.title:
                title_tf[term][ordinal] = title_tf[term].get(ordinal, 0) + 1
            for term in terms.body:
                body_tf[term][ordinal] = body_tf[term].get(ordinal, 0) + 1
            for char in terms.chars:
                chars[char].add(ordinal)
            for word in terms.title_words:
                title_words[word].add(ordinal)
            for word in terms.words:
                words[word].add(ordinal)
            for key, kind in terms.keys:
                keys[key].append((ordinal, kind))
        return cls(
            size=len(analysed), title_tf=dict(title_tf), body_tf=dict(body_tf),
            title_len=[len(t.title) for t in analysed], body_len=[len(t.body) for t in analysed],
            chars=dict(chars), title_words=dict(title_words), words=dict(words), keys=dict(keys),
        )

    def in_title(self, term: str) -> frozenset[int]:
        return frozenset(self.title_tf.get(term, ()))

    def in_any(self, term: str) -> frozenset[int]:
        cached = self._all_cache.get(term)
        if cached is None:
            cached = frozenset(self.title_tf.get(term, ())) | frozenset(self.body_tf.get(term, ()))
            if len(self._all_cache) < 100_000:
                self._all_cache[term] = cached
        return cached

    def known(self, term: str) -> bool:
        return term in self.title_tf or term in self.body_tf

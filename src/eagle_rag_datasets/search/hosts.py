"""Hosts and publishers named in a request that asks by homepage ("every corpus whose home page is on
SourceForge", "datasets hosted on uni-heidelberg.de", "GitHub 用户 GanjinZero 名下的仓库").

Cards seldom say where they are hosted; their homepage address does. When a request speaks of homepages,
hosting or who released the data (:data:`HOST_CUE`), or is a few words ("cambridgeltl datasets"; then no
bare acronym counts), each of its words that is a word of few
cards' homepage addresses (host labels and path segments, :func:`..catalog.terms.homepage_words`; at most
:data:`HOST_MAX` cards, so "github" or "huggingface" never count) names those cards: a name constraint that
drops nothing and ranks them first, as a named dataset does. After a negation ("excluding the ones hosted on
conservancy.umn.edu") it rules them out. The homepage's words are not card text: as text they also matched
requests that do not ask by host (docs/datasets.md, section 12).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from eagle_rag_datasets.search.constraints import SHORT_REQUEST, Constraint, ConstraintKind, negated_spans

HOST_CUE = re.compile(
    r"\b(?:home ?pages?|hosted|hosts|hosting|download pages?|"
    r"github (?:organi[sz]ations?|accounts?|users?|repos|repositor(?:y|ies))|(?:organi[sz]ation|account)s? on github|"
    r"released by|published by|point(?:s|ing)? to)\b|主页|托管|名下", re.IGNORECASE)
"""Words of a request that asks for cards by where they live or who released them."""
HOST_MAX = 20
"""The most cards a homepage word may name: a host of many cards (github, huggingface) names none."""
TEXT_MAX = 2
"""The most cards whose text may say a capitalised homepage word for it to name a host ("NCBI", "SourceForge"); a
word in small letters names one only when no card's text says it ("zenodo", "openbiocorpora", not "graph")."""
PATH_WORDS = frozenset({
    "api", "page", "pages", "site", "sites", "home", "index", "main", "docs", "doc", "project", "projects",
    "group", "groups", "resources", "resource", "static", "download", "downloads", "files", "file", "lab", "labs",
    "public", "open", "research", "software", "tools", "tool", "wiki", "blog", "news", "about", "team", "en", "zh",
    "cn", "data", "corpus", "corpora", "bilingual", "knowledge", "graph"
})
"""Words of homepage paths that are ordinary words of a request, never a host."""
ACRONYM = re.compile(r"[A-Z]{2,5}")
"""Capitals only: in a short request without a host cue, an acronym is a topic ("TCM"), not a host."""
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]{2,}")


def host_constraints(query: str, homepage_words: Mapping[str, frozenset[int]], everyone: frozenset[int],
                     text_cards: Callable[[str], int], name_cards: Callable[[str], frozenset[int]]) -> list[Constraint]:
    """The host constraints of ``query`` (none when it does not ask by homepage). ``homepage_words``: lower-cased
    homepage word -> the cards whose homepage holds it; ``everyone``: every card; ``text_cards(word)``: how
    many cards say the word in their text (a word many say, "biology", is a topic, not a host); ``name_cards(word)``:
    the cards whose name holds it as a word (a word of a card's name, "CBLUE", "BERT", names a dataset, which the
    name tiers find)."""
    cued = bool(HOST_CUE.search(query))
    if not cued and len(query.split()) > SHORT_REQUEST:
        return []
    ruled_out = negated_spans(query)
    found: dict[str, Constraint] = {}
    for match in _WORD.finditer(query):
        word = match.group().lower()
        cards = homepage_words.get(word, frozenset())
        if not cued and ACRONYM.fullmatch(match.group()):  # a short request: no bare acronym ("TCM 问答")
            continue
        said = text_cards(word)
        if (word in found or word in PATH_WORDS or not cards or len(cards) > HOST_MAX
                or said > (TEXT_MAX if match.group()[0].isupper() else 0) or name_cards(word)):
            continue
        if any(start <= match.start() < end for start, end in ruled_out):
            found[word] = Constraint(ConstraintKind.NAME, match.group(), f"a card not hosted at {match.group()}",
                                     everyone - cards, excluded=True)
        else:
            found[word] = Constraint(ConstraintKind.NAME, match.group(), match.group(), cards, cards)
    return list(found.values())

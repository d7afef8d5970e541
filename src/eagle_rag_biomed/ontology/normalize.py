"""Text normalisation shared by the vocabulary build, the automaton keys and the matched text.

One function family so that a surface form in the vocabulary and the same words in a query always
produce the same key: NFKC (full-width forms, ligatures), every dash variant folded to ``-``,
lower-casing, diacritics removed (``Cétuximab`` -> ``cetuximab``) and runs of white space collapsed
to one space. :func:`normalize_with_offsets` also returns, for every normalised character, the index
of the original character it came from, so that a match found on normalised text maps back to a
span of the original text.
"""

from __future__ import annotations

import re
import unicodedata

_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"), "-")
_ASCII_WS = str.maketrans("\t\n\r\f\v", "     ")
_WS_RUN = re.compile(r"\s{2,}|^\s|\s$")
_CHAR_CACHE: dict[str, str] = {}


def _fold(text: str) -> str:
    """NFKC, dash folding, lower-casing and diacritic removal, with no white-space handling."""
    if text.isascii():
        return text.lower()
    folded = unicodedata.normalize("NFKC", text).translate(_DASHES).lower()
    if folded.isascii():
        return folded
    return "".join(c for c in unicodedata.normalize("NFD", folded) if not unicodedata.combining(c))


def normalize_key(text: str) -> str:
    """The matching key of a surface form or query: folded, white space collapsed, stripped."""
    folded = _fold(text)
    return " ".join(folded.split())


def fast_key(text: str) -> str:
    """:func:`normalize_key` for text whose white space is already single spaces (compiled names)."""
    return text.lower() if text.isascii() else normalize_key(text)


def _fold_char(ch: str) -> str:
    cached = _CHAR_CACHE.get(ch)
    if cached is None:
        cached = " " if ch.isspace() else _fold(ch)
        if len(_CHAR_CACHE) < 65536:
            _CHAR_CACHE[ch] = cached
    return cached


def normalize_with_offsets(text: str) -> tuple[str, list[int]]:
    """Normalise ``text`` like :func:`normalize_key` (without stripping) and map offsets back.

    Returns ``(normalised, origin)`` where ``origin[i]`` is the index in ``text`` of the character
    that produced ``normalised[i]``; ``origin`` has one extra trailing element, ``len(text)``, so
    that an exclusive end offset maps back too. White-space runs become one space (mapped to the
    first white-space character of the run).
    """
    if text.isascii():
        lowered = text.lower().translate(_ASCII_WS)
        if not _WS_RUN.search(lowered):
            return lowered, list(range(len(text) + 1))
    chars: list[str] = []
    origin: list[int] = []
    previous_space = True  # drop leading white space like normalize_key's strip
    for index, ch in enumerate(text):
        folded = _fold_char(ch)
        if folded == " ":
            if previous_space:
                continue
            previous_space = True
        else:
            previous_space = False
        for out in folded:
            chars.append(out)
            origin.append(index)
    if chars and chars[-1] == " ":
        chars.pop()
        origin.pop()
    origin.append(len(text))
    return "".join(chars), origin


def is_word_char(ch: str) -> bool:
    """True for letters and digits (the characters that may not touch a match from outside)."""
    return ch.isalnum()

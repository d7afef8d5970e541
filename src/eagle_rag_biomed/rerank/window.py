"""The passage window the Tier-2 models read: the best few sentences, not the whole chunk.

A cross-encoder's cost grows faster than linearly with the tokens it reads (attention is quadratic
in the pair's length), so does the late-interaction model's when it encodes passages at query time,
and a claim or a question is usually answered by one or two sentences of an abstract. With
``tier2.window_chars`` > 0 both models read, for each candidate, the document name
(when ``tier2.with_name``) and then a window of at most that many characters of the chunk:

1. the chunk text is cut into sentences at ``. ! ?`` (and the Chinese full stops) followed by space,
   a cheap cut that is good enough to place a window (the sentence rows of the ingest use pysbd, which
   costs about 10 ms a passage: too slow for 30 passages per query);
2. each sentence scores the number of distinct query words it holds (lower-cased words of three or
   more letters, stop words left out, compared on their first five letters so "inhibits" meets
   "inhibition"); the best sentence wins, the earliest on a tie, the first when none matches;
3. the window grows from that sentence by whole sentences, the next one, then the one before, and
   so on, while the window stays within the budget; a best sentence longer than the budget is cut.

A chunk no longer than the budget is read whole. See docs/biomed.md, "Tier-2: the merged rerank".
"""

from __future__ import annotations

import re

__all__ = ["best_window", "query_stems", "split_for_window"]

_CUT = re.compile(r"(?<=[.!?。！？])\s+")
_WORD = re.compile(r"[^\W\d_]{3,}")
STEM = 5
_STOP_LIST = (
    "the and for with from that this these those are was were been being has have had not but its "
    "into than then also can may might will would should could does did such their there which who "
    "whom whose what when where why how all any each more most other some only own same very our "
    "your his her they them you she him via per upon"
)
STOP_WORDS = frozenset(_STOP_LIST.split())


def query_stems(query: str) -> frozenset[str]:
    """The query's content words, lower-cased, stop words out, cut to their first five letters."""
    return frozenset(w[:STEM] for w in _WORD.findall(query.lower()) if w not in STOP_WORDS)


def split_for_window(text: str) -> list[str]:
    """``text`` cut after sentence-ending punctuation followed by space; only the space at each cut
    (and around ``text``) is dropped, every other character is in exactly one piece."""
    return [piece for piece in _CUT.split(text.strip()) if piece]


def _score(sentence: str, stems: frozenset[str]) -> int:
    return len({w[:STEM] for w in _WORD.findall(sentence.lower())} & stems)


def best_window(text: str, stems: frozenset[str], budget: int) -> str:
    """The window of ``text`` for the query ``stems`` within ``budget`` characters (see the module)."""
    if budget <= 0 or len(text) <= budget:
        return text
    sentences = split_for_window(text)
    if not sentences:
        return text[:budget]
    scores = [_score(s, stems) for s in sentences]
    best = max(range(len(sentences)), key=lambda i: (scores[i], -i))
    if len(sentences[best]) >= budget:
        return sentences[best][:budget]
    first = last = best
    size = len(sentences[best])
    grown = True
    while grown:
        grown = False
        if last + 1 < len(sentences) and size + 1 + len(sentences[last + 1]) <= budget:
            last += 1
            size += 1 + len(sentences[last])
            grown = True
        if first > 0 and size + 1 + len(sentences[first - 1]) <= budget:
            first -= 1
            size += 1 + len(sentences[first])
            grown = True
    return " ".join(sentences[first : last + 1])

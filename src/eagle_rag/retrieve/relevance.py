"""The probability that a person would judge a hit relevant, from its score trail (issue 38).

One stage: :func:`features` turns what a hit's trail holds (each channel's rank, the best dense cosine,
the cross-encoder score and the Tier-2 components when they ran, the match kind, the hit's place in
the ranking) into a fixed vector; a :class:`RelevanceModel` (a logistic regression, fitted by :func:`fit`)
turns the vector into a probability. One model per (profile, mode), and optionally one per query kind
(:class:`QueryKind`: a question, a statement or claim, a Chinese query) within a mode, kept in a small
versioned JSON file (:class:`RelevanceParameters`): the one ``eagle-rag calibrate`` wrote into the data
folder (:data:`USER_FILE`) first, else the one the profile ships (the biomed plugin's data folder for
``biomed``, the core's for ``general``; hook ``eagle_relevance_parameters``). A profile and mode
without a fitted model give ``None``, never a made-up number.

Monotone features (:data:`MONOTONE`): a higher cross-encoder score, normalised cross-encoder or
late-interaction score, or dense cosine never lowers the probability, other things equal. :func:`fit`
enforces it with the bound ``w >= 0`` on their coefficients (those held at 0 are named in
``RelevanceModel.clipped``); :class:`RelevanceModel` refuses parameters that break the rule.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import isotonic_regression, minimize
from scipy.special import expit

from eagle_rag.analysis.language import Language, text_language
from eagle_rag.types import MatchKind, StageScore

FORMAT = 1
"""The version of the parameters file; a file of another version is refused."""
USER_FILE = "relevance.json"
"""The parameters ``eagle-rag calibrate`` writes into the data folder (they take precedence)."""
GENERAL_FILE = Path(__file__).resolve().parents[1] / "data" / "relevance_general.json"
"""The parameters the core ships for the ``general`` profile."""

FEATURES = ("position_log", "bm25_rr", "dense_rr", "sentence_rr", "cosine", "cross_encoder",
            "cross_encoder_ran", "ce_norm", "li_norm", "entity", "section", "exact_match")
"""The features, in vector order (see :func:`features`)."""
MONOTONE = ("cosine", "cross_encoder", "ce_norm", "li_norm")
"""Features whose coefficient may not be negative: more of them never lowers the probability."""
_CHANNELS = {"bm25": "bm25_rr", "dense": "dense_rr", "sentence": "sentence_rr"}
RANK_STAGE = "relevance_rank"
"""The trail entry of a hit that :func:`reorder` moved: its new rank, its probability, and ``from``, its place
before (the position the probability was computed at, and that :func:`features` reads back)."""
PRIOR_STAGE = "relevance_prior"
"""The trail entry of a candidate that the hybrid model ordered before a mode-full rerank (the setting
``search.full_relevance_prior``): its rank in that order, its probability, and ``from``, its fused place. Only
``explain`` reads it: the features of the final hit do not."""
_TIER2 = ("ce_norm", "li_norm", "entity", "section")


class QueryKind(StrEnum):
    """What a query asks, which sets how many relevant passages it tends to have: a question (several
    snippets answer it, as in BioASQ), a statement or claim (about one abstract supports it, as in SciFact)
    or a Chinese query (KUAKE's query-title pairs)."""

    QUESTION = "question"
    STATEMENT = "statement"
    CHINESE = "chinese"


_QUESTION_OPENINGS = frozenset((
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how",  # interrogatives
    "is", "are", "was", "were", "do", "does", "did", "can", "could", "should", "would", "will", "may", "might",
    "has", "have", "had",  # auxiliaries opening a yes/no question
    "list", "describe", "name", "explain", "please", "mention", "briefly", "give", "provide", "summarize",
    "summarise", "identify", "tell"))  # requests ("List the genes ...")
_QUESTION_ANYWHERE = re.compile(r"\b(?:what|how|please|yes\s+or\s+no)\b", re.IGNORECASE)


def query_kind(query: str) -> QueryKind:
    """:attr:`QueryKind.CHINESE` for a query in Chinese (:func:`~eagle_rag.analysis.language.text_language`);
    else a question when it ends with a question mark, opens with an interrogative word, an auxiliary or a
    request ("list", "describe", "please"), or says "what", "how", "please" or "yes or no" anywhere; else a
    statement."""
    text = query.strip()
    if text_language(text) is Language.ZH:
        return QueryKind.CHINESE
    first = text.split()[0].lower().strip("\"'(") if text else ""
    if text.endswith(("?", "\uff1f")) or first in _QUESTION_OPENINGS or _QUESTION_ANYWHERE.search(text):
        return QueryKind.QUESTION
    return QueryKind.STATEMENT


def model_key(mode: str, kind: QueryKind | None = None) -> str:
    """The key of a model in a parameters file: the mode (``hybrid``), or the mode and a query kind
    (``hybrid/statement``)."""
    return mode if kind is None else f"{mode}/{kind.value}"


class RelevanceParametersError(ValueError):
    """A parameters file that cannot be used (unreadable, another format, a broken monotone rule)."""


def features(trail: Sequence[StageScore], match: MatchKind, position: int) -> np.ndarray:
    """The feature vector of one hit (order :data:`FEATURES`); a stage that did not run gives 0.

    ``position`` is the hit's place in the final ranking (from 1): ``position_log`` is ``ln(position)``; for a
    hit :func:`reorder` moved (a :data:`RANK_STAGE` entry), its place before.
    ``*_rr`` is ``1 / rank`` in that first-stage channel; ``cosine`` the best dense or sentence cosine;
    ``cross_encoder`` the raw cross-encoder score (``cross_encoder_ran`` 1 when it scored the hit);
    ``ce_norm``, ``li_norm``, ``entity``, ``section`` the Tier-2 components (biomed); ``exact_match`` 1
    when every query term is in the passage. A stage ``skipped`` (e.g. for the language) counts as absent.
    """
    values = dict.fromkeys(FEATURES, 0.0)
    moved = next((e for e in trail if e.stage == RANK_STAGE), None)
    if moved is not None:  # ordered by the probability: it was computed at the place before
        position = int(moved.detail.get("from", position))
    values["position_log"] = math.log(max(position, 1))
    values["exact_match"] = 1.0 if match is MatchKind.EXACT else 0.0
    for entry in trail:
        if entry.skipped:
            continue
        name = _CHANNELS.get(entry.stage)
        if name is not None:
            values[name] = max(values[name], 1.0 / max(entry.rank, 1))
        if entry.stage in ("dense", "sentence"):
            values["cosine"] = max(values["cosine"], float(entry.score))
        elif entry.stage == "cross_encoder":
            values["cross_encoder"] = float(entry.score)
            values["cross_encoder_ran"] = 1.0
        elif entry.stage == "rerank_t2":
            for key in _TIER2:
                values[key] = float(entry.detail.get(key, 0.0))
    return np.array([values[name] for name in FEATURES], dtype=float)


@dataclass(frozen=True)
class RelevanceModel:
    """A fitted model on the raw features. Its score is ``z = intercept + sum(w_i * x_i)``; the probability
    is ``1 / (1 + exp(-z))``, or, with ``calibration`` (isotonic knots ``(z, p)``, ``z`` increasing, ``p``
    non-decreasing), ``p`` interpolated linearly between the knots at ``z`` (the end values beyond them)."""

    mode: str
    coefficients: Mapping[str, float]
    intercept: float
    fitted_on: str = ""
    samples: int = 0
    positives: int = 0
    clipped: tuple[str, ...] = ()
    calibration: tuple[tuple[float, float], ...] = ()
    rank_depth: int = 0
    """When above 0, the search orders its top ``rank_depth`` hits by this probability (:func:`reorder`);
    0, the default and what :func:`fit` writes, only annotates. Set by hand in a shipped file, and only
    where ordering by the probability measured better on a train split and was confirmed on test
    (``rank_note`` says by how much; issue 38, item 4)."""
    rank_note: str = ""
    rank_collections: tuple[str, ...] = ()
    """The collections whose hits the ordering may move (the ones the model was fitted on); the others keep
    their places. Empty: every hit."""

    def __post_init__(self) -> None:
        if self.rank_depth < 0:
            raise RelevanceParametersError(f"relevance model for mode {self.mode}: rank_depth must be >= 0")
        unknown = sorted(set(self.coefficients) - set(FEATURES))
        if unknown:
            raise RelevanceParametersError(f"relevance model for mode {self.mode}: unknown features {unknown}")
        negative = [n for n in MONOTONE if self.coefficients.get(n, 0.0) < 0]
        if negative:
            raise RelevanceParametersError(
                f"relevance model for mode {self.mode}: negative coefficient for monotone feature(s) "
                f"{', '.join(negative)} (a higher score would lower the probability); refit it")
        z, p = [k[0] for k in self.calibration], [k[1] for k in self.calibration]
        if any(b <= a for a, b in itertools.pairwise(z)) or any(b < a for a, b in itertools.pairwise(p)) or any(
                not 0.0 <= v <= 1.0 for v in p):
            raise RelevanceParametersError(f"relevance model for mode {self.mode}: the calibration knots must "
                                           "rise in z and not fall in p, within [0, 1]")

    def score(self, x: np.ndarray) -> float:
        """``z`` of one feature vector (order :data:`FEATURES`)."""
        weights = np.array([self.coefficients.get(n, 0.0) for n in FEATURES])
        return float(self.intercept + weights @ x)

    def probability(self, x: np.ndarray) -> float:
        """The probability of relevance of one feature vector (order :data:`FEATURES`)."""
        z = self.score(x)
        if self.calibration:
            return float(np.interp(z, [k[0] for k in self.calibration], [k[1] for k in self.calibration]))
        return float(expit(z))

    def to_dict(self) -> dict[str, Any]:
        out = {"coefficients": dict(self.coefficients), "intercept": self.intercept, "fitted_on": self.fitted_on,
               "samples": self.samples, "positives": self.positives, "clipped": list(self.clipped),
               "calibration": [list(k) for k in self.calibration]}
        return out | ({"rank_depth": self.rank_depth, "rank_note": self.rank_note,
                       "rank_collections": list(self.rank_collections)} if self.rank_depth else {})

    @classmethod
    def from_dict(cls, mode: str, data: Mapping[str, Any]) -> RelevanceModel:
        return cls(mode=mode, coefficients={str(k): float(v) for k, v in dict(data["coefficients"]).items()},
                   intercept=float(data["intercept"]), fitted_on=str(data.get("fitted_on", "")),
                   samples=int(data.get("samples", 0)), positives=int(data.get("positives", 0)),
                   clipped=tuple(data.get("clipped") or ()),
                   calibration=tuple((float(z), float(p)) for z, p in data.get("calibration") or ()),
                   rank_depth=int(data.get("rank_depth", 0)), rank_note=str(data.get("rank_note", "")),
                   rank_collections=tuple(str(c) for c in data.get("rank_collections") or ()))


def reorder(items: Sequence[Any], probabilities: Sequence[float], depth: int,
            movable: Sequence[bool] | None = None) -> list[Any]:
    """``items`` with the first ``depth`` sorted by ``probabilities`` (one per item, same order), highest
    first, among the places of the ``movable`` ones (all when None); the others keep their places, equal
    probabilities keep their order, and everything after ``depth`` stays as it is."""
    places = [i for i in range(min(depth, len(items))) if movable is None or movable[i]]
    out = list(items)
    for place, source in zip(places, sorted(places, key=lambda i: (-probabilities[i], i)), strict=True):
        out[place] = items[source]
    return out


@dataclass(frozen=True)
class RelevanceParameters:
    """The models of one profile, by :func:`model_key` (a mode, or a mode and a query kind), and where they
    came from. A mode's model orders the hits when it has a ``rank_depth``, and gives the probability of the
    queries of every kind without a model of their own; a kind's model only gives the probability (its
    ``rank_depth`` must be 0: the ordering was measured with the mode's model)."""

    profile: str
    models: Mapping[str, RelevanceModel] = field(default_factory=dict)
    source: str = ""

    def __post_init__(self) -> None:
        for key, model in self.models.items():
            mode, _, kind = key.partition("/")
            if kind and kind not in set(QueryKind):
                raise RelevanceParametersError(f"relevance model {key!r}: unknown query kind {kind!r} "
                                               f"(known: {', '.join(QueryKind)})")
            if kind and model.rank_depth:
                raise RelevanceParametersError(f"relevance model {key!r}: a query kind's model only annotates; "
                                               "rank_depth belongs to the mode's model")
            if kind and mode not in self.models:
                raise RelevanceParametersError(f"relevance model {key!r}: the file has no model of mode {mode!r}")

    def choice(self, mode: str, query: str) -> ModelChoice | None:
        """The models of ``mode`` for ``query``: the mode's own orders, its query kind's (else the mode's)
        gives the probability; None when the file has no model of ``mode``."""
        ranking = self.models.get(mode)
        if ranking is None:
            return None
        return ModelChoice(ranking, self.models.get(model_key(mode, query_kind(query)), ranking))

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "profile": self.profile,
                "models": {mode: m.to_dict() for mode, m in sorted(self.models.items())}}

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")


def load_parameters(path: Path) -> RelevanceParameters:
    """Read a parameters file. Raises RelevanceParametersError for an unreadable one or another format."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RelevanceParametersError(f"cannot read relevance parameters {path}: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RelevanceParametersError(f"{path}: relevance parameters of format {FORMAT} expected")
    try:
        models = {str(key): RelevanceModel.from_dict(str(key).partition("/")[0], m)
                  for key, m in data["models"].items()}
        return RelevanceParameters(str(data.get("profile", "")), models, str(path))
    except (KeyError, TypeError, ValueError) as exc:
        raise RelevanceParametersError(f"{path}: invalid relevance model: {exc}") from exc


@lru_cache(maxsize=16)
def _cached(path: str, _mtime_ns: int) -> RelevanceParameters:
    return load_parameters(Path(path))


def parameters_at(path: Path) -> RelevanceParameters | None:
    """The parameters of ``path`` (re-read when the file changes); None when there is no such file."""
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        return None
    return _cached(str(path), mtime)


@dataclass(frozen=True)
class ModelChoice:
    """The models one search uses: ``ranking`` (the mode's; it orders the hits when it has a ``rank_depth``)
    and ``annotating`` (the query kind's when the file has one, else the same model; it gives each hit's
    ``relevance``)."""

    ranking: RelevanceModel
    annotating: RelevanceModel


def resolve_model(data_path: Path, profile: str, mode: str, shipped: Path | None,
                  query: str = "") -> ModelChoice | None:
    """The models of ``mode`` for ``query`` (:meth:`RelevanceParameters.choice`) from the data folder's
    :data:`USER_FILE` when it has a model of the mode (its kinds' models then come from it alone), else from
    the profile's ``shipped`` file; None when neither has one (the hits' relevance is then None)."""
    for path in (data_path / USER_FILE, shipped):
        params = parameters_at(path) if path is not None else None
        chosen = params.choice(mode, query) if params is not None else None
        if chosen is not None:
            return chosen
    return None


def missing_note(profile: str, mode: str) -> str:
    """The ``relevance_note`` of a response whose hits have no relevance."""
    return (f"relevance: no fitted parameters for profile {profile!r} in mode {mode!r}; hits carry "
            "relevance null (fit some with eagle-rag calibrate)")


def fit(x: np.ndarray, y: np.ndarray, mode: str, fitted_on: str = "", c: float = 1.0,
        isotonic: bool = True) -> RelevanceModel:
    """Fit an L2-regularised logistic regression on feature rows ``x`` and labels ``y`` (1 relevant, 0 not)
    and express it on the raw features.

    The objective is scikit-learn's ``LogisticRegression(C=c)`` on standardised features,
    ``c * sum(log(1 + exp(z)) - y * z) + |w|^2 / 2`` with ``z = b + w . x_std``, minimised by SciPy's
    L-BFGS-B (scikit-learn is not a dependency of the install) with the bound ``w >= 0`` on every
    monotone feature (:data:`MONOTONE`): those the bound holds at 0 are named in ``clipped``. A feature
    that does not vary in ``x`` gets no coefficient. With ``isotonic``, SciPy's isotonic regression of the
    labels on ``z`` then maps the score to the probability (:func:`isotonic_knots`; measured better
    calibrated on held-out queries, bench/README.md). Raises ValueError when ``y`` holds one class.
    """
    if len(set(y.tolist())) < 2:
        raise ValueError("calibration needs relevant and non-relevant hits; the judged hits hold one class")
    active = [i for i in range(len(FEATURES)) if np.ptp(x[:, i]) > 0]
    mean, scale = x[:, active].mean(axis=0), x[:, active].std(axis=0)
    z_x = np.hstack([(x[:, active] - mean) / scale, np.ones((len(y), 1))])

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        z = z_x @ theta
        loss = c * float(np.sum(np.logaddexp(0.0, z) - y * z)) + 0.5 * float(theta[:-1] @ theta[:-1])
        grad = c * (z_x.T @ (expit(z) - y))
        grad[:-1] += theta[:-1]
        return loss, grad

    bounds = [(0.0, None) if FEATURES[i] in MONOTONE else (None, None) for i in active] + [(None, None)]
    result = minimize(objective, np.zeros(len(active) + 1), jac=True, method="L-BFGS-B", bounds=bounds)
    if not result.success:
        raise ValueError(f"the relevance fit did not converge: {result.message}")
    coef = result.x[:-1] / scale
    intercept = float(result.x[-1] - float(coef @ mean))
    clipped = tuple(FEATURES[i] for i, w in zip(active, result.x[:-1], strict=True)
                    if FEATURES[i] in MONOTONE and w <= 1e-12)
    coefficients = {FEATURES[i]: float(w) for i, w in zip(active, coef, strict=True)}
    knots = isotonic_knots(x[:, active] @ coef + intercept, y) if isotonic else ()
    return RelevanceModel(mode=mode, coefficients=coefficients, intercept=intercept, fitted_on=fitted_on,
                          samples=len(y), positives=int(np.sum(y)), clipped=clipped, calibration=knots)


def isotonic_knots(z: np.ndarray, y: np.ndarray) -> tuple[tuple[float, float], ...]:
    """The knots ``(z, p)`` of the isotonic (non-decreasing) regression of ``y`` on ``z`` (SciPy): ties in
    ``z`` share the mean of their fitted values, and only both ends of every flat run are kept."""
    order = np.argsort(z, kind="stable")
    fitted = isotonic_regression(y[order].astype(float)).x
    values, inverse = np.unique(z[order], return_inverse=True)
    means = np.bincount(inverse, weights=fitted) / np.bincount(inverse)
    keep = [i for i in range(len(values))
            if i in (0, len(values) - 1) or means[i] != means[i - 1] or means[i] != means[i + 1]]
    return tuple((float(values[i]), round(float(means[i]), 6)) for i in keep)

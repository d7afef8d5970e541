"""Fit the relevance probability (:mod:`eagle_rag.retrieve.relevance`) on judged queries (issue 38).

:func:`collect` runs every query of a BEIR folder (:mod:`eagle_rag.evaluation.beir`) with one mode and
keeps the top ``depth`` hits with their trails and a label from the qrels (relevant when the judged grade
is at least ``min_grade``; an unjudged hit counts as not relevant, as in nDCG). :func:`fit_samples` fits a
model on them; :func:`reliability` measures a probability against the labels (ECE over equal-width bins,
Brier score, the share of confident top hits that are right).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from eagle_rag.evaluation.beir import KB_NAME, BeirData
from eagle_rag.retrieve import relevance
from eagle_rag.types import MatchKind, SearchMode, SearchRequest, StageScore


@dataclass(frozen=True)
class JudgedHit:
    """One returned hit of a judged query: its place, its label and what the features read."""

    query_id: str
    position: int
    relevant: bool
    match: MatchKind
    trail: tuple[StageScore, ...]
    document: str = ""
    """The hit's document (its ``record_id``, else its document id): re-ranking a collected run by the
    probability is scored against the qrels by it."""
    query: str = ""
    """The query's text: its kind (:func:`~eagle_rag.retrieve.relevance.query_kind`) chooses the model."""

    def features(self) -> np.ndarray:
        return relevance.features(self.trail, self.match, self.position)

    @property
    def kind(self) -> relevance.QueryKind:
        return relevance.query_kind(self.query)

    def to_dict(self) -> dict[str, Any]:
        return {"query_id": self.query_id, "query": self.query, "position": self.position, "relevant": self.relevant,
                "match": self.match.value, "document": self.document,
                "trail": [{"stage": e.stage, "rank": e.rank, "score": e.score, "detail": dict(e.detail),
                           "skipped": e.skipped} for e in self.trail]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JudgedHit:
        trail = tuple(StageScore(e["stage"], int(e["rank"]), float(e["score"]), dict(e.get("detail") or {}),
                                 str(e.get("skipped") or "")) for e in data["trail"])
        return cls(str(data["query_id"]), int(data["position"]), bool(data["relevant"]),
                   MatchKind(data["match"]), trail, str(data.get("document", "")), str(data.get("query", "")))


def collect(engine: Any, data: BeirData, mode: SearchMode, depth: int = 10, min_grade: int = 1,
            progress: Callable[[int], None] | None = None, kb_names: tuple[str, ...] = (KB_NAME,)) -> list[JudgedHit]:
    """The top ``depth`` hits of every query of ``data`` in ``mode`` (in ``kb_names``, every kb when
    empty), labelled from its qrels: a hit is relevant when its document (the ``record_id`` of a record,
    else the document id) is judged ``min_grade`` or more."""
    out: list[JudgedHit] = []
    for done, (qid, text) in enumerate(data.queries.items(), start=1):
        response = engine.search(SearchRequest(query=text, top_k=depth, mode=mode, kb_names=kb_names,
                                               explain=True))
        out.extend(judged_hits(qid, response, data.qrels.get(qid, {}), depth, min_grade))
        if progress is not None:
            progress(done)
    return out


def judged_hits(query_id: str, response: Any, judged: dict[str, int], depth: int = 10,
                min_grade: int = 1) -> list[JudgedHit]:
    """The first ``depth`` hits of one response (explained) with their labels from ``judged`` (document ->
    grade): relevant when the grade is ``min_grade`` or more, an unjudged hit not relevant."""
    out: list[JudgedHit] = []
    for position, hit in enumerate(response.hits[:depth], start=1):
        doc = str(hit.metadata.get("record_id", hit.document_id))
        out.append(JudgedHit(query_id, position, judged.get(doc, 0) >= min_grade, hit.match, hit.trail, doc,
                             response.query))
    return out


def save_hits(hits: Iterable[JudgedHit], path: Path) -> None:
    path.write_text("".join(json.dumps(h.to_dict()) + "\n" for h in hits), encoding="utf-8")


def load_hits(path: Path) -> list[JudgedHit]:
    return [JudgedHit.from_dict(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def matrix(hits: Sequence[JudgedHit]) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows and 0/1 labels of ``hits``."""
    x = np.array([h.features() for h in hits]) if hits else np.zeros((0, len(relevance.FEATURES)))
    return x, np.array([1 if h.relevant else 0 for h in hits])


def fit_samples(hits: Sequence[JudgedHit], mode: SearchMode, fitted_on: str) -> relevance.RelevanceModel:
    """A relevance model of ``mode`` fitted on ``hits``. Raises ValueError when they hold one class."""
    x, y = matrix(hits)
    return relevance.fit(x, y, mode.value, fitted_on)


MIN_KIND_HITS = 100
"""The judged hits a query kind needs (with relevant and non-relevant ones among them) for a model of its own
(:func:`calibrate` with ``by_kind``)."""


def kind_models(hits: Sequence[JudgedHit], mode: SearchMode, fitted_on: str) -> dict[str, relevance.RelevanceModel]:
    """A model per query kind of ``hits`` (key ``mode/kind``) when they hold more than one kind: each kind
    with at least :data:`MIN_KIND_HITS` hits of both classes; {} when all are of one kind (the mode's model
    is then that kind's)."""
    by_kind: dict[relevance.QueryKind, list[JudgedHit]] = {}
    for hit in hits:
        by_kind.setdefault(hit.kind, []).append(hit)
    if len(by_kind) < 2:
        return {}
    return {relevance.model_key(mode.value, kind): fit_samples(group, mode, f"{fitted_on}; {kind.value} queries")
            for kind, group in sorted(by_kind.items())
            if len(group) >= MIN_KIND_HITS and 0 < sum(h.relevant for h in group) < len(group)}


def calibrate(engine: Any, data: BeirData, modes: Sequence[SearchMode], depth: int = 10, min_grade: int = 1,
              kb_names: tuple[str, ...] = (), fitted_on: str = "",
              by_kind: bool = False) -> relevance.RelevanceParameters:
    """Fit a model of every mode of ``modes`` on ``data`` and write them into the engine's data folder
    (:data:`relevance.USER_FILE`, keeping the models of other modes it holds); they take precedence over
    the profile's shipped parameters, and the refitted modes' query-kind models go (the new model is fitted on
    the user's own queries, whatever their kinds). With ``by_kind``, queries of several kinds also get a model
    per kind (:func:`kind_models`). Returns what was written. Raises ValueError when the judged hits of a mode
    hold one class."""
    path = engine.settings.data_path / relevance.USER_FILE
    before = relevance.parameters_at(path)
    refitted = {mode.value for mode in modes}
    models = {key: m for key, m in before.models.items()
              if key.partition("/")[0] not in refitted} if before is not None else {}
    for mode in modes:
        hits = collect(engine, data, mode, depth, min_grade, kb_names=kb_names)
        models[mode.value] = fit_samples(hits, mode, fitted_on)
        if by_kind:
            models.update(kind_models(hits, mode, fitted_on))
    params = relevance.RelevanceParameters(engine.settings.profile, models, str(path))
    params.save(path)
    return params


@dataclass(frozen=True)
class Reliability:
    """How well probabilities match labels (:func:`reliability`)."""

    ece: float
    brier: float
    confident_queries: int
    confident_right: float
    hits: int
    bins: tuple[tuple[float, float, int], ...]
    """(mean probability, share relevant, hits) of every non-empty bin."""


def annotating(params: relevance.RelevanceParameters, mode: str) -> Callable[[JudgedHit], relevance.RelevanceModel]:
    """The model that gives a hit of ``mode`` its probability, by its query's kind, as a search chooses it
    (:meth:`~eagle_rag.retrieve.relevance.RelevanceParameters.choice`). Raises KeyError for a mode without one."""
    if mode not in params.models:
        raise KeyError(f"the parameters have no model of mode {mode!r}")

    def model_for(hit: JudgedHit) -> relevance.RelevanceModel:
        chosen = params.choice(mode, hit.query)
        assert chosen is not None  # the mode's model exists
        return chosen.annotating
    return model_for


def reliability(model: relevance.RelevanceModel | Callable[[JudgedHit], relevance.RelevanceModel],
                hits: Sequence[JudgedHit], n_bins: int = 10) -> Reliability:
    """ECE over ``n_bins`` equal-width bins (``sum_b n_b / N * |mean p_b - share relevant_b|``), the Brier
    score (mean of ``(p - label)^2``) and, among the queries whose top hit has probability >= 0.5, the share
    whose top hit is relevant. ``model`` is one model for every hit, or the model of each hit (:func:`annotating`)."""
    x, y = matrix(hits)
    choose = model if callable(model) else (lambda _hit: model)
    p = np.array([choose(h).probability(row) for h, row in zip(hits, x, strict=True)])
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    which = np.clip(np.digitize(p, edges[1:-1]), 0, n_bins - 1)
    bins: list[tuple[float, float, int]] = []
    ece = 0.0
    for b in range(n_bins):
        inside = which == b
        if inside.any():
            bins.append((float(p[inside].mean()), float(y[inside].mean()), int(inside.sum())))
            ece += inside.sum() / len(p) * abs(p[inside].mean() - y[inside].mean())
    tops = [i for i, h in enumerate(hits) if h.position == 1 and p[i] >= 0.5]
    right = float(np.mean([y[i] for i in tops])) if tops else 0.0
    return Reliability(float(ece), float(np.mean((p - y) ** 2)) if len(p) else 0.0, len(tops), right, len(p),
                       tuple(bins))

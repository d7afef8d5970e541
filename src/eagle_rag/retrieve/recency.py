"""Recency: decay each hit of the final ranking by the age of its publication date (request ``recency``).

The pinned formula (ranks start at 1, ``k`` is ``router.rrf_k``, 60 by default)::

    decay(d)        = 0.5 ** (age_days(d) / half_life_days)
    recency_score(d) = decay(d) / (k + rank(d))

``rank(d)`` is the hit's rank in the ranking it comes with (after fusion and the rerankers), so the
decay applies to a rank, never to raw scores of different scales (a cross-encoder logit may be negative).
``age_days`` counts from the first day of the date's precision (``2019`` is 2019-01-01, ``2019-06`` is
2019-06-01) to ``today``; a date after ``today`` has age 0. A hit without a publication date
(:data:`eagle_rag.types.PUBLISHED_KEYS`) keeps decay 1, is marked ``skipped="undated"`` in its trail and
is counted in the response's ``undated``: it is never decayed, and never silently.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from eagle_rag.types import PUBLISHED_KEYS, NodeWithScore, StageScore, leading_date

STAGE = "recency"
UNDATED = "undated"


def publication_date(metadata: Mapping[str, Any]) -> date | None:
    """The publication date a chunk's metadata carries (first of :data:`PUBLISHED_KEYS` with a
    ``YYYY[-MM[-DD]]`` value), at the first day of its precision; None when it has none. A month or day
    out of range falls back to the coarser precision (``2019-13`` is 2019)."""
    for key in PUBLISHED_KEYS:
        value = metadata.get(key)
        if value in (None, ""):
            continue
        found = leading_date(value)
        if found is None:
            continue
        parts = [int(p) for p in found.split("-")]
        for precision in range(len(parts), 0, -1):
            year, month, day = (parts[:precision] + [1, 1])[:3]
            try:
                return date(year, month, day)
            except ValueError:
                continue
        return None
    return None


def decay(age_days: float, half_life_days: float) -> float:
    """``0.5 ** (age_days / half_life_days)``: 1 at age 0, 0.5 at one half-life, 0.25 at two.

    Raises ValueError unless ``half_life_days`` is positive."""
    if not half_life_days > 0:
        raise ValueError(f"the recency half-life must be positive, got {half_life_days!r}")
    return float(0.5 ** (max(0.0, age_days) / half_life_days))


def apply_recency(nodes: Sequence[NodeWithScore], half_life_days: float, today: date,
                  k: int = 60) -> tuple[list[NodeWithScore], int]:
    """``nodes`` (a ranking, best first) re-ranked by ``decay / (k + rank)``, and how many had no date.

    Stable: hits with equal recency scores keep their incoming order. Each hit gets a ``recency`` trail
    entry (detail ``incoming_rank``: its incoming rank; ``age_days`` and ``decay`` when dated; ``skipped``
    ``undated`` when not). Raises ValueError for a half-life that is not positive or ``k < 1``.
    """
    if k < 1:
        raise ValueError(f"RRF k must be >= 1, got {k}")
    scored: list[tuple[float, NodeWithScore, dict[str, float], str]] = []
    undated = 0
    for rank, node in enumerate(nodes, start=1):
        published = publication_date(node.node.metadata)
        if published is None:
            undated += 1
            factor, detail, skipped = 1.0, {"incoming_rank": float(rank)}, UNDATED
        else:
            age = float(max(0, (today - published).days))
            factor = decay(age, half_life_days)
            detail, skipped = {"incoming_rank": float(rank), "age_days": age, "decay": factor}, ""
        scored.append((factor / (k + rank), node, detail, skipped))
    order = sorted(scored, key=lambda item: -item[0])
    out = []
    for rank, (score, node, detail, skipped) in enumerate(order, start=1):
        entry = StageScore(stage=STAGE, rank=rank, score=score, detail=detail, skipped=skipped)
        out.append(dataclasses.replace(node, score=score, trail=(*node.trail, entry)))
    return out, undated

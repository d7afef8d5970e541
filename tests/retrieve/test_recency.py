"""The recency decay, pinned with the arithmetic written out: ``decay / (k + rank)``,
``decay = 0.5 ** (age_days / half_life)``; undated hits are not decayed and are counted."""

from __future__ import annotations

import math
from datetime import date

import pytest

from eagle_rag.retrieve.recency import apply_recency, decay, publication_date
from eagle_rag.types import Chunk, NodeWithScore

pytestmark = pytest.mark.unit
TODAY = date(2026, 1, 1)


def dated(node_id: str, **metadata: object) -> NodeWithScore:
    return NodeWithScore(node=Chunk(id=node_id, text=node_id, document_id=f"d-{node_id}", metadata=metadata),
                         score=1.0)


def test_decay_halves_at_each_half_life() -> None:
    assert decay(0, 365) == 1.0
    assert decay(365, 365) == 0.5
    assert decay(730, 365) == 0.25
    assert decay(-10, 365) == 1.0  # a date after today: age 0
    with pytest.raises(ValueError):
        decay(10, 0)


def test_publication_date_at_the_first_day_of_its_precision() -> None:
    assert publication_date({"published": "2019-06-30T10:00"}) == date(2019, 6, 30)
    assert publication_date({"published": "2019-06"}) == date(2019, 6, 1)
    assert publication_date({"year": 2019}) == date(2019, 1, 1)
    assert publication_date({"pub_date": "2019-13"}) == date(2019, 1, 1)  # a bad month: the year alone
    assert publication_date({"published": "", "date": "2020-02-29"}) == date(2020, 2, 29)
    assert publication_date({"published": "unknown"}) is None
    assert publication_date({}) is None


def test_recency_reranks_by_decayed_reciprocal_rank() -> None:
    old = dated("old", published="2016-01-01")   # 3653 days before TODAY (2016, 2020 and 2024 are leap years)
    new = dated("new", published="2025-01-01")   # 365 days
    bare = dated("bare")                         # no date
    out, undated = apply_recency([old, new, bare], half_life_days=365, today=TODAY, k=60)
    scores = {n.node.id: n.score for n in out}
    assert scores["old"] == pytest.approx(0.5 ** (3653 / 365) / (60 + 1))  # ~0.0000154
    assert scores["new"] == pytest.approx(0.5 / (60 + 2))                  # 0.0080645
    assert scores["bare"] == pytest.approx(1.0 / (60 + 3))                 # 0.0158730: undated, not decayed
    assert [n.node.id for n in out] == ["bare", "new", "old"]
    assert undated == 1
    trail = {n.node.id: n.trail[-1] for n in out}
    assert trail["bare"].stage == "recency" and trail["bare"].skipped == "undated" and trail["bare"].rank == 1
    assert trail["new"].detail == {"incoming_rank": 2.0, "age_days": 365.0, "decay": 0.5}
    assert trail["old"].detail["age_days"] == 3653.0 and trail["old"].rank == 3


def test_recency_with_a_long_half_life_keeps_the_order_and_is_stable() -> None:
    nodes = [dated(f"n{i}", published="2025-12-31") for i in range(5)]
    out, undated = apply_recency(nodes, half_life_days=1e6, today=TODAY)
    assert [n.node.id for n in out] == [n.node.id for n in nodes] and undated == 0
    assert out[0].score == pytest.approx(0.5 ** (1 / 1e6) / 61)
    assert math.isclose(out[4].score, 0.5 ** (1 / 1e6) / 65)
    assert apply_recency([], 30, TODAY) == ([], 0)

"""eval/biomed/RETRIEVAL.md states the Tier-2 weights the code uses (table and prose)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from eagle_rag_biomed.rerank.weights import PROFILE_WEIGHTS

pytestmark = pytest.mark.unit

DOC = Path(__file__).resolve().parents[3] / "eval" / "biomed" / "RETRIEVAL.md"
COLUMNS = ("w_ce", "w_entity", "w_sec", "w_xdrug_penalty", "w_prior", "w_li")


def _table() -> dict[str, tuple[float, ...]]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### Tier-2 weights", 1)[1].split("\n\n", 2)[1]
    rows: dict[str, tuple[float, ...]] = {}
    for line in section.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0].split()[0]] = tuple(float(c) for c in cells[1:])
    return rows


def test_the_weight_table_is_the_code() -> None:
    expected = {name: tuple(getattr(w, c) for c in COLUMNS) for name, w in PROFILE_WEIGHTS.items()}
    assert _table() == expected


def test_the_prose_gives_the_cross_encoder_weight_of_the_code() -> None:
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    drug = [float(v) for v in re.findall(r"(\d\.\d+) for drug queries", text)]
    general = [float(v) for v in re.findall(r"(\d\.\d+) for general queries", text)]
    assert drug and set(drug) == {PROFILE_WEIGHTS["drug_entity"].w_ce}
    assert general and set(general) == {PROFILE_WEIGHTS["default"].w_ce}

"""Fixtures for the datasets plugin: the bundled catalog and a small hand-made one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eagle_rag_datasets import DatasetCatalog

HERE = Path(__file__).parent
REPO = HERE.parents[1]
QUERIES = REPO / "eval" / "datasets" / "queries.jsonl"
BASELINE = REPO / "eval" / "datasets" / "baseline.json"
SHARED_ONTOLOGY = REPO.parent / "shared" / "data" / "ontology"
MINI = HERE / "data" / "mini_cards.jsonl"


@pytest.fixture(scope="session")
def catalog() -> DatasetCatalog:
    """The bundled 386-card catalog, loaded strictly (it must have no invalid record)."""
    return DatasetCatalog.load(strict=True)


@pytest.fixture(scope="session")
def mini() -> DatasetCatalog:
    """Twelve cards written for these tests (tests/datasets/data/mini_cards.jsonl)."""
    return DatasetCatalog.load(MINI, strict=True)


def card(card_id: str, name: str, description: str = "", **fields: Any) -> dict[str, Any]:
    """A card record for DatasetCatalog.from_records."""
    return {"id": card_id, "name": name, "description": description, **fields}


def ids(response: Any) -> list[str]:
    return [hit.id for hit in response.hits]

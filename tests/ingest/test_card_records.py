"""Dataset-card files (the datasets plugin's catalog) lose only their bad records: a line that is not
UTF-8, not JSON, of the wrong shape, a duplicate id or a cut-off last line is reported with its
line and every other card is kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eagle_rag_datasets.catalog.catalog import DatasetCatalog
from eagle_rag_datasets.errors import CardValidationError

pytestmark = pytest.mark.unit


def test_a_damaged_card_file_keeps_every_good_card(tmp_path: Path):
    good = [json.dumps({"id": f"c{i}", "name": f"Corpus {i}", "tags": ["nlp"]}).encode() for i in range(1, 6)]
    lines = [good[0], b'{"id": "x2", "name": "Caf\xe9 corpus"}', good[1], b'{"id": "x4", "name": ',
             json.dumps({"id": "x5", "name": "N", "tags": "not a list"}).encode(), good[2],
             json.dumps({"id": "c1", "name": "Again"}).encode(), good[3], b"", good[4], b'{"id": "x11", "na']
    path = tmp_path / "cards.jsonl"
    path.write_bytes(b"\n".join(lines))  # no newline after the last, cut-off line
    catalog = DatasetCatalog.load(path)
    assert [c.id for c in catalog.cards] == ["c1", "c2", "c3", "c4", "c5"]
    errors = {e.line: e.message for e in catalog.load_errors}
    assert sorted(errors) == [2, 4, 5, 7, 11]
    assert errors[2].startswith("not valid UTF-8") and errors[4].startswith("not valid JSON")
    assert errors[5].startswith("must be a list of strings") and errors[7] == "duplicate id (first on line 1)"
    assert errors[11].startswith("not valid JSON")
    with pytest.raises(CardValidationError) as strict:
        DatasetCatalog.load(path, strict=True)
    assert len(strict.value.errors) == 5


def test_a_yaml_card_file_that_is_not_utf8_is_one_clear_error(tmp_path: Path):
    path = tmp_path / "cards.yaml"
    path.write_bytes(b"- id: a\n  name: Caf\xe9\n")
    with pytest.raises(CardValidationError, match="not valid UTF-8"):
        DatasetCatalog.load(path)

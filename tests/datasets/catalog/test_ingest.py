"""Cards from JSONL and YAML, with validation errors reported per line."""

from __future__ import annotations

from datetime import date

import pytest

from eagle_rag_datasets import CardValidationError, DatasetCatalog
from eagle_rag_datasets.catalog.ingest import parse_cards, read_cards

pytestmark = pytest.mark.unit


def test_bundled_catalog_is_valid_and_complete(catalog):
    assert catalog.size == 386 and not catalog.load_errors
    assert catalog.get("bigbio/bc5cdr").name == "BC5CDR"


def test_jsonl_errors_name_every_bad_line():
    text = "\n".join([
        '{"id": "a", "name": "A"}',
        "",
        "not json",
        '{"id": "b"}',
        '{"id": "a", "name": "again"}',
        '{"id": "c", "name": "C", "languages": "English", "alias": ["x"]}',
        '["a list"]',
    ])
    result = parse_cards(text, "jsonl")
    assert [c.id for c in result.cards] == ["a"]
    found = {(e.line, e.field) for e in result.errors}
    assert (3, None) in found                  # invalid JSON
    assert (4, "name") in found                # missing name
    assert (5, "id") in found                  # duplicate id
    assert {(6, "languages"), (6, "alias")} <= found
    assert (7, None) in found                  # not an object
    assert "first on line 1" in next(e.message for e in result.errors if e.line == 5)


def test_strict_read_raises_with_all_errors(tmp_path):
    path = tmp_path / "cards.jsonl"
    path.write_text('{"id": "a"}\n{"name": "no id"}\n', encoding="utf-8")
    with pytest.raises(CardValidationError) as info:
        read_cards(path)
    assert isinstance(info.value, ValueError) and len(info.value.errors) == 2
    assert info.value.to_dict()["error"]["code"] == "invalid_cards"
    lenient = DatasetCatalog.load(path)
    assert lenient.size == 0 and len(lenient.load_errors) == 2


def test_yaml_cards_with_line_numbers_and_rich_fields():
    text = """\
cards:
  - id: y/one
    name: One
    description: {en: "English text", zh: "中文描述"}
    languages: {subset_a: [eng-Latn], subset_b: [cmn-Hans, eng-Latn]}
    license_verdict: {verdict: permissive, evidence: [a, b], verified: 2026-01-31}
  - id: y/two
    name: 2
"""
    result = parse_cards(text, "yaml")
    one = result.cards[0]
    assert one.description == "English text" and one.description_zh == "中文描述"
    assert one.languages == ("eng-Latn", "cmn-Hans") and one.language_codes == {"en", "zh"}
    assert one.license_verdict.verified == date(2026, 1, 31) and one.license_verdict.evidence == ("a", "b")
    assert [(e.line, e.field) for e in result.errors] == [(7, "name")]


def test_yaml_that_is_not_a_list():
    result = parse_cards("just: text\n", "yaml")
    assert not result.cards and "list of cards" in result.errors[0].message


def test_bad_license_verdict_and_kind():
    result = parse_cards('{"id": "a", "name": "A", "license_verdict": {"verdict": "ok", "verified": "soon"}, '
                         '"kind": "spaceship"}', "jsonl")
    assert {e.field for e in result.errors} == {"license_verdict.verified", "kind"}

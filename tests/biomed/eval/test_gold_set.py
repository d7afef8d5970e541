"""The biomed gold set: file format, id matching, coverage of workflows and failure types, consistency."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from eagle_rag.ingest.parsers import PARSERS, route_for_suffix
from eagle_rag.ingest.sources import iter_source_files
from eagle_rag.ops.demo import sample_dir
from eagle_rag_biomed.eval.gold_set import GoldError, doc_key, load_gold, matches, validate_gold
from eagle_rag_biomed.eval.runner import sample_corpus_paths
from eagle_rag_biomed.query.intent import Workflow

pytestmark = pytest.mark.unit

GOLD = Path(__file__).resolve().parents[3] / "eval" / "biomed" / "gold.jsonl"


def corpus() -> dict[str, str]:
    files, _ = iter_source_files(sample_corpus_paths(sample_dir()))
    out: dict[str, str] = {}
    for path in files:
        route = route_for_suffix(path)
        assert route is not None, path
        for doc in PARSERS[route](path, path.read_bytes(), "gold"):
            out[doc_key(doc.document_id, str(doc.metadata.get("record_id", "")))] = f"{doc.name}\n{doc.full_text}"
    return out


def test_gold_file_is_large_and_covers_every_workflow_and_failure_type() -> None:
    gold = load_gold(GOLD)
    assert len(gold) >= 60
    workflows = Counter(g.workflow for g in gold)
    assert set(workflows) == {w.value for w in Workflow} and min(workflows.values()) >= 5
    types = Counter(g.failure_type for g in gold)
    for needed in ("competitive_intelligence", "compound_match", "regulatory_section", "cross_drug_trap"):
        assert types[needed] >= 3, needed


def test_gold_is_consistent_with_the_sample_corpus() -> None:
    assert validate_gold(load_gold(GOLD), corpus()) == []


def test_validate_reports_missing_documents_and_terms() -> None:
    gold = load_gold(GOLD)[:1]
    assert validate_gold(gold, {}) == [f"{gold[0].id}: expected document {gold[0].expected_doc_ids[0]!r} is not in "
                                       "the corpus"] + [f"{gold[0].id}: term {t!r} is in none of its expected documents"
                                                        for t in gold[0].expected_terms]


@pytest.mark.parametrize(("document_id", "record_id", "expected", "result"), [
    ("abs-001", "abs-001", "abs-001", True),
    ("label_gefitinib-ac4504c0", "", "label_gefitinib", True),
    ("label_gefitinib-ac4504c0", "", "label_gefitinib-ac4504c0", True),
    ("label_gefitinib_v2-ac4504c0", "", "label_gefitinib", False),
    ("label_gefitinib-nothex1", "", "label_gefitinib", False),
    ("h-123", "cmp-aspirin", "cmp-aspirin", True),
])
def test_matching_rule(document_id: str, record_id: str, expected: str, result: bool) -> None:
    assert matches(document_id, expected, record_id) is result


def test_doc_key_prefers_expected_then_record_then_stem() -> None:
    assert doc_key("label_x-0123abcd", "", ["label_x"]) == "label_x"
    assert doc_key("h-1", "abs-9") == "abs-9"
    assert doc_key("overview-0123abcd") == "overview"
    assert doc_key("plain") == "plain"


@pytest.mark.parametrize(("line", "message"), [
    ('{"id": "a", "query": "q", "expected_doc_ids": [], "workflow": "general"}', "expected_doc_ids"),
    ('{"id": "a", "query": "q", "expected_doc_ids": ["d"], "workflow": "labels"}', "unknown workflow"),
    ('{"id": "a", "query": "q", "expected_doc_ids": ["d"], "workflow": "general", "expected_terms": [1]}',
     "expected_terms"),
    ("not json", "invalid JSON"),
])
def test_bad_records_name_the_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "gold.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(GoldError, match=message) as err:
        load_gold(path)
    assert f"{path}:1" in str(err.value)


def test_repeated_ids_are_refused(tmp_path: Path) -> None:
    record = json.dumps({"id": "a", "query": "q", "expected_doc_ids": ["d"], "workflow": "general"})
    path = tmp_path / "gold.jsonl"
    path.write_text(f"{record}\n{record}\n", encoding="utf-8")
    with pytest.raises(GoldError, match="repeated id 'a'"):
        load_gold(path)

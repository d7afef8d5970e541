"""Entity, section and cross-drug signals (rerank/signals.py), each table pinned."""

from __future__ import annotations

import pytest

from eagle_rag_biomed.rerank.signals import (
    cross_drug_penalty,
    enrich_file_names,
    entity_boost_score,
    entity_match_score,
    parse_primary_drugs,
    passage_text,
    section_match_score,
)
from tests.biomed.query_support import FakeRegistry, hit

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("value", "expected"), [
    (["Imatinib", "dasatinib"], ["imatinib", "dasatinib"]),
    ("imatinib, Dasatinib,imatinib", ["imatinib", "dasatinib"]),
    ('["imatinib", "nilotinib"]', ["imatinib", "nilotinib"]),
    ("", []), (None, []), ("[broken", ["broken"]),
])
def test_parse_primary_drugs(value: object, expected: list[str]) -> None:
    assert parse_primary_drugs(value) == expected


@pytest.mark.parametrize(("meta", "expected"), [
    ({"primary_drugs": "imatinib,dasatinib"}, 1.0),                 # metadata names a query drug
    ({"primary_drugs": "nilotinib", "file_name": "label_imatinib.md"}, 0.5),  # only the blob does
    ({"path": "Imatinib (Gleevec) > Dosage"}, 0.5),                  # path counts as blob
    ({"document_name": "Imatinib label"}, 0.5),
    ({"source_uri": "/data/labels/label_imatinib.md"}, 0.5),
    ({"primary_drugs": "nilotinib", "file_name": "label_nilotinib.md"}, 0.0),
])
def test_entity_boost_score_table(meta: dict[str, str], expected: float) -> None:
    assert entity_boost_score(meta, ["imatinib"]) == expected


def test_entity_boost_without_query_drugs_is_zero() -> None:
    assert entity_boost_score({"primary_drugs": "imatinib"}, []) == 0.0


def test_entity_match_score_table() -> None:
    primary = hit("a", meta={"primary_drugs": "imatinib"})
    blob = hit("b", path="Imatinib label > Dosage")
    text = hit("c", text="Patients switched from imatinib to nilotinib.", meta={"primary_drugs": "nilotinib"})
    late = hit("d", text="x" * 600 + " imatinib")
    assert [entity_match_score(n, ["imatinib"]) for n in (primary, blob, text, late)] == [1.0, 0.75, 0.75, 0.0]


def test_section_match_score_is_the_share_of_cues() -> None:
    node = hit("a", path="Label > Warnings and Precautions", meta={"biomed_section": "warnings"})
    assert section_match_score(node, ["warnings", "dosage"]) == 1 / 2
    both = hit("b", path="Dosage and Administration", meta={"content_summary": "indications and usage ..."})
    assert section_match_score(both, ["dosage", "indications_and_usage"]) == 2 / 2
    assert section_match_score(node, []) == 0.0


def test_cross_drug_penalty_rules() -> None:
    other = hit("a", text="Nilotinib prolongs QT.", meta={"primary_drugs": "nilotinib"})
    mentions = hit("b", text="Unlike imatinib, nilotinib ...", meta={"primary_drugs": "nilotinib"})
    same = hit("c", meta={"primary_drugs": ["imatinib"]})
    unknown = hit("d", text="no drug metadata")
    assert cross_drug_penalty(other, ["imatinib"]) == 1.0
    assert cross_drug_penalty(mentions, ["imatinib"]) == 0.0
    assert cross_drug_penalty(same, ["imatinib"]) == 0.0
    assert cross_drug_penalty(unknown, ["imatinib"]) == 0.0
    assert cross_drug_penalty(other, []) == 0.0  # a query without drugs penalises nothing
    # the query's drug named past the first 512 characters: not about other drugs only
    late = hit("e", text="Nilotinib prolongs QT. " + "x" * 600 + " compared with imatinib",
               meta={"primary_drugs": "nilotinib"})
    assert cross_drug_penalty(late, ["imatinib"]) == 0.0


def test_enrich_file_names_from_the_registry() -> None:
    class Record:
        name, source_uri = "Imatinib (Gleevec) prescribing information", "/s/labels/label_imatinib.md"

    registry = FakeRegistry(records={"d1": Record()})
    nodes = [hit("a", doc="d1", meta={"document_name": "kept"}), hit("b", doc="unknown")]
    out = enrich_file_names(nodes, registry)
    assert out[0].node.metadata == {"file_name": "label_imatinib.md", "document_name": "kept",
                                    "source_uri": "/s/labels/label_imatinib.md"}
    assert out[1] is nodes[1] and nodes[0].node.metadata == {"document_name": "kept"}
    assert entity_boost_score(out[0].node.metadata, ["imatinib"]) == 0.5


def test_passage_text_with_and_without_the_document_name() -> None:
    titled = hit("a", "Body text.", doc="d1", meta={"document_name": "A title"})
    assert passage_text(titled, 100) == "Body text."
    assert passage_text(titled, 100, with_name=True) == "A title\nBody text."
    assert passage_text(titled, 4, with_name=True) == "A ti"
    bare = hit("b", "Body.", doc="d2", meta={"document_name": "d2"})
    assert passage_text(bare, 100, with_name=True) == "Body."  # a name that is only the id is left out
    echoed = hit("c", "A title\nBody.", meta={"document_name": "A title"})
    assert passage_text(echoed, 100, with_name=True) == "A title\nBody."

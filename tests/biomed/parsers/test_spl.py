"""FDA SPL drug labels: the real openFDA samples, LOINC section names, drug names, hostile XML."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.errors import IngestError
from eagle_rag_biomed.parsers.spl import parse_spl
from eagle_rag_biomed.parsers.spl_sections import LOINC_SECTIONS
from eagle_rag_biomed.parsers.xml_dispatch import parse_biomed_xml
from tests.biomed.conftest import LABELS, shared

BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE document [
 <!ENTITY a "aaaaaaaaaa">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
 <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
 <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
 <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
 <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
 <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">
 <!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">
]>
<document xmlns="urn:hl7-org:v3"><title>&h;</title></document>
"""
XXE = b"""<?xml version="1.0"?>
<!DOCTYPE document [<!ENTITY leak SYSTEM "file:///etc/passwd">]>
<document xmlns="urn:hl7-org:v3"><title>&leak;</title></document>
"""


def _label(name: str):
    path = shared(LABELS / name)
    docs = parse_spl(path, path.read_bytes(), "kb")
    assert len(docs) == 1
    return docs[0]


def _paths(doc) -> list[tuple[str, ...]]:
    return [s.path for s in doc.sections]


@pytest.mark.integration
def test_humira_sections_and_drug_names() -> None:
    doc = _label("humira.xml")
    assert doc.source_type == "drug_label"
    assert doc.metadata["doc_type"] == "drug_label"
    assert doc.metadata["drug_names"][:2] == ["humira", "adalimumab"]
    assert doc.metadata["proprietary_names"] == ["Humira"]
    assert doc.metadata["manufacturer"] == "AbbVie Inc."
    top = {p[0] for p in _paths(doc)}
    for name in ("boxed_warning", "indications_and_usage", "dosage_and_administration", "contraindications",
                 "warnings_and_precautions", "adverse_reactions", "drug_interactions",
                 "use_in_specific_populations", "overdosage", "description", "clinical_pharmacology",
                 "how_supplied"):
        assert name in top, name
    # nested subsections keep their titles under the canonical name
    assert ("indications_and_usage", "1.1 Rheumatoid Arthritis") in _paths(doc)
    boxed = next(s for s in doc.sections if s.path == ("boxed_warning",))
    assert "SERIOUS INFECTIONS" in boxed.text
    # product data (packaging, "Alcohol Swabs" kit parts) is not a section and not a drug name
    assert "alcohol swabs" not in doc.metadata["drug_names"]
    assert all("spl_product_data_elements" not in p for p in _paths(doc))


@pytest.mark.integration
def test_lipitor_is_atorvastatin_with_titles_first() -> None:
    doc = _label("lipitor-orig.xml")
    assert doc.metadata["drug_names"] == ["lipitor", "atorvastatin calcium", "atorvastatin"]
    assert doc.metadata["active_moieties"] == ["ATORVASTATIN"]
    indications = next(s for s in doc.sections if s.path == ("indications_and_usage",))
    assert indications.text.startswith("1 INDICATIONS AND USAGE\n")
    assert ("indications_and_usage", "1.2 Hyperlipidemia") in _paths(doc)
    assert doc.metadata["section_titles"]["warnings_and_precautions"].endswith("WARNINGS AND PRECAUTIONS")
    assert doc.name == "Lipitor drug label"


@pytest.mark.integration
def test_every_sample_parses_with_drug_names() -> None:
    expected = {"cough.xml": "triaminic", "no-title.xml": "haloperidol", "lipitor-repack.xml": "atorvastatin",
                "64f8040f-938d-4236-8e22-c838c9b5f8da.xml": "sildenafil"}
    for name, drug in expected.items():
        doc = _label(name)
        assert drug in doc.metadata["drug_names"], name
        assert doc.sections and all(s.text.strip() for s in doc.sections)
    # the OTC label uses the Drug Facts LOINC sections; an untitled label still gets a name
    assert {"active_ingredient", "purpose", "warnings"} <= set(_label("cough.xml").metadata["label_sections"])
    assert _label("no-title.xml").name == "Haloperidol drug label"
    assert ("warnings", "Increased Mortality in Elderly Patients with Dementia-Related Psychosis") in _paths(
        _label("no-title.xml"))


@pytest.mark.unit
def test_loinc_table_has_the_canonical_names() -> None:
    assert LOINC_SECTIONS["34067-9"] == "indications_and_usage"
    assert LOINC_SECTIONS["34068-7"] == "dosage_and_administration"
    assert LOINC_SECTIONS["43685-7"] == "warnings_and_precautions"
    assert LOINC_SECTIONS["34084-4"] == "adverse_reactions"
    assert LOINC_SECTIONS["34090-1"] == "clinical_pharmacology"


@pytest.mark.unit
@pytest.mark.parametrize("payload", [BOMB, XXE], ids=["billion-laughs", "external-entity"])
def test_entity_declarations_are_refused(payload: bytes) -> None:
    for parse in (parse_spl, parse_biomed_xml):
        with pytest.raises(IngestError, match="refused"):
            parse(Path("bomb.xml"), payload, "kb")


@pytest.mark.unit
def test_malformed_and_foreign_xml() -> None:
    with pytest.raises(IngestError, match="malformed XML"):
        parse_spl(Path("bad.xml"), b"<document><section></document>", "kb")
    with pytest.raises(IngestError, match="not an SPL"):
        parse_spl(Path("x.xml"), b"<catalog/>", "kb")
    with pytest.raises(IngestError, match="unsupported XML"):
        parse_biomed_xml(Path("x.xml"), b"<catalog/>", "kb")
    empty = b'<document xmlns="urn:hl7-org:v3"><component><structuredBody/></component></document>'
    with pytest.raises(IngestError, match="no section text"):
        parse_spl(Path("empty.xml"), empty, "kb")

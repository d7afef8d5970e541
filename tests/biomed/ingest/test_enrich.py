"""CHUNK enrich: sections (path leaf to root, then text headings), document types, primary drugs."""

from __future__ import annotations

import pytest

from eagle_rag.encoders import default_registry
from eagle_rag.ingest.chunker import chunk_document
from eagle_rag.types import ParsedDocument, Section
from eagle_rag_biomed.ingest.enrich import MAX_PRIMARY_DRUGS, drug_names, enrich_chunks, primary_drugs
from eagle_rag_biomed.ingest.sections import canonical_section, detect_doc_type, detect_section, normalize_heading
from tests.biomed.helpers import biomed_registry, biomed_settings, chunk, hook_context

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("path", "text", "label", "expected"), [
    (("indications_and_usage", "1.1 Prevention of Cardiovascular Disease"), "Reduce the risk", True,
     "indications_and_usage"),
    (("dosage_and_administration",), "2 DOSAGE", True, "dosage"),
    (("warnings_and_precautions", "5.1 Myopathy"), "", True, "warnings"),
    (("boxed_warning",), "", True, "warnings"),
    (("contraindications",), "", True, "contraindications"),
    (("purpose",), "Cough suppressant", True, "purpose"),  # an OTC label section keeps its LOINC name
    (("purpose",), "", False, "introduction"),  # in an article "Purpose" opens the introduction
    (("2 Methods", "2.1 Cohort", "page 3"), "Patients were enrolled", False, "methods"),
    (("Statins in heart failure", "Background"), "Heart failure ...", False, "introduction"),
    (("Title", "MATERIALS & METHODS:"), "", False, "methods"),
    (("A trial", "Results"), "", False, "results"),
    (("Conclusions",), "", False, "conclusion"),
    ((), "RESULTS\nThe response rate was 40%.", False, "results"),
    ((), "3. Discussion\nOur findings", False, "discussion"),
    ((), "What is claimed is:\n1. A compound of formula I", False, "claims"),
    ((), "1. A method of treating cancer comprising", False, "claims"),
    (("Some title",), "No heading here at all.", False, "body"),
    ((), "", False, "body"),
])
def test_detect_section(path, text, label, expected):
    assert detect_section(path, text, label) == expected


def test_heading_normalisation():
    assert normalize_heading("2.1 Materials & Methods:") == "materials and methods"
    assert normalize_heading("indications_and_usage") == "indications and usage"
    assert canonical_section("IV. DISCUSSION") == "discussion"
    assert canonical_section("Detailed Description of the Invention") == "description"
    assert canonical_section("Unrelated heading") is None


@pytest.mark.parametrize(("metadata", "source_type", "uri", "sections", "head", "expected"), [
    ({"doc_type": "compound"}, "compound", "x.sdf#1", [], "", "compound"),
    ({}, "drug_label", "x.xml", [], "", "drug_label"),
    ({}, "pubmed", "x.xml", [], "", "research"),
    ({}, "text", "/data/compound_aspirin.txt", [], "", "compound"),
    ({}, "text", "/data/label_lipitor.md", [], "", "drug_label"),
    ({}, "pdf", "/data/US-patent-123.pdf", [], "", "patent"),
    ({}, "pdf", "a.pdf", ["body"], "Some text. What is claimed is: 1. A compound", "patent"),
    ({}, "pdf", "a.pdf", ["claims"], "", "patent"),
    ({}, "pdf", "a.pdf", ["body"], "HIGHLIGHTS OF PRESCRIBING INFORMATION", "drug_label"),
    ({}, "pdf", "a.pdf", ["methods", "results"], "", "research"),
    ({}, "pdf", "a.pdf", ["abstract"], "", "research"),
    ({}, "beir", "corpus.jsonl#3", ["body"], "In a randomized trial, patients improved significantly.", "research"),
    ({}, "text", "notes.txt", ["body"], "Quarterly revenue grew 12% to $4.1 billion.", "other"),
])
def test_detect_doc_type(metadata, source_type, uri, sections, head, expected):
    assert detect_doc_type(metadata, source_type, uri, sections, head) == expected


def _doc(text: str, uri: str = "/tmp/tmpabc/src/notes.txt", **metadata) -> ParsedDocument:
    return ParsedDocument("notes-1", "notes", uri, (Section(("Notes",), text),), metadata=metadata)


def test_primary_drugs_order_sources_and_cap():
    doc = _doc("Imatinib and aspirin were compared.", uri="/tmp/tmp8xk/lipitor-orig.xml",
               drug_names=["humira", "adalimumab"])
    [c] = chunk_document(doc)
    # file name (lipitor -> atorvastatin), label drug names, then the text head, in that order
    assert primary_drugs(doc, c) == ["atorvastatin", "adalimumab", "imatinib", "aspirin"]
    many = ", ".join(["imatinib", "aspirin", "metformin", "warfarin", "sunitinib", "erlotinib", "gefitinib",
                      "lapatinib", "nilotinib", "dasatinib"])
    assert len(drug_names([many])) == MAX_PRIMARY_DRUGS
    assert drug_names(["aspirin aspirin", "ASPIRIN"]) == ["aspirin"]


def test_temporary_directories_do_not_name_drugs():
    doc = _doc("Quarterly revenue grew.", uri="/tmp/tmp8xnkr10l/src/fin.txt")
    [c] = chunk_document(doc)
    assert primary_drugs(doc, c) == []


def test_enrich_chunks_patch_per_chunk_and_never_touches_protected_keys(tmp_path):
    settings = biomed_settings(tmp_path)
    ctx = hook_context(settings, biomed_registry(settings))
    sections = (Section(("Metformin in diabetes", "Background"), "Metformin lowers glucose in patients."),
                Section(("Metformin in diabetes", "Methods"), "We randomized 200 patients to metformin."),
                Section(("Metformin in diabetes", "Results"), "HbA1c fell significantly (p < 0.01)."))
    doc = ParsedDocument("m-1", "Metformin in diabetes", "/x/metformin.txt", sections, source_type="abstract")
    chunks = chunk_document(doc)
    patches = enrich_chunks(ctx, doc, chunks)
    assert [p["biomed_section"] for p in patches] == ["introduction", "methods", "results"]
    assert {p["biomed_doc_type"] for p in patches} == {"research"}
    assert all(p["primary_drugs"].split(",")[0] == "metformin" for p in patches)
    assert all(p["biomed_text_profile"] in ("biomedical", "general") for p in patches)
    assert not any(set(p) & {"id", "text", "path", "document_id", "ordinal"} for p in patches)


def test_image_chunks_get_summary_and_parent_section(tmp_path):
    ctx = hook_context(biomed_settings(tmp_path), default_registry("deterministic"))
    doc = ParsedDocument("img", "ct.png", "/x/ct.png", (Section(("ct.png",), "Axial CT of the chest"),),
                         source_type="image", metadata={"image_path": "/x/ct.png", "parent_section": "Figure 2"})
    [patch] = enrich_chunks(ctx, doc, chunk_document(doc))
    assert patch["content_summary"] == "Axial CT of the chest" and patch["parent_section"] == "Figure 2"
    assert patch["biomed_text_profile_rule"] == "source_type" and patch["biomed_doc_type"] == "other"


def test_enrich_abstains_outside_the_namespace(tmp_path):
    from eagle_rag_biomed.hooks.ingest import eagle_chunk_enrich

    ctx = hook_context(biomed_settings(tmp_path), default_registry("deterministic"), namespace="default")
    doc = _doc("aspirin")
    assert eagle_chunk_enrich(ctx=ctx, document=doc, chunks=chunk_document(doc)) is None
    assert chunk("x").metadata == {}

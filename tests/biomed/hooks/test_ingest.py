"""Acceptance of the biomed ingest side, end to end through ``Engine.ingest`` with the ``biomed`` profile.

One engine (deterministic encoders, so it stays fast) ingests the openFDA labels, a generated research
PDF, a patent text, an SDF of 1,000 DrugBank molecules with broken records, a SMILES list with a bad
line, generated PNG / DICOM / NIfTI images with caption sidecars, a SciFact subsample, an earnings
release, and hostile files; every check reads back from the stores. A second engine runs the real
bundled encoder on a smaller set.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from eagle_rag.engine import Engine
from eagle_rag.errors import InvalidRequest
from eagle_rag.types import DocumentStatus
from eagle_rag_biomed.chem.molecules import InvalidStructure
from eagle_rag_biomed.chem.sdf_writer import write_drugbank_sdf
from eagle_rag_biomed.chem.store import biomed_retrieve_compounds, fingerprint_dir
from tests.biomed.conftest import LABELS, SCIFACT, dicom_bytes, make_pdf, nifti_file, png_bytes, shared
from tests.biomed.helpers import biomed_settings, rows

pytestmark = pytest.mark.integration
SCIFACT_DOCS = 120
MAX_BYTES = 8_000_000
TEXT_COLLECTIONS = ("eagle_text_biomed", "eagle_text")
EARNINGS = ("Quarterly earnings release: revenue increased 11 percent year over year to 5.2 billion dollars; gross "
            "margin expanded to 61 percent; diluted earnings per share were 2.05. The company raised its full-year "
            "revenue guidance and returned 1.1 billion dollars to shareholders through buybacks and dividends.\n")
PATENT = ("# Pyrimidine kinase inhibitors\n\n## Background of the Invention\nKinase inhibitors such as imatinib "
          "treat leukemia.\n\n## Claims\nWhat is claimed is:\n1. A compound of formula I that inhibits BCR-ABL.\n"
          "2. The compound of claim 1 for use with imatinib.\n")


def research_pdf() -> bytes:
    return make_pdf([[("h", "Imatinib plus aspirin in chronic myeloid leukemia"), ("h", "Abstract"),
                      ("p", "We studied imatinib with low-dose aspirin in patients with CML."), ("h", "Methods"),
                      ("p", "Patients were randomized to imatinib 400 mg daily with or without aspirin.")],
                     [("h", "Results"), ("p", "Major molecular response improved significantly (p < 0.01)."),
                      ("h", "Discussion"), ("p", "Imatinib remains the standard of care for CML.")]],
                    title="Imatinib plus aspirin")


def build_corpus(root: Path) -> dict[str, Path]:
    """Write every input file under ``root``; returns the named paths of interest."""
    good, bad, outside = root / "good", root / "good" / "hostile", root.parent / f"{root.name}-outside"
    for folder in (good, bad, outside, good / "scifact"):
        folder.mkdir(parents=True, exist_ok=True)
    (good / "paper.pdf").write_bytes(research_pdf())
    (good / "kinase_patent.md").write_text(PATENT)
    assert write_drugbank_sdf(good / "drugbank.sdf", 1000, bad_every=500) == 1000
    (good / "mols.smi").write_text("smiles name\nCC(=O)Oc1ccccc1C(=O)O aspirin\nC1CC(N bad-ring\nCCO ethanol\n")
    (good / "ct.png").write_bytes(png_bytes())
    (good / "ct.png.txt").write_text("Axial CT of the chest showing a spiculated nodule")
    (good / "he.png").write_bytes(png_bytes((10, 10)))
    (good / "he.json").write_text(json.dumps({"caption": "H&E stained biopsy with dysplasia",
                                              "parent_section": "Figure 3"}))
    (good / "photo.png").write_bytes(png_bytes((12, 9)))
    (good / "scan.dcm").write_bytes(dicom_bytes())
    nifti_file(good / "brain.nii.gz")
    lines = shared(SCIFACT / "corpus.jsonl").read_text(encoding="utf-8").splitlines()[:SCIFACT_DOCS]
    (good / "scifact" / "corpus.jsonl").write_text("\n".join(lines) + "\n")
    (good / "earnings.txt").write_text(EARNINGS)
    pdf = research_pdf()
    (bad / "truncated.pdf").write_bytes(pdf[: len(pdf) // 2])
    (bad / "fake.png").write_bytes(b"these bytes are not an image")
    (bad / "bomb.xml").write_text('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
                                  '<!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>\n<document>&lol2;</document>\n')
    (bad / "huge.txt").write_bytes(b"aspirin " * (MAX_BYTES // 8 + 10))
    (outside / "secret.md").write_text("# Secret\n\nimatinib secret notes\n")
    os.symlink(outside / "secret.md", bad / "link.md")
    labels = sorted(shared(LABELS).glob("*.xml"))
    return {"good": good, "outside": outside / "secret.md", "labels_dir": LABELS, **{p.name: p for p in labels}}


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    root = tmp_path_factory.mktemp("biomed-src")
    paths = build_corpus(root)
    data = tmp_path_factory.mktemp("biomed-data")
    # hash vectors carry no prototype signal, and the router's threshold and default were chosen for a
    # semantic encoder (eval/biomed/doc_router): this fixture keeps the band at 0 with a biomedical default
    router = {"confidence_threshold": 0.0, "ambiguous_default": "biomedical"}
    settings = biomed_settings(data, ingest={"allowed_roots": [str(paths["good"]), str(LABELS)],
                                             "max_file_bytes": MAX_BYTES}, biomed={"doc_semantic_router": router})
    labels = sorted(LABELS.glob("*.xml"))
    with Engine(settings) as engine:
        report = engine.ingest([*labels, paths["good"], paths["outside"]], kb_name="bio")
        yield engine, report, paths


def docs_named(engine, fragment: str) -> list:
    return [d for d in engine.registry.list(limit=100_000) if fragment in d.source_uri]


def doc_rows(engine, fragment: str, fields=("id", "path", "chunk_type", "biomed_section", "primary_drugs")):
    ids = [d.id for d in docs_named(engine, fragment)]
    assert ids, fragment
    out = {}
    for collection in (*TEXT_COLLECTIONS, "eagle_chemical"):
        expr = "document_id in [" + ", ".join(json.dumps(i) for i in ids) + "]"
        found = rows(engine, collection, expr, ("document_id", *fields, "metadata"))
        if found:
            out[collection] = found
    return out


def test_report_per_file(ingested):
    engine, report, paths = ingested
    failures = {Path(f.path).name: f.error for f in report.failures}
    assert set(failures) == {"truncated.pdf", "fake.png", "bomb.xml", "huge.txt", "link.md", "secret.md"}
    assert "truncated" in failures["truncated.pdf"] and "not an image" in failures["fake.png"]
    assert "entit" in failures["bomb.xml"] and "over the limit" in failures["huge.txt"]
    assert "outside the allowed" in failures["link.md"] and "outside the allowed" in failures["secret.md"]
    bad_records = Counter(Path(f.file).name for f in report.record_failures)  # broken molecules, one by one
    assert bad_records == {"drugbank.sdf": 2, "mols.smi": 1} and not report.warnings
    assert all(f.line is not None for f in report.record_failures)
    assert report.skipped_files == 2  # the caption sidecars ct.png.txt and he.json


def test_nothing_of_a_bad_file_is_written(ingested):
    engine, _, _ = ingested
    for name in ("truncated", "fake", "bomb", "huge", "secret", "link", "ct.png.txt", "he.json"):
        assert not docs_named(engine, name), name
    complete = engine.registry.list(status=DocumentStatus.COMPLETE, limit=100_000)
    assert len(complete) == engine.registry.count()
    ids = {d.id for d in complete}
    written = [r for p in engine.encoders.collections() for r in rows(engine, p.name, "", ("id", "document_id"))]
    assert {r["document_id"] for r in written} <= ids  # every row belongs to a complete document
    # every chunk is written once, or twice for an image (its text record and its vector)
    assert len({r["id"] for r in written}) == sum(d.chunk_count for d in complete)


def test_drug_labels(ingested):
    engine, _, _ = ingested
    lipitor = doc_rows(engine, "lipitor-orig.xml")["eagle_text_biomed"]
    sections = Counter(r["biomed_section"] for r in lipitor)
    assert {"indications_and_usage", "dosage", "warnings", "adverse_reactions", "drug_interactions",
            "use_in_specific_populations"} <= set(sections)
    assert all(r["primary_drugs"].split(",")[0] == "atorvastatin" for r in lipitor)
    assert {json.loads(r["metadata"])["biomed_doc_type"] for r in lipitor} == {"drug_label"}
    assert {r["chunk_type"] for r in lipitor} == {"biomed_text"}
    humira = doc_rows(engine, "humira.xml")["eagle_text_biomed"]
    assert "adalimumab" in humira[0]["primary_drugs"].split(",")
    assert {"warnings", "contraindications"} <= {r["biomed_section"] for r in humira}  # boxed + precautions
    viagra = doc_rows(engine, "64f8040f")["eagle_text_biomed"]
    assert all("sildenafil" in r["primary_drugs"] for r in viagra)
    cough = doc_rows(engine, "cough.xml")["eagle_text_biomed"]
    assert {"purpose", "warnings", "indications_and_usage"} <= {r["biomed_section"] for r in cough}
    assert "diphenhydramine" in cough[0]["primary_drugs"]


def test_research_pdf_and_patent(ingested):
    engine, _, _ = ingested
    pdf = [r for rs in doc_rows(engine, "paper.pdf").values() for r in rs]
    assert {"methods", "results", "discussion"} <= {r["biomed_section"] for r in pdf}
    assert {json.loads(r["metadata"])["biomed_doc_type"] for r in pdf} == {"research"}
    assert all(r["primary_drugs"].startswith("imatinib") for r in pdf if "Methods" in r["path"])
    patent = [r for rs in doc_rows(engine, "kinase_patent.md").values() for r in rs]
    assert {json.loads(r["metadata"])["biomed_doc_type"] for r in patent} == {"patent"}
    assert "claims" in {r["biomed_section"] for r in patent}


def test_compounds_and_the_fingerprint_index(ingested):
    engine, _, _ = ingested
    chemical = rows(engine, "eagle_chemical", "", ("document_id", "chunk_type", "primary_drugs", "metadata"))
    molecules = {r["document_id"] for r in chemical}
    assert len(molecules) == 1000 + 2  # the SDF's good molecules and the SMILES list's two good lines
    assert {r["chunk_type"] for r in chemical} == {"chemical"}
    by_name = {json.loads(r["metadata"])["name"]: r for r in chemical}
    assert by_name["Leuprolide"]["primary_drugs"] == "leuprolide"
    assert by_name["Acetylsalicylic acid"]["primary_drugs"].split(",")[0] == "aspirin"
    assert json.loads(by_name["Leuprolide"]["metadata"])["biomed_doc_type"] == "compound"
    assert (fingerprint_dir(engine.settings.data_path) / "fingerprints.npz").is_file()
    result = biomed_retrieve_compounds(engine, "aspirin", top_k=3)
    assert result.hits[0].similarity == 1.0 and result.hits[0].smiles == "CC(=O)Oc1ccccc1C(=O)O"
    assert [h.rank for h in result.hits] == [1, 2, 3] and result.hits[0].kb_name == "bio"
    assert result.hits[1].similarity >= result.hits[2].similarity
    assert result.total_indexed == len(molecules)
    by_smiles = biomed_retrieve_compounds(engine, "CC(=O)Oc1ccccc1C(=O)O", top_k=1, kb_name="bio")
    assert by_smiles.hits[0].similarity == 1.0
    assert biomed_retrieve_compounds(engine, "aspirin", top_k=1, kb_name="other").hits == ()
    with pytest.raises(InvalidStructure, match="neither a valid SMILES"):
        biomed_retrieve_compounds(engine, "C1CC(N", top_k=3)
    with pytest.raises(InvalidRequest):
        biomed_retrieve_compounds(engine, "aspirin", top_k=0)


def test_images(ingested):
    engine, _, _ = ingested
    expected = {"ct.png": "eagle_medical_radiology", "scan.dcm": "eagle_medical_radiology",
                "brain.nii.gz": "eagle_medical_radiology", "he.png": "eagle_medical_pathology",
                "photo.png": "eagle_visual"}
    for name, collection in expected.items():
        found = rows(engine, collection, f'path == "{name}"',
                     ("chunk_type", "image_path", "image_id", "parent_section", "content_summary"))
        assert len(found) == 1, name
        assert found[0]["image_path"].endswith(name)
        assert found[0]["chunk_type"] == ("image" if collection == "eagle_visual" else "medical_image")
    he = rows(engine, "eagle_medical_pathology", 'path == "he.png"', ("parent_section", "content_summary"))[0]
    assert he["parent_section"] == "Figure 3" and "H&E" in he["content_summary"]
    ct = rows(engine, "eagle_medical_radiology", 'path == "ct.png"', ("content_summary",))[0]
    assert "spiculated nodule" in ct["content_summary"]  # the caption came from the sidecar


def test_scifact_and_general_text(ingested):
    engine, _, _ = ingested
    docs = [d for d in engine.registry.list(limit=100_000) if "corpus.jsonl" in d.source_uri]
    assert len(docs) == SCIFACT_DOCS
    placed = {c: {r["document_id"] for r in rows(engine, c, "", ("document_id",))} for c in TEXT_COLLECTIONS}
    assert placed["eagle_text_biomed"].isdisjoint(placed["eagle_text"])  # exclusive group
    ids = {d.id for d in docs}
    assert ids <= placed["eagle_text_biomed"] | placed["eagle_text"]
    assert len(ids & placed["eagle_text_biomed"]) >= 0.8 * SCIFACT_DOCS
    metas = [json.loads(r["metadata"]) for r in rows(engine, "eagle_text_biomed", "", ("document_id", "metadata"))
             if r["document_id"] in ids]
    assert Counter(m["biomed_doc_type"] for m in metas)["research"] >= 0.7 * len(metas)
    assert any(m["primary_drugs"] for m in metas)
    earnings = doc_rows(engine, "earnings.txt")
    [row] = earnings["eagle_text"]
    assert json.loads(row["metadata"])["biomed_text_profile"] == "general"


def test_reingest_is_skipped_and_fingerprints_persist(ingested, tmp_path):
    engine, _, paths = ingested
    again = engine.ingest([paths["good"] / "drugbank.sdf", paths["good"] / "ct.png"], kb_name="bio")
    assert again.skipped_unchanged == 1001 and again.documents == 0 and not again.failures
    with Engine(engine.settings) as reopened:
        assert biomed_retrieve_compounds(reopened, "acetylsalicylic acid", top_k=1).hits[0].similarity == 1.0


@pytest.fixture(scope="module")
def real_engine(tmp_path_factory):
    """The real bundled encoder (auto mode, no deterministic fallback) on a small set."""
    with pytest.MonkeyPatch.context() as patch:
        for var in [v for v in os.environ if v.startswith("EAGLE_BIOMED_")]:
            patch.delenv(var)
        yield from _real_engine(tmp_path_factory)


def _real_engine(tmp_path_factory):
    src = tmp_path_factory.mktemp("real-src")
    (src / "paper.pdf").write_bytes(research_pdf())
    (src / "earnings.txt").write_text(EARNINGS)
    (src / "ct.png").write_bytes(png_bytes())
    (src / "ct.png.txt").write_text("Axial CT of the chest")
    lines = shared(SCIFACT / "corpus.jsonl").read_text(encoding="utf-8").splitlines()[:20]
    (src / "corpus.jsonl").write_text("\n".join(lines) + "\n")
    settings = biomed_settings(tmp_path_factory.mktemp("real-data"), deterministic=False)
    with Engine(settings) as engine:
        report = engine.ingest([shared(LABELS) / "lipitor-orig.xml", src], kb_name="real")
        yield engine, report


def test_real_bundled_encoder_end_to_end(real_engine):
    engine, report = real_engine
    # the radiology image has no checkpoint: it is indexed by its caption only (vision none)
    assert report.failures == []
    assert report.documents == 1 + 1 + 1 + 1 + 20
    [ct] = doc_rows(engine, "ct.png", ("text",))["eagle_text_biomed"]
    assert json.loads(ct["metadata"])["vision"] == "none" and "Axial CT of the chest" in ct["text"]
    described = {r["label"]: r for r in engine.encoders.describe()}
    assert described["pubmedbert"]["loaded"] and described["pubmedbert"]["semantic"]
    assert "bge" in described["pubmedbert"]["resolved"].lower()
    lipitor = doc_rows(engine, "lipitor-orig.xml")["eagle_text_biomed"]
    assert {"indications_and_usage", "dosage", "warnings"} <= {r["biomed_section"] for r in lipitor}
    pdf = doc_rows(engine, "paper.pdf")["eagle_text_biomed"]
    assert "methods" in {r["biomed_section"] for r in pdf}
    earnings = doc_rows(engine, "earnings.txt")
    # in the band Tier-2 decides: without an LLM, a text of 330 characters is too short to judge (short_chars
    # 500) and gets the short default, biomedical
    assert "eagle_text" not in earnings
    assert json.loads(earnings["eagle_text_biomed"][0]["metadata"])["biomed_text_profile_rule"] == \
        "tier2_short_default"
    assert not rows(engine, "eagle_medical_radiology")

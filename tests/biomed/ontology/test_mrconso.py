"""The optional MRCONSO loader and its merge, on a small synthetic RRF file written by the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag_biomed.ontology import umls
from eagle_rag_biomed.ontology.mrconso import MRCONSO_ENV, load_umls_metathesaurus, mrconso_path_from_env

from .vocab_fixtures import small_vocabulary

pytestmark = pytest.mark.unit

# CUI|LAT|TS|LUI|STT|SUI|ISPREF|AUI|SAUI|SCUI|SDUI|SAB|TTY|CODE|STR|SRL|SUPPRESS|CVF|
ROWS = [
    "C0006142|ENG|P|L0006142|PF|S0010790|Y|A0000001||||MSH|MH|D001943|Breast Neoplasms|0|N|256|",
    "C0006142|ENG|S|L0000002|PF|S0000002|Y|A0000002||||NCI|PT|C4872|Malignant Breast Neoplasm|0|N||",
    "C0006142|FRE|P|L0000003|PF|S0000003|Y|A0000003||||MSHFRE|MH|D001943|Tumeurs du sein|3|N||",
    "C0006142|ENG|S|L0000004|VO|S0000004|N|A0000004||||MSH|ET|D001943|Breast Tumour Not Preferred|0|N||",
    "C0006142|ENG|S|L0000005|PF|S0000005|Y|A0000005||||NCI|SY|C4872|Obsolete Breast Thing|0|O||",
    "C7777777|ENG|S|L0000006|VC|S0000006|Y|A0000006||||NCI|SY|C1|BI 1810631|0|N||",
    "C7777777|ENG|P|L0000007|PF|S0000007|Y|A0000007||||NCI|PT|C1|Zongertinib|0|N||",
    "C9999999|ENG|P|L0000008|PF|S0000008|Y|A0000008||||MSH|MH|D999999|Fictional Syndrome X|0|N||",
    "C9999999|ENG|S|L0000009|PF|S0000009|Y|A0000009||||MSH|ET|D999999|FSX disease|0|N||",
    "too|few|columns",
]


@pytest.fixture
def mrconso(tmp_path: Path) -> Path:
    path = tmp_path / "MRCONSO.RRF"
    path.write_text("\n".join(ROWS) + "\n", encoding="utf-8")
    return path


def test_loader_keeps_english_preferred_rows(mrconso: Path) -> None:
    concepts = load_umls_metathesaurus(mrconso)
    assert set(concepts) == {"breast neoplasms", "zongertinib", "fictional syndrome x"}
    breast = concepts["breast neoplasms"]
    assert breast.cui == "C0006142" and breast.canonical == "Breast Neoplasms"
    assert breast.aliases == ("Malignant Breast Neoplasm",)  # no FRE, no ISPREF=N, no obsolete row
    assert breast.sources == ("MSH", "NCI")
    assert concepts["zongertinib"].canonical == "Zongertinib"  # TS=P + STT=PF, not the first row
    assert concepts["zongertinib"].aliases == ("BI 1810631",)


def test_missing_file_is_optional(tmp_path: Path) -> None:
    assert load_umls_metathesaurus(tmp_path / "absent.RRF") == {}
    assert load_umls_metathesaurus(None) == {}


def test_path_from_the_environment() -> None:
    assert mrconso_path_from_env({}) is None
    assert mrconso_path_from_env({MRCONSO_ENV: "  "}) is None
    assert mrconso_path_from_env({MRCONSO_ENV: "/data/MRCONSO.RRF"}) == Path("/data/MRCONSO.RRF")


def test_merge_by_cui_by_name_and_new_concepts(mrconso: Path) -> None:
    ontology = umls.build_ontology(vocabulary=small_vocabulary(), environ={MRCONSO_ENV: str(mrconso)})
    umls.set_ontology(ontology)
    try:
        breast = umls.resolve_entity("Malignant Breast Neoplasm")  # by CUI into the curated entity
        assert breast["entity"] == "breast cancer" and breast["source"] == "curated"
        assert breast["pathways"] == ["PI3K-AKT"]
        zongertinib = umls.resolve_entity("BI 1810631")  # by canonical name into the compiled entry
        assert zongertinib["entity"] == "Zongertinib" and zongertinib["cui"] == "C7777777"
        assert zongertinib["ids"]["drugbank"] == "DB99999"
        fictional = umls.resolve_entity("FSX disease")  # a new concept, empty curated fields
        assert fictional == {"entity": "Fictional Syndrome X", "found": True, "cui": "C9999999",
                             "aliases": ["FSX disease"], "pathways": [], "related_drugs": [],
                             "type": "concept", "source": "umls", "ids": {"cui": "C9999999"}}
        assert [m.canonical for m in umls.match_entities("a case of fictional syndrome x")] == [
            "Fictional Syndrome X"]
    finally:
        umls.reset_ontology_cache()


def test_the_lazy_ontology_reads_the_environment(mrconso: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MRCONSO_ENV, str(mrconso))
    monkeypatch.setattr(umls, "packaged_vocabulary", small_vocabulary)
    umls.reset_ontology_cache()
    try:
        assert umls.resolve_entity("FSX disease")["found"] is True
    finally:
        umls.reset_ontology_cache()

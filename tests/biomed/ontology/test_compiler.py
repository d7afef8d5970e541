"""The vocabulary compiler on a tiny synthetic source tree: merge rules, filters, determinism."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from eagle_rag_biomed.ontology.common_words import packaged_common_words
from eagle_rag_biomed.ontology.compiler.merge import compile_vocabulary, to_gzip_bytes
from eagle_rag_biomed.ontology.compiler.notice import render_notice

pytestmark = pytest.mark.unit

HGNC_HEADER = ["hgnc_id", "symbol", "name", "locus_group", "status", "alias_symbol", "prev_symbol",
               "date_modified"]
MESH_TERMS_HEADER = ["DescriptorUI", "DescriptorName", "ConceptUI", "TermUI", "TermName",
                     "ConceptPreferredTermYN", "IsPermutedTermYN", "LexicalTag", "RecordPreferredTermYN"]


def write_gz(path: Path, rows: list[list[str]]) -> None:
    path.write_bytes(gzip.compress("".join("\t".join(r) + "\n" for r in rows).encode(), mtime=0))


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    root = tmp_path / "ontology"
    (root / "disease_ontology" / "subsets").mkdir(parents=True)
    (root / "mesh").mkdir()
    (root / "drugbank_vocabulary.csv").write_text(
        "DrugBank ID,Accession Numbers,Common name,CAS,UNII,Synonyms,Standard InChI Key\n"
        "DB00619,APRD01028,Imatinib,152459-95-5,BKJ8M8G5HI,Gleevec | Imatinib | STI-571 | Water,KEY1\n"
        "DB09145,,Water,7732-18-5,059QF0KO0R,H2O | Water,KEY2\n", encoding="utf-8")
    write_gz(root / "hgnc_complete_set.txt.gz", [
        HGNC_HEADER,
        ["HGNC:7132", "KMT2A", "lysine methyltransferase 2A", "protein-coding gene", "Approved", "ALL-1|WAS",
         "MLL", "2024-10-18"],
        ["HGNC:1516", "CAT", "catalase", "protein-coding gene", "Approved", "", "", "2024-01-01"],
        ["HGNC:9", "OLD1", "withdrawn gene", "protein-coding gene", "Entry Withdrawn", "", "", "2020-01-01"],
    ])
    do_dir = root / "disease_ontology"
    (do_dir / "HumanDO.tsv").write_text(
        'id\tlabel\tsubClassOf\n"DOID:1324"\t"lung cancer"\t"cancer"\n'
        '"DOID:3683"\t"lung benign neoplasm"\t"lung disease"\n', encoding="utf-8")
    (do_dir / "allXREFinDO.tsv").write_text(
        'id\tlabel\txref\n"DOID:1324"\t"lung cancer"\t"UMLS_CUI:C0242379"\n'
        '"DOID:1324"\t"lung cancer"\t"MESH:D000001"\n"DOID:3683"\t"lung benign neoplasm"\t"MESH:D000002"\n',
        encoding="utf-8")
    (do_dir / "subsets" / "DO_test_slim.obo").write_text(
        "format-version: 1.2\ndata-version: doid/releases/2026-07-31/subsets/DO_test_slim.obo\n\n"
        '[Term]\nid: DOID:1324\nname: lung cancer\nsynonym: "lung neoplasm" EXACT []\n'
        'synonym: "cancer of the chest" RELATED []\n', encoding="utf-8")
    write_gz(root / "mesh" / "mesh2024_terms.tsv.gz", [
        MESH_TERMS_HEADER,
        ["D000001", "Lung Cancers", "M1", "T1", "Lung Cancers", "Y", "N", "NON", "Y"],
        ["D000001", "Lung Cancers", "M1", "T2", "Lung Cancer", "N", "N", "NON", "N"],
        ["D000002", "Lung Neoplasms", "M2", "T3", "Lung Neoplasms", "Y", "N", "NON", "Y"],
        ["D000002", "Lung Neoplasms", "M2", "T4", "Neoplasms, Pulmonary", "N", "N", "NON", "N"],
        ["D000003", "Imatinib Mesylate", "M3", "T5", "Imatinib Mesylate", "Y", "N", "NON", "Y"],
        ["D000003", "Imatinib Mesylate", "M3", "T6", "STI-571", "N", "N", "NON", "N"],
        ["D000004", "Proteins", "M4", "T7", "Proteins", "Y", "N", "NON", "Y"],
        ["D000005", "Calcimycin", "M5", "T8", "Calcimycin", "Y", "N", "NON", "Y"],
        ["D000005", "Calcimycin", "M5", "T9", "Benzoxazole, 4-(x)-", "N", "N", "NON", "N"],
    ])
    write_gz(root / "mesh" / "mesh2024_trees.tsv.gz", [
        ["DescriptorUI", "DescriptorName", "tree_location"],
        ["D000001", "Lung Cancers", "C04.588.894.797"], ["D000002", "Lung Neoplasms", "C08.381.540"],
        ["D000003", "Imatinib Mesylate", "D02.065.277"], ["D000004", "Proteins", "D12.776"],
        ["D000005", "Calcimycin", "D02.355.291.933"],
    ])
    return root


def entries(document: dict) -> dict[str, dict]:
    return {entry["canonical"]: entry for entry in document["entries"]}


def test_merge_rules(sources: Path) -> None:
    document = compile_vocabulary(sources, packaged_common_words())
    by_name = entries(document)
    assert "OLD1" not in by_name  # withdrawn
    assert by_name["KMT2A"]["synonyms"] == ["lysine methyltransferase 2A", "MLL", "ALL-1"]  # WAS dropped
    assert by_name["CAT"]["ids"] == {"hgnc": "HGNC:1516"}
    assert by_name["Water"]["nomatch"] is True  # a common word: kept for its synonyms only
    assert by_name["Water"]["synonyms"] == ["H2O"]
    assert "nomatch" not in by_name["CAT"]
    imatinib = by_name["Imatinib"]
    assert imatinib["ids"] == {"drugbank": "DB00619", "cas": "152459-95-5", "unii": "BKJ8M8G5HI",
                               "inchikey": "KEY1", "mesh": "D000003"}  # MeSH joined by synonym STI-571
    assert imatinib["synonyms"] == ["Gleevec", "STI-571", "Imatinib Mesylate"]
    lung = by_name["lung cancer"]  # MeSH D000001 joins the DO term by a shared name
    assert lung["ids"] == {"doid": "DOID:1324", "cui": "C0242379", "mesh": "D000001"}
    assert lung["synonyms"] == ["lung neoplasm", "Lung Cancers"]  # EXACT synonyms only
    # a cross-reference without a shared name does not merge: MeSH D000002 stays its own entry
    assert by_name["Lung Neoplasms"]["synonyms"] == ["Pulmonary Neoplasms"]
    assert by_name["lung benign neoplasm"]["ids"]["mesh"] == "D000002"
    assert "Proteins" not in by_name  # a broad class (tree depth 2)
    assert by_name["Calcimycin"]["type"] == "chemical" and by_name["Calcimycin"]["synonyms"] == []
    assert document["counts"] == {"gene": 2, "drug": 2, "disease": 3, "chemical": 1, "synonyms": 11}
    assert document["sources"]["disease_ontology"]["version"] == "release 2026-07-31"


def test_output_is_deterministic_and_compact(sources: Path) -> None:
    first = to_gzip_bytes(compile_vocabulary(sources, packaged_common_words()))
    second = to_gzip_bytes(compile_vocabulary(sources, packaged_common_words()))
    assert first == second
    decoded = json.loads(gzip.decompress(first))
    assert set(decoded["entries"][0]) == {"canonical", "type", "ids", "synonyms"}
    assert b" " not in gzip.decompress(first)[:40]  # compact separators


def test_notice_lists_sources_and_counts(sources: Path) -> None:
    notice = render_notice(compile_vocabulary(sources, packaged_common_words()))
    assert "| mesh (" in notice and "CC0" in notice and "- gene: 2" in notice

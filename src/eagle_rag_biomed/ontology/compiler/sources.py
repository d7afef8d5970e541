"""Readers for the raw vocabulary sources in ``shared/data/ontology``: one typed record per row.

Each reader returns records in file order and never filters by meaning (the filters live in
``filters.py``); fields that hold several values are split into tuples, empty values dropped.
"""

from __future__ import annotations

import csv
import gzip
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

DRUGBANK_FILE = "drugbank_vocabulary.csv"
HGNC_FILE = "hgnc_complete_set.txt.gz"
DO_DIR = "disease_ontology"
MESH_DIR = "mesh"


@dataclass(frozen=True, slots=True)
class DrugRecord:
    drugbank_id: str
    name: str
    synonyms: tuple[str, ...]
    cas: str
    unii: str
    inchikey: str


@dataclass(frozen=True, slots=True)
class GeneRecord:
    hgnc_id: str
    symbol: str
    name: str
    aliases: tuple[str, ...]
    previous: tuple[str, ...]
    status: str
    locus_group: str


@dataclass(frozen=True, slots=True)
class DiseaseRecord:
    doid: str
    name: str
    synonyms: tuple[str, ...]
    mesh: tuple[str, ...]
    cuis: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MeshDescriptor:
    ui: str
    name: str
    terms: tuple[str, ...]  # record-preferred first, then concept-preferred, then the others
    trees: tuple[str, ...]


def _split(value: str, sep: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.strip().strip('"').split(sep) if part.strip())


def read_drugbank(root: Path) -> list[DrugRecord]:
    """DrugBank open vocabulary: one record per drug; synonyms split on `` | ``."""
    with (root / DRUGBANK_FILE).open(encoding="utf-8", newline="") as handle:
        return [
            DrugRecord(row["DrugBank ID"].strip(), row["Common name"].strip(),
                       _split(row["Synonyms"], " | "), row["CAS"].strip(), row["UNII"].strip(),
                       row["Standard InChI Key"].strip())
            for row in csv.DictReader(handle)
        ]


def read_hgnc(root: Path) -> list[GeneRecord]:
    """HGNC complete set: approved and withdrawn rows alike (the caller skips withdrawn)."""
    with gzip.open(root / HGNC_FILE, "rt", encoding="utf-8", newline="") as handle:
        return [
            GeneRecord(row["hgnc_id"], row["symbol"].strip(), row["name"].strip(),
                       _split(row["alias_symbol"], "|"), _split(row["prev_symbol"], "|"),
                       row["status"].strip(), row["locus_group"].strip())
            for row in csv.DictReader(handle, delimiter="\t")
        ]


_OBO_SYNONYM = re.compile(r'^synonym: "((?:[^"\\]|\\.)*)" (\w+)')


def _obo_exact_synonyms(directory: Path) -> dict[str, list[str]]:
    """EXACT synonyms of every non-obsolete term in the slim ``.obo`` subsets, by DOID."""
    synonyms: dict[str, list[str]] = defaultdict(list)
    for path in sorted(directory.glob("*.obo")):
        for block in path.read_text(encoding="utf-8").split("\n\n"):
            if not block.startswith("[Term]") or "\nis_obsolete: true" in block:
                continue
            doid = ""
            for line in block.splitlines():
                if line.startswith("id: "):
                    doid = line[4:].strip()
                match = _OBO_SYNONYM.match(line)
                if doid and match and match.group(2) == "EXACT":
                    text = match.group(1).replace('\\"', '"')
                    if text not in synonyms[doid]:
                        synonyms[doid].append(text)
    return synonyms


def read_disease_ontology(root: Path) -> list[DiseaseRecord]:
    """Human Disease Ontology terms with EXACT synonyms and MESH / UMLS_CUI cross-references."""
    directory = root / DO_DIR
    xrefs: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for row in _tsv(directory / "allXREFinDO.tsv"):
        prefix, _, value = row["xref"].partition(":")
        if prefix in {"MESH", "UMLS_CUI"} and value not in xrefs[row["id"]][prefix]:
            xrefs[row["id"]][prefix].append(value)
    synonyms = _obo_exact_synonyms(directory / "subsets")
    return [
        DiseaseRecord(row["id"], row["label"], tuple(synonyms.get(row["id"], ())),
                      tuple(xrefs[row["id"]]["MESH"]), tuple(xrefs[row["id"]]["UMLS_CUI"]))
        for row in _tsv(directory / "HumanDO.tsv")
    ]


def _tsv(path: Path) -> Iterator[dict[str, str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as handle:  # type: ignore[operator]
        for row in csv.DictReader(handle, delimiter="\t"):
            yield {key: (value or "").strip().strip('"') for key, value in row.items()}


def read_mesh(root: Path) -> list[MeshDescriptor]:
    """MeSH descriptors (non-permuted terms) with their tree numbers, in descriptor-id order."""
    directory = root / MESH_DIR
    ranked: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    names: dict[str, str] = {}
    for order, row in enumerate(_tsv(directory / "mesh2024_terms.tsv.gz")):
        if row["IsPermutedTermYN"] == "Y":
            continue
        ui = row["DescriptorUI"]
        names[ui] = row["DescriptorName"]
        rank = 0 if row["RecordPreferredTermYN"] == "Y" else 1 if row["ConceptPreferredTermYN"] == "Y" else 2
        ranked[ui].append((rank, order, row["TermName"]))
    trees: dict[str, list[str]] = defaultdict(list)
    for row in _tsv(directory / "mesh2024_trees.tsv.gz"):
        trees[row["DescriptorUI"]].append(row["tree_location"])
    descriptors = []
    for ui in sorted(names):
        terms: list[str] = []
        for _, _, term in sorted(ranked[ui]):
            if term not in terms:
                terms.append(term)
        descriptors.append(MeshDescriptor(ui, names[ui], tuple(terms), tuple(sorted(set(trees[ui])))))
    return descriptors


def source_versions(root: Path) -> dict[str, str]:
    """Version labels read from the sources themselves (not from the clock): deterministic."""
    with gzip.open(root / HGNC_FILE, "rt", encoding="utf-8", newline="") as handle:
        hgnc = max((row["date_modified"] for row in csv.DictReader(handle, delimiter="\t")), default="")
    do_version = ""
    for path in sorted((root / DO_DIR / "subsets").glob("*.obo")):
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("data-version:"):
                    do_version = line.split(":", 1)[1].strip().split("/")[2] if "/releases/" in line else ""
                    break
        if do_version:
            break
    mesh_year = next((p.name[4:8] for p in sorted((root / MESH_DIR).glob("mesh*_terms.tsv.gz"))), "")
    return {"drugbank": "open vocabulary", "hgnc": f"complete set, last modified {hgnc}",
            "disease_ontology": f"release {do_version}", "mesh": f"MeSH {mesh_year}"}

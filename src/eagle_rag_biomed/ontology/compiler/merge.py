"""Merge the sources into one list of vocabulary entries and write it deterministically.

Entries are ``{"canonical", "type", "ids", "synonyms"}``. Order of work: HGNC genes (approved only),
DrugBank drugs, Disease Ontology diseases, then MeSH descriptors: a C-tree (disease) descriptor joins
the DO term that cross-references it and shares one of its names, else it becomes its own disease
entry (a cross-reference alone is not enough: "Lung Neoplasms" is referenced by "lung benign
neoplasm"); a D-tree (chemical) descriptor joins the
DrugBank drug with the same name or synonym, else it becomes a ``chemical`` entry unless it is a
broad class (tree depth <= 2, e.g. "Proteins"). Synonyms pass ``filters.keep_surface``; an entry
whose canonical name fails it ("Water", a 300-character peptide name) is kept with ``"nomatch":
true`` (its synonyms still match) or, with no synonym left, dropped. Output bytes depend only on the
inputs.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eagle_rag_biomed.ontology.common_words import CommonWords
from eagle_rag_biomed.ontology.compiler import sources
from eagle_rag_biomed.ontology.compiler.filters import SurfaceKind, keep_surface, uninvert
from eagle_rag_biomed.ontology.normalize import normalize_key

FORMAT_VERSION = 1
TYPE_ORDER = {"gene": 0, "drug": 1, "disease": 2, "chemical": 3}
KIND_OF_TYPE = {"drug": SurfaceKind.DRUG, "chemical": SurfaceKind.CHEMICAL, "disease": SurfaceKind.DISEASE}


@dataclass
class Entry:
    canonical: str
    type: str
    ids: dict[str, str]
    synonyms: list[str] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)
    nomatch: bool = False  # the canonical name is a common word or too long: not matched in text

    def __post_init__(self) -> None:
        self.keys.add(normalize_key(self.canonical))

    def add(self, surface: str, kind: SurfaceKind, common: CommonWords) -> None:
        """Add a synonym unless it is filtered out or already present (by normalised key)."""
        key = normalize_key(surface)
        if key not in self.keys and keep_surface(surface, kind, common):
            self.keys.add(key)
            self.synonyms.append(" ".join(surface.split()))

    def as_json(self) -> dict[str, Any]:
        document = {"canonical": self.canonical, "type": self.type, "ids": self.ids, "synonyms": self.synonyms}
        return {**document, "nomatch": True} if self.nomatch else document


class Compiler:
    """Holds the entries while the sources are merged; see the module docstring for the rules."""

    def __init__(self, root: Path, common: CommonWords) -> None:
        self.root = root
        self.common = common
        self.entries: list[Entry] = []
        self._mesh_merged: set[int] = set()

    def _new(self, canonical: str, type_: str, ids: dict[str, str], kind: SurfaceKind) -> Entry:
        entry = Entry(" ".join(canonical.split()), type_, {k: v for k, v in ids.items() if v},
                      nomatch=not keep_surface(canonical, kind, self.common))
        self.entries.append(entry)
        return entry

    def genes(self) -> None:
        for gene in sources.read_hgnc(self.root):
            if gene.status != "Approved":
                continue
            entry = self._new(gene.symbol, "gene", {"hgnc": gene.hgnc_id}, SurfaceKind.GENE_SYMBOL)
            if gene.locus_group == "protein-coding gene" and gene.name:
                entry.add(gene.name, SurfaceKind.GENE_NAME, self.common)
            for alias in (*gene.previous, *gene.aliases):
                entry.add(alias, SurfaceKind.GENE_ALIAS, self.common)

    def drugs(self) -> None:
        for drug in sources.read_drugbank(self.root):
            ids = {"drugbank": drug.drugbank_id, "cas": drug.cas, "unii": drug.unii, "inchikey": drug.inchikey}
            entry = self._new(drug.name, "drug", ids, SurfaceKind.DRUG)
            for synonym in drug.synonyms:
                entry.add(synonym, SurfaceKind.DRUG, self.common)

    def diseases(self) -> dict[str, list[Entry]]:
        by_mesh: dict[str, list[Entry]] = {}
        for disease in sources.read_disease_ontology(self.root):
            ids = {"doid": disease.doid, "cui": disease.cuis[0] if disease.cuis else "",
                   "mesh": next((m for m in disease.mesh if m.startswith("D")), "")}
            entry = self._new(disease.name, "disease", ids, SurfaceKind.DISEASE)
            for synonym in disease.synonyms:
                entry.add(synonym, SurfaceKind.DISEASE, self.common)
            for mesh in disease.mesh:
                by_mesh.setdefault(mesh, []).append(entry)
        return by_mesh

    def _add_mesh_terms(self, entry: Entry, descriptor: sources.MeshDescriptor) -> None:
        kind = KIND_OF_TYPE[entry.type]
        for term in descriptor.terms:
            natural = uninvert(term) if ", " in term else term
            if natural:
                entry.add(natural, kind, self.common)

    def mesh(self, do_by_mesh: dict[str, list[Entry]]) -> None:
        drugs = [e for e in self.entries if e.type == "drug"]
        by_name = {normalize_key(e.canonical): e for e in reversed(drugs)}
        by_synonym: dict[str, Entry | None] = {}
        for entry in drugs:
            for key in entry.keys:
                by_synonym[key] = entry if by_synonym.get(key, entry) is entry else None
        for descriptor in sources.read_mesh(self.root):
            branches = {tree[0] for tree in descriptor.trees}
            names = [normalize_key(uninvert(t) or t) for t in descriptor.terms]
            if "C" in branches:
                candidates = do_by_mesh.get(descriptor.ui, [])
                target = next((e for e in candidates if normalize_key(e.canonical) in names), None)
                if target is not None and id(target) not in self._mesh_merged:
                    self._mesh_merged.add(id(target))
                    target.ids["mesh"] = descriptor.ui
                elif target is None:
                    target = self._new(descriptor.name, "disease", {"mesh": descriptor.ui}, SurfaceKind.DISEASE)
            elif "D" in branches:
                target = next((by_name[k] for k in names if k in by_name), None) or next(
                    (hit for k in names if (hit := by_synonym.get(k)) is not None), None)
                if target is not None:
                    target.ids.setdefault("mesh", descriptor.ui)
                elif min(tree.count(".") + 1 for tree in descriptor.trees) > 2:
                    target = self._new(descriptor.name, "chemical", {"mesh": descriptor.ui}, SurfaceKind.CHEMICAL)
            else:
                continue
            if target is not None:
                self._add_mesh_terms(target, descriptor)

    def run(self) -> list[Entry]:
        self.genes()
        self.drugs()
        self.mesh(self.diseases())
        kept = [e for e in self.entries if e.synonyms or not e.nomatch]  # drop the unreachable ones
        return sorted(kept, key=lambda e: (TYPE_ORDER[e.type], normalize_key(e.canonical),
                                                   sorted(e.ids.items())))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_files(root: Path) -> dict[str, list[Path]]:
    do_dir = root / sources.DO_DIR
    return {
        "drugbank": [root / sources.DRUGBANK_FILE],
        "hgnc": [root / sources.HGNC_FILE],
        "disease_ontology": [do_dir / "HumanDO.tsv", do_dir / "allXREFinDO.tsv",
                             *sorted((do_dir / "subsets").glob("*.obo"))],
        "mesh": sorted((root / sources.MESH_DIR).glob("*.tsv.gz")),
    }


def compile_vocabulary(root: Path, common: CommonWords) -> dict[str, Any]:
    """The whole compiled document: format, sources (version, file hashes), counts, entries."""
    entries = Compiler(root, common).run()
    versions = sources.source_versions(root)
    files = source_files(root)
    counts: dict[str, int] = {}
    for entry in entries:
        counts[entry.type] = counts.get(entry.type, 0) + 1
    counts["synonyms"] = sum(len(e.synonyms) for e in entries)
    return {
        "format": FORMAT_VERSION,
        "sources": {name: {"version": versions[name],
                           "files": {p.name: sha256(p) for p in paths}} for name, paths in files.items()},
        "counts": counts,
        "entries": [e.as_json() for e in entries],
    }


def to_gzip_bytes(document: dict[str, Any]) -> bytes:
    """Compact JSON, gzip level 9 with a zero timestamp and no file name: same input, same bytes."""
    raw = json.dumps(document, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as handle:
        handle.write(raw)
    return buffer.getvalue()

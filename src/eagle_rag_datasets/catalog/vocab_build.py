"""Derive the specialty, disease-class and condition synonym groups from the project's vocabularies.

Run ``python -m eagle_rag_datasets.catalog.vocab_build --ontology shared/data/ontology --update
src/eagle_rag_datasets/data/synonyms.yaml`` to regenerate the groups marked ``origin: vocabulary``
(curated groups are kept). Rules, so that the groups stay narrow:

* MeSH: only the terms of a descriptor's *preferred concept* (the concept of its record-preferred
  term). Other concepts of a descriptor are narrower or related (MeSH "Neoplasms" holds the
  concepts Neoplasms, Cancer and Benign Neoplasms), so they never join the group. Permuted and
  inverted forms ("Oncology, Medical") and abbreviation entries (lexical tags ABB, ACR) are dropped.
* Specialties: MeSH tree H02.403 (Specialties, Medical), its first level and the internal-medicine
  (H02.403.429) and surgical (H02.403.810) sub-specialties. Disease classes: the MeSH category
  headings of tree C plus Mental Disorders (F03). Conditions: a short list of named descriptors.
* Disease Ontology (DO_CFDE_slim): cancer classes by site, name plus EXACT synonyms; a synonym
  naming a tumour or neoplasm without "malignant" is broader than cancer and is dropped, as are
  qualified forms (hereditary, adult, primary...), comma forms and abbreviations.
* Terms with an all-capitals word (an abbreviation such as "ENT") or a parenthesis are dropped;
  a few broader terms MeSH keeps in a preferred concept are listed in ``EXCLUDED_TERMS``.
* Chinese terms are curated translations (standard Chinese clinical terms), keyed by MeSH or DO id;
  a group is kept only with at least two terms.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from eagle_rag_datasets.catalog.vocab_zh import (
    ALLOWED_ABBREVIATIONS,
    CONDITIONS,
    DO_CANCER_ZH,
    EXCLUDED_SPECIALTIES,
    EXCLUDED_TERMS,
    ZH,
)

_QUALIFIERS = ("hereditary", "familial", "adult", "childhood", "primary", "resectable", "inborn", "specified")


def _mesh_rows(ontology: Path) -> tuple[dict[str, list[dict[str, str]]], dict[str, str]]:
    by_ui: dict[str, list[dict[str, str]]] = defaultdict(list)
    ui_by_name: dict[str, str] = {}
    with gzip.open(ontology / "mesh" / "mesh2024_terms.tsv.gz", "rt", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            by_ui[row["DescriptorUI"]].append(row)
            ui_by_name[row["DescriptorName"]] = row["DescriptorUI"]
    return by_ui, ui_by_name


def _mesh_trees(ontology: Path) -> list[dict[str, str]]:
    with gzip.open(ontology / "mesh" / "mesh2024_trees.tsv.gz", "rt", encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def _is_abbreviation(token: str) -> bool:
    if token in ALLOWED_ABBREVIATIONS:
        return False
    letters = [c for c in token if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def preferred_concept_terms(rows: list[dict[str, str]]) -> list[str]:
    """Terms of the record-preferred concept, without permuted, inverted or abbreviation forms."""
    concept = next(r["ConceptUI"] for r in rows if r["RecordPreferredTermYN"] == "Y")
    out = []
    for row in rows:
        term = row["TermName"]
        if row["ConceptUI"] != concept or row["IsPermutedTermYN"] == "Y" or row["LexicalTag"] in {"ABB", "ACR"}:
            continue
        if "," in term or "(" in term or any(_is_abbreviation(tok) for tok in term.split()):
            continue
        out.append(term)
    return list(dict.fromkeys(out))


def _dedupe_plural(terms: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for term in terms:
        key = re.sub(r"s\b", "", term.lower())
        if key not in seen:
            seen.add(key)
            out.append(term)
    return out


def _group(gid: str, kind: str, source: str, en: list[str], zh: list[str]) -> dict[str, Any] | None:
    en = _dedupe_plural(en)
    if len(en) + len(zh) < 2:
        return None
    group: dict[str, Any] = {"id": gid, "kind": kind, "origin": "vocabulary", "source": source, "en": en}
    if zh:
        group["zh"] = zh
    return group


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def mesh_groups(ontology: Path) -> list[dict[str, Any]]:
    """Specialty, disease-class and condition groups from MeSH 2024."""
    by_ui, ui_by_name = _mesh_rows(ontology)
    trees = _mesh_trees(ontology)
    wanted: dict[str, str] = {}
    for row in trees:
        loc = row["tree_location"]
        if re.fullmatch(r"H02\.403\.\d+", loc) or re.fullmatch(r"H02\.403\.(429|810)\.\d+", loc):
            wanted.setdefault(row["DescriptorUI"], "specialty")
    categories = sorted({row["mesh1"] for row in trees if row["code"] == "C"} | {"Mental Disorders"})
    for name in categories:
        if name in ui_by_name:
            wanted.setdefault(ui_by_name[name], "disease-class")
    for name in CONDITIONS:
        wanted.setdefault(ui_by_name[name], "condition")
    groups = []
    for ui, kind in sorted(wanted.items(), key=lambda kv: (kv[1], kv[0])):
        if ui in EXCLUDED_SPECIALTIES:
            continue
        rows = by_ui[ui]
        name = rows[0]["DescriptorName"]
        zh_terms, extra_en = ZH.get(ui, ([], []))
        source = f"MeSH 2024 {ui} '{name}' (preferred-concept terms)"
        if zh_terms or extra_en:
            source += "; zh/extra terms curated by the datasets plugin"
        terms = [t for t in preferred_concept_terms(rows) if t not in EXCLUDED_TERMS.get(ui, ())]
        group = _group(f"{kind}-{_slug(name)}", kind, source, terms + list(extra_en), list(zh_terms))
        if group:
            groups.append(group)
    return groups


def _obo_terms(path: Path) -> list[tuple[str, str, list[str]]]:
    out = []
    for block in path.read_text(encoding="utf-8").split("\n[Term]\n")[1:]:
        if "is_obsolete: true" in block:
            continue
        tid = re.search(r"^id: (.*)$", block, re.M)
        name = re.search(r"^name: (.*)$", block, re.M)
        if tid and name:
            syns = re.findall(r'^synonym: "(.*)" EXACT', block, re.M)
            out.append((tid.group(1), name.group(1), syns))
    return out


def _keep_do_synonym(term: str) -> bool:
    low = term.lower()
    if "," in term or " - " in term or "/" in term or len(term.split()) > 4:
        return False
    if any(q in low for q in _QUALIFIERS):
        return False
    if any(tok.isupper() and len(tok) <= 4 for tok in term.split()) or re.search(r"\bca\b", low):
        return False
    return not (re.search(r"tumou?r|neoplas", low) and "malignant" not in low)


def do_groups(ontology: Path) -> list[dict[str, Any]]:
    """Cancer classes by site from the Disease Ontology CFDE slim."""
    groups = []
    slim = ontology / "disease_ontology" / "subsets" / "DO_CFDE_slim.obo"
    for tid, name, syns in _obo_terms(slim):
        if tid not in DO_CANCER_ZH:
            continue
        en = [name] + [s for s in syns if _keep_do_synonym(s)]
        group = _group(f"disease-class-{_slug(name)}", "disease-class",
                       f"Disease Ontology {tid} '{name}' (name and EXACT synonyms, DO_CFDE_slim); "
                       "zh curated by the datasets plugin", list(dict.fromkeys(en)), DO_CANCER_ZH[tid])
        if group:
            groups.append(group)
    return groups


def build_groups(ontology: Path) -> list[dict[str, Any]]:
    """Every vocabulary-derived group, in a stable order."""
    return mesh_groups(ontology) + do_groups(ontology)


def update_file(synonyms_path: Path, ontology: Path) -> int:
    """Replace the ``origin: vocabulary`` groups of a synonym file; returns how many were written."""
    text = synonyms_path.read_text(encoding="utf-8")
    head, sep, _ = text.partition("# --- vocabulary groups (generated by vocab_build; do not edit) ---")
    if not sep:
        raise SystemExit(f"{synonyms_path}: the vocabulary marker line is missing")
    groups = build_groups(ontology)
    body = yaml.safe_dump(groups, allow_unicode=True, sort_keys=False, width=200)
    body = "\n".join("  " + line if line else line for line in body.splitlines())
    synonyms_path.write_text(head + sep + "\n" + body + "\n", encoding="utf-8")
    return len(groups)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ontology", type=Path, required=True, help="shared/data/ontology folder")
    parser.add_argument("--update", type=Path, help="synonyms.yaml to update in place")
    args = parser.parse_args(argv)
    if args.update:
        print(f"wrote {update_file(args.update, args.ontology)} vocabulary groups to {args.update}")
    else:
        print(yaml.safe_dump(build_groups(args.ontology), allow_unicode=True, sort_keys=False))


if __name__ == "__main__":
    main()

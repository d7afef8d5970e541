"""Write the topic vocabulary (``data/topics.tsv.gz``) from MeSH 2024: the descriptors of the trees in
:data:`TREES` (diseases, mental disorders, organisms, diagnostic, therapeutic, anaesthetic and surgical
procedures), each with its tree numbers and its entry terms (those of its preferred concept first).

Run ``python -m eagle_rag_datasets.catalog.topic_build --ontology shared/data/ontology
--out src/eagle_rag_datasets/data/topics.tsv.gz``. Terms are kept as :func:`.vocab_build.preferred_concept_terms`
keeps them (no permuted or inverted forms, abbreviations or parentheses); terms under four letters are dropped.
How the search reads the file: :mod:`eagle_rag_datasets.search.topics`.
"""

from __future__ import annotations

import argparse
import gzip
import re
from collections import defaultdict
from pathlib import Path

from eagle_rag_datasets.catalog.vocab_build import _is_abbreviation, _mesh_rows, _mesh_trees, preferred_concept_terms

TREES = ("C", "F03", "B01", "B03", "B04", "E01", "E02", "E03", "E04")
"""The MeSH trees whose descriptors are topics a request may name and a catalog may lack. Adding D, G, N, H, F04
and E05-E07 (drugs, phenomena, health care, disciplines, behaviour, techniques, equipment) emptied 36 requests of
v1-v9 whose cards were in the top five ("pharmacovigilance", "triage", "endocrinology" are context there) for 6
more near-miss requests emptied: left out."""
MIN_LETTERS = 4


def _usable(term: str) -> bool:
    return ("," not in term and "(" not in term and len(re.sub(r"[^A-Za-z]", "", term)) >= MIN_LETTERS
            and not any(_is_abbreviation(tok) for tok in term.split()))


def topic_rows(ontology: Path) -> list[tuple[str, list[str], list[str]]]:
    """``(descriptor UI, tree numbers, entry terms)`` per descriptor of :data:`TREES`, the terms of its preferred
    concept first."""
    by_ui, _ = _mesh_rows(ontology)
    trees: dict[str, list[str]] = defaultdict(list)
    for row in _mesh_trees(ontology):
        if row["tree_location"].startswith(TREES) and re.match(r"[A-Z]\d", row["tree_location"]):
            trees[row["DescriptorUI"]].append(row["tree_location"])
    out = []
    for ui in sorted(trees):
        rows = by_ui.get(ui)
        if not rows:
            continue
        asked = [t for t in preferred_concept_terms(rows) if _usable(t)]
        said = [r["TermName"] for r in rows if r["IsPermutedTermYN"] != "Y" and _usable(r["TermName"])]
        terms = list(dict.fromkeys(asked + said))
        if terms:
            out.append((ui, sorted(trees[ui]), terms))
    return out


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - run by hand when MeSH changes
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ontology", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    rows = topic_rows(args.ontology)
    with gzip.open(args.out, "wt", encoding="utf-8", compresslevel=9) as handle:
        handle.write("# MeSH 2024 descriptors (U.S. National Library of Medicine), trees " + " ".join(TREES) + "\n")
        for ui, trees, terms in rows:
            handle.write("\t".join((ui, "|".join(trees), "|".join(terms))) + "\n")
    print(f"{len(rows)} descriptors -> {args.out}")


if __name__ == "__main__":  # pragma: no cover
    main()

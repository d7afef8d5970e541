"""Regenerate ``src/eagle_rag_biomed/data/common_words.txt`` (a developer tool, run rarely).

Collects every single-word surface form of the vocabulary sources and the curated rules, lower-cased
and purely alphabetic, and keeps those that are common English words by the wordfreq Zipf scale
(tier 1: >= 4.5, tier 2: >= 3.5, tier 3: >= 3.0). Needs ``pip install wordfreq`` (not a project
dependency: the list it writes is committed). Usage:

    python scripts/make_common_words.py [--sources ../shared/data/ontology]
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

from eagle_rag_biomed.ontology.compiler import sources
from eagle_rag_biomed.ontology.rules import load_routing_rules

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "src" / "eagle_rag_biomed" / "data" / "common_words.txt"
TIERS = ((4.5, 1), (3.5, 2), (3.0, 3))


def surfaces(root: Path) -> Iterator[str]:
    for drug in sources.read_drugbank(root):
        yield drug.name
        yield from drug.synonyms
    for gene in sources.read_hgnc(root):
        yield gene.symbol
        yield from gene.aliases
        yield from gene.previous
    for disease in sources.read_disease_ontology(root):
        yield disease.name
        yield from disease.synonyms
    for descriptor in sources.read_mesh(root):
        if any(tree[0] in "CD" for tree in descriptor.trees):
            yield from descriptor.terms
    for entity in load_routing_rules().entities:
        yield entity.name
        yield from entity.aliases


def main() -> None:
    from wordfreq import zipf_frequency  # type: ignore[import-not-found]

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=Path, default=REPO.parent / "shared" / "data" / "ontology")
    args = parser.parse_args()
    words = {s.strip().lower() for s in surfaces(args.sources) if s.strip().isalpha() and s.strip().isascii()}
    lines = []
    for word in sorted(words):
        zipf = zipf_frequency(word, "en")
        tier = next((t for threshold, t in TIERS if zipf >= threshold), 0)
        if tier:
            lines.append(f"{word}\t{tier}")
    header = (
        "# Common English words among the single-word surface forms of the biomed vocabulary sources.\n"
        "# word<TAB>tier; tier 1: wordfreq Zipf >= 4.5, tier 2: >= 3.5, tier 3: >= 3.0.\n"
        "# Selected with wordfreq (Robyn Speer et al., word frequency data CC BY-SA 4.0);\n"
        "# regenerate with scripts/make_common_words.py.\n"
    )
    OUT.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} common words -> {OUT}")


if __name__ == "__main__":
    main()

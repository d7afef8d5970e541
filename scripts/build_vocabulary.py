"""Compile the biomed vocabulary: ``src/eagle_rag_biomed/data/vocabulary.json.gz`` and its notice.

Sources (CC0 / free, see ``shared/data/PROVENANCE.md``): DrugBank open vocabulary, HGNC complete
set, Human Disease Ontology, MeSH descriptors. Usage:

    python scripts/build_vocabulary.py [--sources ../shared/data/ontology] [--out DIR]

The output depends only on the source files and the packaged ``common_words.txt``: running it twice
writes the same bytes.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from eagle_rag_biomed.ontology.common_words import load_common_words
from eagle_rag_biomed.ontology.compiler.merge import compile_vocabulary, to_gzip_bytes
from eagle_rag_biomed.ontology.compiler.notice import render_notice
from eagle_rag_biomed.ontology.vocabulary import NOTICE_FILE, VOCABULARY_FILE

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SOURCES = REPO.parent / "shared" / "data" / "ontology"
DEFAULT_OUT = REPO / "src" / "eagle_rag_biomed" / "data"


def build(sources: Path, out: Path) -> dict[str, float]:
    """Compile and write both files; returns timings (s) and sizes (bytes)."""
    started = time.perf_counter()
    document = compile_vocabulary(sources, load_common_words())
    payload = to_gzip_bytes(document)
    out.mkdir(parents=True, exist_ok=True)
    (out / VOCABULARY_FILE).write_bytes(payload)
    (out / NOTICE_FILE).write_text(render_notice(document), encoding="utf-8")
    return {"seconds": time.perf_counter() - started, "bytes": float(len(payload)),
            "entries": float(len(document["entries"]))}


def main() -> None:
    parser = argparse.ArgumentParser(description="Compile the biomed vocabulary.")
    parser.add_argument("--sources", type=Path, default=DEFAULT_SOURCES, help="shared/data/ontology folder")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (package data)")
    args = parser.parse_args()
    if not args.sources.is_dir():
        parser.error(f"sources folder not found: {args.sources}")
    stats = build(args.sources, args.out)
    print(f"{int(stats['entries'])} entries, {stats['bytes'] / 1e6:.2f} MB, {stats['seconds']:.1f} s "
          f"-> {args.out / VOCABULARY_FILE}")


if __name__ == "__main__":
    main()

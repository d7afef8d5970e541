"""Rebuild ``src/eagle_rag_biomed/data/drugbank_structures.csv.gz`` from the DrugBank open data.

Joins the open structures (id, name, groups, SMILES) with the synonyms of the open vocabulary, both
CC0 (see ../shared/data/PROVENANCE.md). Usage::

    python scripts/build_drugbank_data.py [--shared ../shared/data]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "eagle_rag_biomed" / "data" / "drugbank_structures.csv.gz"
COLUMNS = ("drugbank_id", "name", "groups", "smiles", "synonyms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    args = parser.parse_args()
    with (args.shared / "ontology" / "drugbank_vocabulary.csv").open(encoding="utf-8") as fh:
        synonyms = {r["DrugBank ID"]: r["Synonyms"] for r in csv.DictReader(fh)}
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    count = 0
    with (args.shared / "compounds" / "drugbank_open_structures.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["SMILES"].strip():
                writer.writerow([row["DrugBank ID"], row["Name"], row["Drug Groups"], row["SMILES"],
                                 synonyms.get(row["DrugBank ID"], "")])
                count += 1
    OUT.write_bytes(gzip.compress(buf.getvalue().encode("utf-8"), compresslevel=9, mtime=0))
    print(f"wrote {count} structures to {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()

"""Write an SD file of real molecules from the DrugBank open structures (CC0).

Usage::

    python scripts/build_compound_sdf.py OUT.sdf [--limit 1000] [--csv PATH] [--no-coords]

Without ``--csv`` the package copy (``eagle_rag_biomed/data/drugbank_structures.csv.gz``) is used;
``--csv`` accepts the DrugBank download (``drugbank_open_structures.csv``) as well.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from eagle_rag_biomed.chem.names import load_drug_table
from eagle_rag_biomed.chem.sdf_writer import write_drugbank_sdf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--limit", type=int, default=1000, help="number of molecules (default 1000)")
    parser.add_argument("--csv", type=Path, default=None, help="DrugBank structures CSV (.csv or .csv.gz)")
    parser.add_argument("--no-coords", action="store_true", help="skip 2D coordinates (faster)")
    parser.add_argument("--bad-every", type=int, default=0, help="insert an unparseable record every N")
    args = parser.parse_args()
    table = load_drug_table(args.csv.resolve() if args.csv else None)
    count = write_drugbank_sdf(args.out, args.limit, table, not args.no_coords, args.bad_every)
    print(f"wrote {count} molecules to {args.out}")


if __name__ == "__main__":
    main()

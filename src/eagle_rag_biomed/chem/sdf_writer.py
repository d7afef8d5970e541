"""Write SD files of real molecules from the DrugBank open structures (for tests and benchmarks)."""

from __future__ import annotations

import io
from pathlib import Path

from rdkit import Chem
from rdkit.Chem import rdDepictor

from eagle_rag_biomed.chem.molecules import InvalidStructure, mol_from_smiles
from eagle_rag_biomed.chem.names import DrugTable, load_drug_table

BAD_RECORD = "broken record\n  not a molfile\n\n  x  y  z\nM  END\n$$$$\n"
"""A record that no SD reader can parse (used to test that the good molecules around it are kept)."""


def drugbank_sdf_text(limit: int = 1000, table: DrugTable | None = None, coords: bool = True,
                      bad_every: int = 0) -> tuple[str, int]:
    """SD text of the first ``limit`` DrugBank structures that RDKit accepts, and their count.

    Each record has ``_Name`` = the drug name and the properties DRUGBANK_ID, NAME and DRUG_GROUPS;
    ``coords`` computes 2D coordinates. ``bad_every`` > 0 inserts :data:`BAD_RECORD` after every
    ``bad_every`` good molecules. Structures RDKit rejects are left out.
    """
    table = table if table is not None else load_drug_table()
    out = io.StringIO()
    writer = Chem.SDWriter(out)
    count = 0
    for record in table.records:
        if count >= limit:
            break
        try:
            mol = mol_from_smiles(record.smiles)
        except InvalidStructure:
            continue
        if coords:
            rdDepictor.Compute2DCoords(mol)
        mol.SetProp("_Name", record.name)
        mol.SetProp("DRUGBANK_ID", record.drugbank_id)
        mol.SetProp("NAME", record.name)
        mol.SetProp("DRUG_GROUPS", "; ".join(record.groups))
        writer.write(mol)
        count += 1
        if bad_every and count % bad_every == 0:
            writer.flush()
            out.write(BAD_RECORD)
    writer.close()
    return out.getvalue(), count


def write_drugbank_sdf(out_path: Path, limit: int = 1000, table: DrugTable | None = None,
                       coords: bool = True, bad_every: int = 0) -> int:
    """Write :func:`drugbank_sdf_text` to ``out_path``. Returns the number of molecules written."""
    text, count = drugbank_sdf_text(limit, table, coords, bad_every)
    Path(out_path).write_text(text, encoding="utf-8")
    return count

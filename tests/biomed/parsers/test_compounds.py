"""Compound files (SDF, MOL, MOL2, SMILES lists) and structure headers (PDB, mmCIF)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdkit import Chem

from eagle_rag.errors import IngestError
from eagle_rag_biomed.chem.sdf_writer import BAD_RECORD, drugbank_sdf_text, write_drugbank_sdf
from eagle_rag_biomed.parsers.common import PARSE_WARNINGS
from eagle_rag_biomed.parsers.compounds import parse_mol, parse_mol2, parse_sdf, parse_smiles_list
from eagle_rag_biomed.parsers.structures import parse_mmcif, parse_pdb

ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"
MOL2 = """@<TRIPOS>MOLECULE
ethanol
 9 8 0 0 0
SMALL
NO_CHARGES

@<TRIPOS>ATOM
      1 C1     -0.0000   -0.0000    0.0000 C.3   1 ETH   0.0000
      2 C2      1.5000    0.0000    0.0000 C.3   1 ETH   0.0000
      3 O1      2.0000    1.4000    0.0000 O.3   1 ETH   0.0000
      4 H1     -0.3600    1.0200    0.0000 H     1 ETH   0.0000
      5 H2     -0.3600   -0.5100    0.8800 H     1 ETH   0.0000
      6 H3     -0.3600   -0.5100   -0.8800 H     1 ETH   0.0000
      7 H4      1.8600   -0.5100    0.8800 H     1 ETH   0.0000
      8 H5      1.8600   -0.5100   -0.8800 H     1 ETH   0.0000
      9 H6      2.9600    1.4000    0.0000 H     1 ETH   0.0000
@<TRIPOS>BOND
     1     1     2    1
     2     2     3    1
     3     1     4    1
     4     1     5    1
     5     1     6    1
     6     2     7    1
     7     2     8    1
     8     3     9    1
"""
PDB = """HEADER    OXYGEN TRANSPORT                        02-MAR-84   1HHO
TITLE     STRUCTURE OF HUMAN OXYHAEMOGLOBIN AT 2.1 ANGSTROMS
TITLE    2 RESOLUTION
COMPND    MOL_ID: 1;
COMPND   2 MOLECULE: HEMOGLOBIN A (OXY) (ALPHA CHAIN);
COMPND   3 CHAIN: A, C;
SOURCE    MOL_ID: 1;
SOURCE   2 ORGANISM_SCIENTIFIC: HOMO SAPIENS;
EXPDTA    X-RAY DIFFRACTION
REMARK   2 RESOLUTION.    2.10 ANGSTROMS.
ATOM      1  N   VAL A   1       6.204  16.869   4.854  1.00 49.05           N
END
"""
CIF = """data_1HHO
_entry.id   1HHO
_struct.title  'STRUCTURE OF HUMAN OXYHAEMOGLOBIN'
_exptl.method  'X-RAY DIFFRACTION'
loop_
_entity.id
_entity.type
_entity.pdbx_description
1 polymer 'HEMOGLOBIN A (ALPHA CHAIN)'
2 polymer 'HEMOGLOBIN A (BETA CHAIN)'
_struct_keywords.text
;OXYGEN TRANSPORT, HEME
;
loop_
_atom_site.group_PDB
_atom_site.id
ATOM 1
"""


def _sdf(*smiles_names: tuple[str, str], bad_after: int | None = None) -> bytes:
    blocks = []
    for i, (smiles, name) in enumerate(smiles_names):
        mol = Chem.MolFromSmiles(smiles)
        mol.SetProp("_Name", name)
        blocks.append(Chem.MolToMolBlock(mol) + "> <ID>\nC" + str(i) + "\n\n$$$$\n")
        if bad_after == i:
            blocks.append(BAD_RECORD)
    return "".join(blocks).encode()


@pytest.mark.unit
def test_sdf_one_document_per_molecule_with_descriptors() -> None:
    docs = parse_sdf(Path("set.sdf"), _sdf((ASPIRIN, "aspirin"), ("CCO", "ethanol")), "kb")
    assert [d.name for d in docs] == ["aspirin", "ethanol"]
    aspirin = docs[0].metadata
    assert docs[0].source_type == "compound" and aspirin["doc_type"] == "compound"
    assert aspirin["smiles"] == ASPIRIN
    assert aspirin["inchikey"] == "BSYNRYMUTXBXSQ-UHFFFAOYSA-N"
    assert aspirin["inchi"].startswith("InChI=1S/C9H8O4/")
    assert aspirin["formula"] == "C9H8O4"
    assert aspirin["mol_weight"] == pytest.approx(180.159, abs=1e-3)
    assert (aspirin["hbd"], aspirin["hba"]) == (1, 3)
    assert aspirin["tpsa"] == pytest.approx(63.6, abs=0.1)
    assert aspirin["sd_properties"] == {"ID": "C0"}
    assert aspirin["skipped_records"] == 0 and aspirin[PARSE_WARNINGS] == []
    text = docs[0].sections[0].text
    assert docs[0].sections[0].path == ("aspirin",)
    assert text.startswith("aspirin\nFormula: C9H8O4\nSMILES: CC(=O)Oc1ccccc1C(=O)O")
    assert len({d.document_id for d in docs}) == 2


@pytest.mark.unit
def test_bad_records_inside_a_good_sdf_are_skipped_and_reported() -> None:
    five_bonds = Chem.MolFromSmiles("C(C)(C)(C)(C)C", sanitize=False)  # a carbon with valence 5
    five_bonds.SetProp("_Name", "impossible")
    pentavalent = Chem.MolToMolBlock(five_bonds, kekulize=False) + "$$$$\n"
    data = _sdf((ASPIRIN, "aspirin"), ("CCO", "ethanol"), bad_after=0) + pentavalent.encode() + _sdf(
        ("c1ccccc1", "benzene"))
    docs = parse_sdf(Path("mixed.sdf"), data, "kb")
    assert [d.name for d in docs] == ["aspirin", "ethanol", "benzene"]
    meta = docs[0].metadata
    assert meta["skipped_records"] == 2
    assert [w["record"] for w in meta[PARSE_WARNINGS]] == [1, 3]
    assert meta[PARSE_WARNINGS][0]["reason"].startswith("record 1: ")
    assert "valence" in meta[PARSE_WARNINGS][1]["reason"].lower()
    assert [d.metadata["record"] for d in docs] == [0, 2, 4]


@pytest.mark.unit
def test_an_sdf_without_valid_molecules_is_refused() -> None:
    with pytest.raises(IngestError, match="no valid molecule") as info:
        parse_sdf(Path("bad.sdf"), BAD_RECORD.encode() * 2, "kb")
    assert len(info.value.details[PARSE_WARNINGS]) == 2
    with pytest.raises(IngestError, match="no valid molecule"):
        parse_sdf(Path("empty.sdf"), b"", "kb")


@pytest.mark.unit
def test_smiles_list_skips_invalid_lines_with_line_numbers() -> None:
    text = f"smiles name\n# a comment\n{ASPIRIN} aspirin\nC1CC broken ring\nC(C)(C)(C)(C)C five bonds\n\nCCO\tethanol\n"
    docs = parse_smiles_list(Path("l.smi"), text.encode(), "kb")
    assert [d.name for d in docs] == ["aspirin", "ethanol"]
    warnings = docs[0].metadata[PARSE_WARNINGS]
    assert [w["reason"].split(":")[0] for w in warnings] == ["line 4", "line 5"]
    assert "valence" in warnings[1]["reason"].lower()
    (unnamed,) = parse_smiles_list(Path("u.smi"), b"c1ccccc1\n", "kb")
    assert unnamed.name == "u #0"
    with pytest.raises(IngestError, match="no valid molecule"):
        parse_smiles_list(Path("x.smi"), b"not-a-smiles\n", "kb")


@pytest.mark.unit
def test_mol_and_mol2() -> None:
    block = Chem.MolToMolBlock(Chem.MolFromSmiles(ASPIRIN)).replace("\n", "aspirin\n", 1)
    (doc,) = parse_mol(Path("aspirin.mol"), ("aspirin" + block[len("aspirin"):]).encode(), "kb")
    assert doc.metadata["smiles"] == ASPIRIN
    (eth,) = parse_mol2(Path("eth.mol2"), MOL2.encode(), "kb")
    assert (eth.name, eth.metadata["smiles"], eth.metadata["formula"]) == ("ethanol", "CCO", "C2H6O")
    with pytest.raises(IngestError, match="no @<TRIPOS>MOLECULE"):
        parse_mol2(Path("x.mol2"), b"nothing here", "kb")
    with pytest.raises(IngestError, match="no valid molecule"):
        parse_mol(Path("x.mol"), b"garbage\n\n\nnot a counts line\n", "kb")


@pytest.mark.unit
def test_pdb_and_mmcif_headers() -> None:
    (pdb,) = parse_pdb(Path("1hho.pdb"), PDB.encode(), "kb")
    meta = pdb.metadata
    assert meta["pdb_id"] == "1HHO" and meta["title"] == "STRUCTURE OF HUMAN OXYHAEMOGLOBIN AT 2.1 ANGSTROMS RESOLUTION"
    assert meta["methods"] == ["X-RAY DIFFRACTION"] and meta["resolution"] == "2.10"
    assert meta["molecules"] == ["HEMOGLOBIN A (OXY) (ALPHA CHAIN)"] and meta["organisms"] == ["HOMO SAPIENS"]
    assert pdb.source_type == "structure" and pdb.sections[0].path == ("PDB 1HHO",)
    (cif,) = parse_mmcif(Path("1hho.cif"), CIF.encode(), "kb")
    assert cif.metadata["title"] == "STRUCTURE OF HUMAN OXYHAEMOGLOBIN"
    assert cif.metadata["methods"] == ["X-RAY DIFFRACTION"]
    assert cif.metadata["molecules"] == ["HEMOGLOBIN A (ALPHA CHAIN)", "HEMOGLOBIN A (BETA CHAIN)"]
    assert cif.metadata["keywords"] == ["OXYGEN TRANSPORT", "HEME"]
    with pytest.raises(IngestError, match="not a PDB file"):
        parse_pdb(Path("x.pdb"), b"hello world\n", "kb")
    with pytest.raises(IngestError, match="not an mmCIF file"):
        parse_mmcif(Path("x.cif"), b"hello world\n", "kb")


@pytest.mark.integration
def test_drugbank_sdf_of_1000_molecules(tmp_path: Path) -> None:
    path = tmp_path / "drugbank.sdf"
    assert write_drugbank_sdf(path, limit=1000, coords=False) == 1000
    docs = parse_sdf(path, path.read_bytes(), "kb")
    assert len(docs) == 1000
    assert all(d.metadata["inchikey"] and d.metadata["smiles"] for d in docs)
    assert docs[0].metadata["sd_properties"]["DRUGBANK_ID"].startswith("DB")
    text, count = drugbank_sdf_text(limit=30, coords=False, bad_every=10)
    mixed = parse_sdf(Path("m.sdf"), text.encode(), "kb")
    assert count == len(mixed) == 30 and mixed[0].metadata["skipped_records"] == 3

"""The chemical branch: query structure, candidate structure, Morgan Tanimoto, max(fused, similarity)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator

from eagle_rag_biomed.query.analysis import analyze_query
from eagle_rag_biomed.rerank.chemical import apply_chemical_branch, node_smiles, query_structure, tanimoto
from tests.biomed.query_support import context, decisions, hit

pytestmark = pytest.mark.unit

ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"
SALICYLIC = "O=C(O)c1ccccc1O"
CAFFEINE = "Cn1cnc2c1c(=O)n(C)c(=O)n2C"


def reference_tanimoto(a: str, b: str) -> float:
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    return DataStructs.TanimotoSimilarity(gen.GetFingerprint(Chem.MolFromSmiles(a)),
                                          gen.GetFingerprint(Chem.MolFromSmiles(b)))


def test_tanimoto_is_morgan_radius_2_2048_bits() -> None:
    assert tanimoto(ASPIRIN, ASPIRIN) == 1.0
    assert tanimoto(ASPIRIN, SALICYLIC) == pytest.approx(reference_tanimoto(ASPIRIN, SALICYLIC))
    assert 0.0 < tanimoto(ASPIRIN, SALICYLIC) < 1.0
    assert tanimoto(ASPIRIN, "not a smiles") == 0.0


def test_query_structure_from_smiles_or_drug_name() -> None:
    smiles, how = query_structure(analyze_query(f"compounds similar to {ASPIRIN}"))  # type: ignore[misc]
    assert how == "smiles" and tanimoto(smiles, ASPIRIN) == 1.0
    smiles, how = query_structure(analyze_query("imatinib compound"))  # type: ignore[misc]
    assert how == "drug_name" and Chem.MolFromSmiles(smiles).GetNumAtoms() == 37
    assert query_structure(analyze_query("a compound of no name")) is None


def test_node_smiles_from_metadata_or_text() -> None:
    assert node_smiles(hit("a", meta={"smiles": ASPIRIN})) == ASPIRIN
    assert node_smiles(hit("b", f"Caffeine. SMILES: {CAFFEINE}.")) == CAFFEINE
    assert node_smiles(hit("c", "SMILES: not-a-structure")) == ""


def test_identical_structure_reaches_the_top_score(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    fused = [hit("text", score=1.2), hit("caffeine", score=0.9, meta={"smiles": CAFFEINE}),
             hit("salicylic", score=0.1, meta={"smiles": SALICYLIC}),
             hit("aspirin", score=-0.5, meta={"smiles": ASPIRIN})]
    out = apply_chemical_branch(ctx, analyze_query(ASPIRIN), fused, scale=1.25)
    # aspirin: max(-0.5, 1.0 * 1.25) = 1.25 beats 1.2; salicylic: max(0.1, t * 1.25)
    t = reference_tanimoto(ASPIRIN, SALICYLIC)
    scores = {n.node_id: n.score for n in out}
    assert out[0].node_id == "aspirin" and scores["aspirin"] == 1.25
    assert scores["salicylic"] == pytest.approx(max(0.1, t * 1.25))
    assert scores["text"] == 1.2  # no structure: unchanged
    assert decisions(ctx, "biomed_rerank_t2")[-1].data["similarity"] == "tanimoto"


def test_no_query_structure_changes_nothing(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    fused = [hit("a", score=1.0), hit("b", score=0.5, meta={"smiles": ASPIRIN})]
    assert apply_chemical_branch(ctx, analyze_query("a compound without a name"), fused) == fused

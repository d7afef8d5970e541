"""Morgan fingerprints, the exact Tanimoto side index, name resolution and compound retrieval."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from rdkit import DataStructs

from eagle_rag.errors import EagleError, InvalidRequest
from eagle_rag_biomed.chem.fingerprints import (
    FingerprintIndex,
    InvalidStructure,
    morgan_fingerprint,
    resolve_compound_query,
    retrieve_compounds,
    tanimoto_numpy,
)
from eagle_rag_biomed.chem.names import load_drug_table, read_drug_table
from eagle_rag_biomed.chem.sdf_writer import drugbank_sdf_text
from eagle_rag_biomed.parsers.compounds import parse_sdf

ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"
SALICYLIC = "O=C(O)c1ccccc1O"
PARACETAMOL = "CC(=O)Nc1ccc(O)cc1"


def _small_index() -> FingerprintIndex:
    index = FingerprintIndex()
    for cid, smi, name in [("c1", ASPIRIN, "aspirin"), ("c2", SALICYLIC, "salicylic acid"),
                           ("c3", PARACETAMOL, "paracetamol"), ("c4", "CCO", "ethanol")]:
        index.add(cid, smi, name)
    return index


@pytest.fixture(scope="module")
def drugbank_index() -> FingerprintIndex:
    table = load_drug_table()
    index = FingerprintIndex()
    for record in table.records[:1500]:
        try:
            index.add(record.drugbank_id, record.smiles, record.name)
        except InvalidStructure:
            continue
    return index


@pytest.mark.unit
def test_morgan_fingerprint_shape() -> None:
    fp = morgan_fingerprint(ASPIRIN)
    assert fp.GetNumBits() == 2048 and fp.GetNumOnBits() > 10
    assert DataStructs.TanimotoSimilarity(fp, morgan_fingerprint("OC(=O)c1ccccc1OC(C)=O")) == 1.0


@pytest.mark.unit
def test_search_ranks_by_tanimoto_and_the_numbers_add_up() -> None:
    index = _small_index()
    hits = index.search(ASPIRIN, top_k=3)
    assert [h.compound_id for h in hits] == ["c1", "c2", "c3"]
    assert [h.rank for h in hits] == [1, 2, 3]
    assert hits[0].similarity == 1.0
    a, s = morgan_fingerprint(ASPIRIN), morgan_fingerprint(SALICYLIC)
    both = len(set(a.GetOnBits()) & set(s.GetOnBits()))
    either = len(set(a.GetOnBits()) | set(s.GetOnBits()))
    assert hits[1].similarity == pytest.approx(both / either)
    assert index.search(ASPIRIN, top_k=0) == [] and FingerprintIndex().search(ASPIRIN) == []


@pytest.mark.unit
def test_adding_an_existing_id_replaces_it() -> None:
    index = _small_index()
    index.add("c4", ASPIRIN, "aspirin again")
    assert len(index) == 4
    assert {h.compound_id for h in index.search(ASPIRIN, top_k=2)} == {"c1", "c4"}


@pytest.mark.unit
def test_save_and_load_round_trip_without_pickle(tmp_path: Path) -> None:
    index = _small_index()
    index.save(tmp_path / "fp")
    assert sorted(p.name for p in (tmp_path / "fp").iterdir()) == ["compounds.json", "fingerprints.npz"]
    with np.load(tmp_path / "fp" / "fingerprints.npz", allow_pickle=False) as npz:
        assert npz["bits"].shape == (4, 256) and npz["bits"].dtype == np.uint8
    loaded = FingerprintIndex.load(tmp_path / "fp")
    assert loaded.ids == index.ids
    assert loaded.search(PARACETAMOL, 4) == index.search(PARACETAMOL, 4)
    meta = json.loads((tmp_path / "fp" / "compounds.json").read_text())
    meta["ids"] = meta["ids"][:2]
    (tmp_path / "fp" / "compounds.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="do not match"):
        FingerprintIndex.load(tmp_path / "fp")


@pytest.mark.unit
def test_numpy_reference_matches_rdkit() -> None:
    index = _small_index()
    packed = index.packed_bits()
    expected = DataStructs.BulkTanimotoSimilarity(morgan_fingerprint(PARACETAMOL), [
        morgan_fingerprint(s) for s in (ASPIRIN, SALICYLIC, PARACETAMOL, "CCO")])
    assert tanimoto_numpy(packed[2], packed) == pytest.approx(expected)


@pytest.mark.integration
def test_index_equals_brute_force_over_drugbank(drugbank_index: FingerprintIndex) -> None:
    packed = drugbank_index.packed_bits()
    assert len(drugbank_index) >= 1000
    for q in range(0, len(drugbank_index), 97):
        sims = tanimoto_numpy(packed[q], packed)
        brute = np.argsort(-sims, kind="stable")[:10]
        hits = drugbank_index.search(DataStructs.CreateFromFPSText(packed[q].tobytes().hex()), 10)
        assert [h.compound_id for h in hits] == [drugbank_index.ids[i] for i in brute]
        assert [h.similarity for h in hits] == pytest.approx(sims[brute].tolist())


@pytest.mark.unit
def test_resolve_names_aliases_ids_and_smiles() -> None:
    aspirin = resolve_compound_query("Aspirin")
    assert (aspirin.smiles, aspirin.source, aspirin.drugbank_id) == (ASPIRIN, "alias", "DB00945")
    assert resolve_compound_query("paracetamol").smiles == resolve_compound_query("acetaminophen").smiles
    assert resolve_compound_query("acetaminophen").source == "name"
    assert resolve_compound_query("Lipitor").name == "Atorvastatin"
    assert resolve_compound_query("db00619").name == "Imatinib"
    assert resolve_compound_query("acetyl salicylic acid").source == "synonym"
    assert resolve_compound_query("OC(=O)c1ccccc1OC(C)=O").smiles == ASPIRIN
    assert resolve_compound_query("InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3").smiles == "CCO"


@pytest.mark.unit
@pytest.mark.parametrize("bad", ["C1CC", "C(C)(C)(C)(C)C", "no-such-drug-xyz", "", "   "])
def test_invalid_structures_raise_a_clear_error(bad: str) -> None:
    with pytest.raises(InvalidStructure) as info:
        resolve_compound_query(bad)
    assert issubclass(InvalidStructure, ValueError) and issubclass(InvalidStructure, EagleError)
    assert info.value.to_dict()["error"]["code"] == "invalid_structure"
    assert info.value.http_status == 400


@pytest.mark.unit
def test_retrieve_compounds_by_name_and_smiles() -> None:
    index = _small_index()
    result = retrieve_compounds(index, "aspirin", top_k=2)
    assert result.query.drugbank_id == "DB00945"
    assert [(h.compound_id, h.similarity) for h in result.hits][0] == ("c1", 1.0)
    assert retrieve_compounds(index, PARACETAMOL, 1).hits[0].name == "paracetamol"
    with pytest.raises(InvalidStructure):
        retrieve_compounds(index, "C1CC", 5)
    with pytest.raises(InvalidRequest, match="top_k"):
        retrieve_compounds(index, "aspirin", 0)


@pytest.mark.unit
def test_index_from_parsed_sdf_documents() -> None:
    text, _ = drugbank_sdf_text(limit=50, coords=False)
    docs = parse_sdf(Path("db.sdf"), text.encode(), "kb")
    index = FingerprintIndex()
    assert index.add_documents(docs) == 50
    hit = index.search(docs[7].metadata["smiles"], 1)[0]
    assert hit.compound_id == docs[7].document_id and hit.similarity == 1.0


@pytest.mark.unit
def test_drug_table_reads_the_drugbank_download_format() -> None:
    table = read_drug_table("DrugBank ID,Name,Drug Groups,SMILES\nDB00945,Acetylsalicylic acid,approved,"
                            f"{ASPIRIN}\nDB99999,No structure,approved,\n")
    assert [r.drugbank_id for r in table.records] == ["DB00945"]
    assert table.records[0].groups == ("approved",)
    assert resolve_compound_query("aspirin", table).smiles == ASPIRIN


@pytest.mark.unit
def test_top_k_stable_equals_a_stable_full_sort() -> None:
    from eagle_rag_biomed.chem.fingerprints import top_k_stable

    rng = np.random.default_rng(7)
    for _ in range(200):
        scores = rng.integers(0, 5, size=int(rng.integers(1, 40))).astype(float) / 4  # many ties
        k = int(rng.integers(1, 45))
        assert top_k_stable(scores, k).tolist() == np.argsort(-scores, kind="stable")[:k].tolist()


def test_a_compound_indexed_before_kb_scoped_ids_finds_its_migrated_document() -> None:
    from datetime import UTC, datetime

    from eagle_rag.protocols import DocumentRecord
    from eagle_rag.stores.registry import SqlDocumentRegistry
    from eagle_rag.types import DocumentStatus
    from eagle_rag_biomed.chem.store import migrated_record

    now = datetime.now(UTC)
    registry = SqlDocumentRegistry("sqlite://")

    def record(key: str, kb: str) -> None:
        registry.upsert(DocumentRecord(key, kb, "Aspirin", "x.sdf", "h", DocumentStatus.COMPLETE, 1, (), "", now, now))

    index = _small_index()  # "c1" was indexed by its own id; doctor --repair moved its document to demo/c1
    record("demo/c1", "demo")
    assert migrated_record(registry, index, "c1").id == "demo/c1"
    index.add("lab/c1", ASPIRIN, "aspirin")  # ingested since into another kb: indexed by its key
    record("lab/c1", "lab")
    assert migrated_record(registry, index, "c1").id == "demo/c1"
    assert migrated_record(registry, index, "lab/c1") is None and migrated_record(registry, index, "c9") is None

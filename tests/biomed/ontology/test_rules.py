"""The curated routing rules: shape, the entities the specification names, valid CUIs and SMILES."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from eagle_rag_biomed.ontology.rules import (
    EntityType,
    RoutingRulesError,
    load_routing_rules,
    parse_routing_rules,
)

pytestmark = pytest.mark.unit

RULES = load_routing_rules()
NAMES = {entity.name for entity in RULES.entities}


def test_four_groups_of_entities_each_with_their_fields() -> None:
    groups = {entity.group for entity in RULES.entities}
    assert groups == {"targets", "drugs", "diseases", "pathways"}
    assert len(RULES.entities) >= 70
    assert len(NAMES) == len(RULES.entities)
    for entity in RULES.entities:
        assert entity.aliases or entity.type in (EntityType.DISEASE, EntityType.PATHWAY), entity.name
        assert isinstance(entity.pathways, tuple) and isinstance(entity.related_drugs, tuple)


@pytest.mark.parametrize("name", [
    "EGFR", "HER2", "BCR-ABL", "MET", "ALK", "KRAS", "BRAF", "PD-1", "PD-L1", "VEGF", "VEGFR", "BRCA1/2",
    "TNF", "IL-6", "CYP2C9", "VKORC1", "HMGCR", "AMPK", "COX-1", "COX-2", "TP53", "mTOR", "CDK4/6", "PARP",
    "imatinib", "dasatinib", "nilotinib", "gefitinib", "erlotinib", "osimertinib", "capmatinib", "tepotinib",
    "pembrolizumab", "nivolumab", "trastuzumab", "bevacizumab", "metformin", "atorvastatin", "warfarin",
    "aspirin", "adalimumab", "amiodarone", "fruquintinib", "savolitinib", "surufatinib",
    "breast cancer", "lung cancer", "colorectal cancer", "melanoma", "COVID-19", "diabetes mellitus",
    "PI3K-AKT", "MAPK", "JAK-STAT", "apoptosis", "angiogenesis",
])
def test_named_entities_are_curated(name: str) -> None:
    assert name in NAMES


def test_29_entity_keywords() -> None:
    assert len(RULES.entity_keywords) == 29
    assert len(set(RULES.entity_keywords)) == 29
    assert {"kinase", "pathway", "receptor", "mutation"} <= set(RULES.entity_keywords)


def test_cuis_are_well_formed_and_known_ones_are_right() -> None:
    by_name = {entity.name: entity for entity in RULES.entities}
    for entity in RULES.entities:
        assert entity.cui == "" or (entity.cui[0] == "C" and len(entity.cui) == 8), entity.name
    assert by_name["aspirin"].cui == "C0004057"
    assert by_name["breast cancer"].cui == "C0006142"  # DO xref of DOID:1612
    assert by_name["EGFR"].cui == ""  # unknown for certain: left empty


def test_related_drugs_and_targets_refer_to_known_names() -> None:
    targets = {e.name for e in RULES.entities if e.type is EntityType.GENE}
    for entity in RULES.entities:
        assert set(entity.targets) <= targets, entity.name


def test_every_name_alias_smiles_parses_with_rdkit() -> None:
    chem = pytest.importorskip("rdkit.Chem")
    assert len(RULES.name_aliases) >= 11
    for name in ["aspirin", "imatinib", "fruquintinib", "savolitinib", "surufatinib", "sunitinib",
                 "osimertinib", "gefitinib", "lapatinib", "caffeine", "ethanol", "capmatinib", "tepotinib"]:
        assert name in RULES.name_aliases
    for name, smiles in RULES.name_aliases.items():
        assert chem.MolFromSmiles(smiles) is not None, name
    assert RULES.name_aliases["aspirin"] == "CC(=O)Oc1ccccc1C(=O)O"


def test_drug_suffixes_and_gene_context_words() -> None:
    assert {"mab", "nib", "ciclib", "parib", "statin", "pril", "sartan"} <= set(RULES.drug_suffixes)
    assert {"gene", "mutation", "protein", "expression", "inhibitor", "receptor", "kinase",
            "amplification"} <= RULES.gene_context_words


@pytest.mark.parametrize(("document", "message"), [
    ({"entities": {"genes": {}}}, "unknown group"),
    ({"entities": {"targets": {"EGFR": {"aliases": "ERBB1"}}}}, "list of strings"),
    ({"entities": {"targets": {"EGFR": {"cui": "12345"}}}}, "not a UMLS CUI"),
    ({"entities": {"targets": {"EGFR": {"alias": []}}}}, "unknown fields"),
    ({"entity_keywords": []}, "'entities'"),
])
def test_malformed_rules_raise_a_typed_error(document: dict, message: str) -> None:
    with pytest.raises(RoutingRulesError, match=message):
        parse_routing_rules(document)


def test_load_from_a_path(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump({"entities": {"drugs": {"x-mab": {"aliases": ["XM"]}}}}), encoding="utf-8")
    rules = load_routing_rules(path)
    assert rules.entities[0].type is EntityType.DRUG and rules.entities[0].aliases == ("XM",)


def test_entity_type_from_str_lists_the_valid_values() -> None:
    assert EntityType.from_str("gene") is EntityType.GENE
    with pytest.raises(ValueError, match="valid: gene, drug"):
        EntityType.from_str("protein")

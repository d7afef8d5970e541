"""The entity API: drugs with the suffix rule, resolve_entity, expansions, name_to_smiles."""

from __future__ import annotations

import pytest

from eagle_rag_biomed.ontology import (
    expand_query_for_dense_retrieval,
    expand_query_with_entities,
    is_drug_name,
    match_drug_entities,
    match_entities,
    name_to_smiles,
    resolve_entity,
    umls,
)

pytestmark = [pytest.mark.unit, pytest.mark.usefixtures("use_packaged")]


def test_match_entities_returns_typed_matches() -> None:
    matches = match_entities("MET amplification in NSCLC after capmatinib")
    assert [(m.canonical, m.type.value) for m in matches] == [
        ("MET", "gene"), ("amplification", "keyword"), ("non-small cell lung cancer", "disease"),
        ("capmatinib", "drug")]
    assert [m.canonical for m in match_entities("MET amplification", include_keywords=False)] == ["MET"]


def test_drug_entities_in_order_of_appearance_without_duplicates() -> None:
    text = "Warfarin with aspirin; Coumadin (warfarin) and Gleevec"
    assert match_drug_entities(text) == ["warfarin", "aspirin", "imatinib"]


def test_compiled_drugs_are_drugs() -> None:
    assert match_drug_entities("paracetamol and methadone") == ["acetaminophen", "methadone"]


@pytest.mark.parametrize(("word", "is_drug"), [
    ("zorbatinib", True), ("fooximab", True), ("blorociclib", True), ("xanoparib", True),
    ("rosustatin", True), ("zenopril", True), ("quelsartan", True), ("foostat", True), ("blixostat", True),
    ("mab", False), ("statin", False), ("stat", False), ("kinase", False), ("patients", False), ("cabinet", False),
    # instruments that end in -stat are no drugs
    ("cryostat", False), ("thermostat", False), ("chemostat", False), ("Hemostat", False),
])
def test_drug_suffix_rule(word: str, is_drug: bool) -> None:
    assert is_drug_name(word) is is_drug


def test_unknown_suffix_words_are_drugs_known_words_keep_their_type() -> None:
    drugs = match_drug_entities("zorbatinib plus fooximab versus osimertinib in EGFR-mutant NSCLC")
    assert drugs == ["zorbatinib", "fooximab", "osimertinib"]
    assert match_drug_entities("EGFR kinase domain") == []


def test_resolve_entity_curated_fields() -> None:
    result = resolve_entity("her2")
    assert result["entity"] == "HER2" and result["found"] is True and result["type"] == "gene"
    assert result["aliases"][:3] == ["ERBB2", "HER-2", "HER2/neu"]
    assert result["pathways"] == ["PI3K-AKT", "MAPK"]
    assert "trastuzumab" in result["related_drugs"]
    assert result["ids"]["hgnc"] == "HGNC:3430"  # HGNC ERBB2 merged into the curated entity
    assert set(result) >= {"entity", "found", "cui", "aliases", "pathways", "related_drugs", "type"}


def test_resolve_entity_by_alias_and_unknown() -> None:
    assert resolve_entity("Gleevec")["entity"] == "imatinib"
    assert resolve_entity("Gleevec")["cui"] == "C0935989"
    missing = resolve_entity("no such entity")
    assert missing == {"entity": "no such entity", "found": False, "cui": "", "aliases": [], "pathways": [],
                       "related_drugs": [], "type": "", "source": "", "ids": {}}


def test_expansion_order_two_names_one_pathway_per_entity() -> None:
    terms = expand_query_with_entities("capmatinib for MET amplification")
    capmatinib = resolve_entity("capmatinib")
    met = resolve_entity("MET")
    assert terms == [*capmatinib["aliases"][:2], capmatinib["pathways"][0], *met["aliases"][:2]]
    # MAPK (MET's first pathway) was already added for capmatinib: deduplicated


def test_expansion_skips_terms_already_in_the_query_and_truncates() -> None:
    assert expand_query_with_entities("Gleevec")[:2] == ["imatinib", "Glivec"]  # canonical first
    assert expand_query_with_entities("imatinib")[:2] == ["Gleevec", "Glivec"]
    long_query = "imatinib dasatinib nilotinib gefitinib erlotinib osimertinib capmatinib tepotinib"
    assert len(expand_query_with_entities(long_query)) == 12
    assert len(expand_query_with_entities(long_query, limit=5)) == 5
    assert expand_query_with_entities(long_query, limit=5) == expand_query_with_entities(long_query)[:5]
    assert expand_query_with_entities("nothing biomedical here") == []
    assert expand_query_with_entities("kinase pathway") == []  # keywords add nothing


def test_dense_expansion_string() -> None:
    query = "osimertinib resistance"
    terms = expand_query_with_entities(query)
    assert expand_query_for_dense_retrieval(query) == f"{query} [biomed entities: {', '.join(terms)}]"
    assert expand_query_for_dense_retrieval("hello world") == "hello world"


def test_name_to_smiles_through_aliases() -> None:
    imatinib = name_to_smiles("imatinib")
    assert imatinib is not None and imatinib.startswith("Cc1ccc(NC(=O)")
    assert name_to_smiles("Gleevec") == imatinib == name_to_smiles("STI-571")
    assert name_to_smiles("Acetylsalicylic acid") == "CC(=O)Oc1ccccc1C(=O)O"
    assert name_to_smiles("caffeine") == "Cn1c(=O)c2c(ncn2C)n(C)c1=O"
    assert name_to_smiles("EGFR") is None and name_to_smiles("unknownium") is None


def test_the_process_wide_ontology_is_built_once() -> None:
    assert umls.get_ontology() is umls.get_ontology()


def test_compiled_spelling_variants_are_not_expansions() -> None:
    terms = expand_query_with_entities("tepotinib")
    assert terms[0] == "Tepmetko" and terms[-1] == "MAPK"
    assert all("tepotinib" not in term.lower() for term in terms)
    assert expand_query_with_entities("paracetamol")[0] == "Acetaminophen"


def test_package_exports_match_the_lazy_table() -> None:
    import eagle_rag_biomed.ontology as ontology

    assert sorted(ontology.__all__) == sorted(ontology._EXPORTS)
    with pytest.raises(AttributeError):
        ontology.no_such_name  # noqa: B018

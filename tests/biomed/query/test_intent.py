"""detect_retrieval_intent: the five workflows in their order, suppress lists, section cues."""

from __future__ import annotations

import pytest

from eagle_rag.types import QueryRetrievalIntent
from eagle_rag_biomed.query.intent import (
    Workflow,
    detect_retrieval_intent,
    is_competitive_query,
    looks_like_smiles,
    section_cues_for,
    smiles_in_query,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("query", "expected"), [
    # chemical: a compound cue or a SMILES; section cue "compound"; nothing suppressed
    ("SMILES of imatinib", QueryRetrievalIntent("chemical", (), ("compound",), True)),
    ("InChI of caffeine", QueryRetrievalIntent("chemical", (), ("compound",), True)),
    ("ligand binding pocket of ABL", QueryRetrievalIntent("chemical", (), ("compound",), True)),
    ("molecular formula of aspirin", QueryRetrievalIntent("chemical", (), ("compound",), True)),
    ("CC(=O)Oc1ccccc1C(=O)O", QueryRetrievalIntent("chemical", (), ("compound",), True)),
    # regulatory: a label cue; the chemical collection suppressed; section cues from the query
    ("imatinib dosage and administration",
     QueryRetrievalIntent("regulatory", ("eagle_chemical",), ("dosage",), True)),
    ("warfarin prescribing information", QueryRetrievalIntent("regulatory", ("eagle_chemical",), (), True)),
    ("drug label warnings of nilotinib", QueryRetrievalIntent("regulatory", ("eagle_chemical",), ("warnings",), True)),
    ("indications and usage",
     QueryRetrievalIntent("regulatory", ("eagle_chemical",), ("indications_and_usage",), True)),
    # combination: a combination cue and at least two drugs
    ("dabrafenib plus trametinib", QueryRetrievalIntent("combination", (), (), True)),
    ("warfarin co-administered with amiodarone", QueryRetrievalIntent("combination", (), (), True)),
    ("imatinib in combination dosing", QueryRetrievalIntent("drug_entity", (), ("dosage",), True)),
    # drug_entity: a drug named
    ("warfarin bleeding risk warnings", QueryRetrievalIntent("drug_entity", (), ("warnings",), True)),
    ("Gleevec side effects", QueryRetrievalIntent("drug_entity", (), ("adverse_reactions",), True)),
    # general: the rest; no entity match required
    ("EGFR T790M resistance", QueryRetrievalIntent("general", (), (), False)),
    ("dosing in renal impairment", QueryRetrievalIntent("general", (), ("dosage",), False)),
])
def test_workflow_table(query: str, expected: QueryRetrievalIntent) -> None:
    assert detect_retrieval_intent(query) == expected


def test_order_chemical_beats_regulatory_beats_combination() -> None:
    # both a compound cue and a label cue: chemical is tried first
    assert detect_retrieval_intent("compound in the drug label of aspirin").workflow == "chemical"
    # a label cue and a combination of two drugs: regulatory is tried before combination
    assert detect_retrieval_intent("prescribing information of dabrafenib plus trametinib").workflow == "regulatory"


def test_section_cues_keep_table_order_and_appear_once() -> None:
    assert section_cues_for("usage, warning and dosing; more warnings, indications") == (
        "warnings", "dosage", "indications_and_usage")
    assert section_cues_for("contraindications and side effects") == ("contraindications", "adverse_reactions")
    assert section_cues_for("mechanism of action") == ()


@pytest.mark.parametrize(("token", "expected"), [
    ("CC(=O)Oc1ccccc1C(=O)O", True), ("c1ccccc1", True), ("CN(C)C(=N)N=C(N)N", True),
    ("InChI=1S/CH4/h1H4", True), ("T790M", False), ("BRCA1/2", False), ("EGFR(T790M)", False), ("PD-1", False),
    ("IL-6", False), ("C(=O", False),
])
def test_looks_like_smiles(token: str, expected: bool) -> None:
    assert looks_like_smiles(token) is expected


def test_smiles_in_query_returns_the_token() -> None:
    assert smiles_in_query("similar to CC(C)Cc1ccc(cc1)C(C)C(=O)O.") == "CC(C)Cc1ccc(cc1)C(C)C(=O)O"
    assert smiles_in_query("no structure here") == ""


def test_intent_reads_the_query_only() -> None:
    # the answer depends on the words of the query, not on a call before it: a drug query, then a
    # general one, then the drug query again give their own answers
    drug = QueryRetrievalIntent("drug_entity", (), ("dosage",), True)
    assert detect_retrieval_intent("osimertinib dosing") == drug
    assert detect_retrieval_intent("dosing in the elderly") == QueryRetrievalIntent("general", (), ("dosage",), False)
    assert detect_retrieval_intent("osimertinib dosing") == drug


@pytest.mark.parametrize(("query", "workflow"), [
    # an unknown word with the enzyme-inhibitor stem -stat is a drug (orlistat, vorinostat, ...)
    ("foostat dosing", "drug_entity"),
    ("blixostat plus zorbatinib combination", "combination"),
    # a laboratory instrument that ends in -stat is not
    ("cryostat sections of mouse brain", "general"),
    ("thermostat calibration", "general"),
])
def test_stat_stem_names_a_drug(query: str, workflow: str) -> None:
    assert detect_retrieval_intent(query).workflow == workflow


def test_workflow_enum_parses_and_lists_valid_values() -> None:
    assert Workflow.from_str(" Drug_Entity ") is Workflow.DRUG_ENTITY
    with pytest.raises(ValueError, match="valid: chemical, regulatory, combination, drug_entity, general"):
        Workflow.from_str("labels")


@pytest.mark.parametrize(("query", "expected"), [
    ("alternatives to gefitinib", True), ("drugs that compete with capmatinib", True),
    ("nilotinib versus imatinib", True), ("second-generation BCR-ABL inhibitors", True),
    ("gefitinib dosage", False),
])
def test_competitive_questions(query: str, expected: bool) -> None:
    assert is_competitive_query(query) is expected

"""QueryAnalysis: what one query is about, computed once per request and read by every biomed stage."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from eagle_rag.engine import Engine
from eagle_rag.types import SearchMode, SearchRequest
from eagle_rag_biomed.ontology.matcher import EntityMatcher
from eagle_rag_biomed.query.analysis import QueryAnalysis, analysis_for, analyze_query
from eagle_rag_biomed.query.intent import Workflow
from tests.biomed.helpers import biomed_settings
from tests.biomed.query_support import context

LABEL = ("# Imatinib prescribing information\n\n## Indications and usage\nImatinib (Gleevec) treats chronic "
         "myeloid leukemia.\n\n## Dosage and administration\nThe dosage of imatinib is 400 mg daily.\n\n"
         "## Warnings\nFluid retention and edema occur with imatinib.\n")
PAPER = ("# Aspirin and clopidogrel after stenting\n\nWe randomized patients to aspirin plus clopidogrel. "
         "Bleeding events were more frequent with the combination.\n")


@pytest.fixture
def matcher_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Counts the ontology matcher's calls by the text they match."""
    calls: Counter[str] = Counter()
    original = EntityMatcher.match

    def spy(self: EntityMatcher, text: str) -> list:  # type: ignore[type-arg]
        calls[text] += 1
        return original(self, text)

    monkeypatch.setattr(EntityMatcher, "match", spy)
    yield calls


@pytest.mark.unit
def test_fields_of_a_drug_query() -> None:
    analysis = analyze_query("Gleevec dosage and warnings")
    assert analysis.workflow is Workflow.DRUG_ENTITY
    assert analysis.drugs == ("imatinib",)
    assert analysis.section_cues == ("warnings", "dosage")
    assert analysis.sparse_terms == ("imatinib", "warnings", "dosage")
    assert analysis.canonical_names == ("imatinib",)  # written as a brand name
    assert analysis.boost_terms == ("imatinib",) and analysis.penalty_drugs == ("imatinib",)
    assert analysis.anchor_drugs == ("imatinib",)
    assert analysis.smiles == "" and not analysis.competitive
    assert [m.canonical.lower() for m in analysis.entities] == ["imatinib"]
    assert analysis.dense_query.startswith("Gleevec dosage and warnings [biomed entities: ")


@pytest.mark.unit
def test_fields_of_a_competitive_and_a_structure_query() -> None:
    competitive = analyze_query("alternatives to imatinib")
    assert competitive.competitive and competitive.penalty_drugs == ()
    assert competitive.boost_terms[0] == "imatinib" and len(competitive.boost_terms) > 1  # plus related drugs
    chemical = analyze_query("similar compounds to CC(=O)Oc1ccccc1C(=O)O")
    assert chemical.workflow is Workflow.CHEMICAL and chemical.smiles == "CC(=O)Oc1ccccc1C(=O)O"
    general = analyze_query("sample size of randomized trials")
    assert general.workflow is Workflow.GENERAL and general.drugs == () and general.sparse_terms == ()
    assert general.dense_query == "sample size of randomized trials"


@pytest.mark.unit
def test_analysis_for_computes_once_per_query_per_request(tmp_path: Path, matcher_calls: Counter[str]) -> None:
    ctx = context(tmp_path)
    first = analysis_for(ctx, "imatinib dosage")
    assert analysis_for(ctx, "imatinib dosage") is first and isinstance(first, QueryAnalysis)
    assert matcher_calls["imatinib dosage"] == 1
    other = analysis_for(ctx.for_request(), "imatinib dosage")  # a new request analyses again
    assert other == first and other is not first and matcher_calls["imatinib dosage"] == 2


@pytest.mark.integration
@pytest.mark.parametrize("mode", [SearchMode.HYBRID, SearchMode.FULL])
def test_one_matcher_call_per_query_text_in_a_whole_search(tmp_path: Path, matcher_calls: Counter[str],
                                                           mode: SearchMode) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "label_imatinib.md").write_text(LABEL)
    (docs / "dapt_trial.md").write_text(PAPER)
    settings = biomed_settings(tmp_path / "data", biomed={"stages": {"late_interaction": False}})
    with Engine(settings) as engine:
        engine.ingest([docs], kb_name="kb")
        matcher_calls.clear()
        response = engine.search(SearchRequest("Gleevec dosage warnings", top_k=3, kb_names=("kb",), mode=mode))
    assert response.hits and response.hits[0].path.startswith("Imatinib prescribing information")
    # the request's own text (QUERY_ASSEMBLE) and the assembled query (every later stage), once each
    assert dict(matcher_calls) == {"Gleevec dosage warnings": 1, "Gleevec dosage warnings imatinib": 1}


# ----------------------------------------------------------------- the rules of the derived terms

@pytest.mark.unit
def test_boost_terms_drugs_first_then_target_related_drugs() -> None:
    assert analyze_query("imatinib dosage").boost_terms == ("imatinib",)
    egfr = analyze_query("EGFR T790M resistance").boost_terms
    assert egfr[:3] == ("gefitinib", "erlotinib", "osimertinib") and len(egfr) == 6
    assert analyze_query("hepatic insulin resistance").boost_terms == ()  # a disease's drugs are not boosted
    competitive = analyze_query("alternatives to imatinib").boost_terms
    assert competitive[0] == "imatinib" and "dasatinib" in competitive and "nilotinib" in competitive


@pytest.mark.unit
def test_penalty_drugs_are_named_drugs_unless_competitive() -> None:
    assert analyze_query("imatinib dosage").penalty_drugs == ("imatinib",)
    assert analyze_query("drugs that compete with imatinib").penalty_drugs == ()
    assert analyze_query("EGFR T790M").penalty_drugs == ()


@pytest.mark.unit
def test_anchor_drugs_are_the_named_drugs_first() -> None:
    assert analyze_query("imatinib versus dasatinib").anchor_drugs == ("imatinib", "dasatinib")


@pytest.mark.unit
def test_anchor_drugs_fall_back_to_four_related_drugs_of_the_first_entity() -> None:
    assert analyze_query("EGFR T790M").anchor_drugs == ("gefitinib", "erlotinib", "osimertinib", "afatinib")
    assert analyze_query("sample size").anchor_drugs == ()

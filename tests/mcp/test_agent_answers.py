"""What an agent is told under ``EAGLE_RAG_PROFILE=biomed`` on the demo corpus (labels and compounds, real
encoders), in process: filter values under the names people use, the valid values listed in the tool
schema, and empty answers that name the values the documents carry."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from eagle_rag.engine import Engine
from eagle_rag.service.core_tools import build_tool_registry
from eagle_rag.service.tools import ToolRegistry
from tests.integrations.biomed_demo import biomed_demo_folder, in_process_settings, private_copy

pytestmark = pytest.mark.integration
QUERY = "imatinib dosage for chronic myeloid leukemia"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    data = private_copy(biomed_demo_folder(tmp_path_factory), tmp_path_factory.mktemp("answers") / "data")
    with Engine(in_process_settings(data)) as eng:
        yield eng


@pytest.fixture(scope="module")
def tools(engine: Engine) -> ToolRegistry:
    return build_tool_registry(engine)


def search(tools: ToolRegistry, **args: object) -> dict:
    return tools.call("core_search", {"query": QUERY, "kb_name": "demo", "mode": "bm25", **args})


@pytest.mark.parametrize("sections", [["Dosage and Administration"], ["dosage"], ["DOSAGE"],
                                      ["Dosage & Administration"], ["dosage_and_administration"]])
def test_sections_take_the_names_people_use(tools, sections):
    found = search(tools, sections=sections)
    assert found["hits"] and all(h["path"].endswith("Dosage and Administration") for h in found["hits"]), sections


@pytest.mark.parametrize("names, prefix", [(["label"], "label_"), (["Drug Labels"], "label_"),
                                           (["drug_label"], "label_"), (["compound"], "cmp-"),
                                           (["Compounds"], "cmp-")])
def test_doc_types_take_the_names_people_use(tools, names, prefix):
    # a compound query that names no drug: the filter itself sends it to the compound collection
    query = "analgesic and antipyretic" if prefix == "cmp-" else QUERY
    found = search(tools, query=query, doc_types=names, mode="hybrid")
    assert found["hits"] and all(h["document_id"].startswith(prefix) for h in found["hits"]), names


def test_the_schema_lists_the_valid_section_and_doc_type_values(tools):
    properties = tools.get("core_search").input_schema["properties"]
    doc_types = properties["doc_types"]["description"]
    assert "valid values: compound, drug_label, other, patent, research" in doc_types
    sections = properties["sections"]["description"]
    assert all(name in sections for name in ("dosage", "adverse_reactions", "warnings", "methods", "results"))


def test_an_empty_answer_under_a_section_filter_names_the_sections_the_matches_carry(tools):
    empty = search(tools, sections=["claims"])
    assert empty["hits"] == [] and empty["excluded_by_filter"]["sections"] >= 1
    carried = empty["filter_values"]["sections"]
    assert "dosage" in carried and "claims" not in carried
    assert "the sections of the documents it matches: " in empty["empty_reason"] and "dosage" in empty["guidance"]
    kinds = search(tools, doc_types=["patent"])
    assert kinds["filter_values"] == {"doc_types": ["drug_label"]}


def test_a_biologic_is_named_as_a_drug_without_a_structure(tools):
    answer = tools.call("biomed_retrieve_compounds", {"smiles_or_name": "trastuzumab"})
    error = answer["error"]
    assert error["code"] == "encode_failed" and error["details"]["reason"] == "no_structure"
    assert "known drug" in error["message"] and "biologic" in error["message"]
    assert "not a known drug name" not in error["message"]
    her2 = tools.call("biomed_query_entities", {"entity": "HER2"})
    assert "trastuzumab" in her2["related_drugs"]  # the name an agent got from the entity answer


def test_a_typo_with_a_suggestion_is_not_a_complete_lookup(tools):
    answer = tools.call("biomed_query_entities", {"entity": "osimertnib", "kb_name": "demo"})
    assert answer["found"] is False and answer["close_matches"][0]["entity"] == "osimertinib"
    mentions = answer["kb_mentions"]
    assert mentions["complete"] is False and "osimertinib" in mentions["reason"]
    exact = tools.call("biomed_query_entities", {"entity": "osimertinib", "kb_name": "demo"})
    assert exact["kb_mentions"]["documents"] and "reason" not in exact["kb_mentions"]


def test_datasets_search_names_the_mcp_control_and_its_limit(tools):
    answer = tools.call("datasets_search", {"query": "cancer", "top_k": 1})
    assert answer["exhaustive"] is False and "Raise top_k (at most 50)" in answer["message"]
    limit = tools.get("datasets_search").input_schema["properties"]["top_k"]["maximum"]
    assert limit == 50 and "up to 100" not in answer["message"]

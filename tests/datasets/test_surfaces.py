"""The MCP tool ``datasets_search`` and the CLI show the match kind, the constraint that emptied an
answer, and suggestions apart from the hits."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from eagle_rag.context import Services
from eagle_rag_datasets.cli import datasets_app
from eagle_rag_datasets.surfaces import eagle_mcp_tools

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def search_tool():
    engine = SimpleNamespace(ctx=SimpleNamespace(services=Services()),
                             settings=SimpleNamespace(api=SimpleNamespace(max_ids_per_request=100)))
    return next(t for t in eagle_mcp_tools(engine=engine) if t.name == "datasets_search")


def test_mcp_tool_says_which_term_emptied_the_answer(search_tool):
    assert search_tool.input_schema["properties"]["semantic"]["default"] is True
    answer = search_tool.handler(query="Finnish radiology reports", top_k=3)
    assert answer["hits"] == [] and answer["verdict"] == "unsatisfied" and answer["absent"] is True
    assert answer["unsatisfied"][0]["term"] == "finnish" and "is in Finnish (0 of 386)" in answer["message"]
    assert len(answer["suggestions"]) == 3 and all("language: finnish" in s["fails"] for s in answer["suggestions"])


def test_mcp_tool_labels_semantic_hits(search_tool):
    answer = search_tool.handler(query="英文 生物医学 句子 相似度", top_k=3)
    assert answer["hits"][0]["match"] == "semantic" and answer["hits"][0]["similarity"] >= answer["semantic"]["floor"]
    lexical = search_tool.handler(query="英文 生物医学 句子 相似度", top_k=3, semantic=False)
    assert all(h["match"] != "semantic" for h in lexical["hits"])


def test_cli_prints_the_constraint_and_the_suggestions():
    result = CliRunner().invoke(datasets_app, ["search", "--local", "Finnish radiology reports"])
    assert result.exit_code == 0, result.output
    assert "emptied by the language term 'finnish': 0 of 386 cards satisfy it" in result.output
    assert "suggestions (not matches):" in result.output

"""Evaluation arithmetic: ranx for queries with relevant cards, our rule for empty-answer queries."""

from __future__ import annotations

import pytest

from eagle_rag_datasets import DatasetCatalog, DatasetsError, Engine, InvalidQueryError
from eagle_rag_datasets.evaluate import EvalQuery, empty_query_score, evaluate_engines, read_queries
from tests.datasets.conftest import QUERIES, card

pytestmark = pytest.mark.unit


def test_empty_query_rule():
    assert empty_query_score([]) == 1.0 and empty_query_score(["a"]) == 0.0


def test_figures_written_out():
    cat = DatasetCatalog.from_records([card("a", "Alpha Set", "alpha"), card("b", "Beta Set", "alpha beta"),
                                       card("c", "Gamma", "gamma")])
    queries = [
        EvalQuery("q1", "Alpha Set", ("a",), "name"),      # rank 1
        EvalQuery("q2", "beta", ("a",), "text"),           # a is not returned at all
        EvalQuery("q3", "alpha", ("b",), "text"),          # returned a, b: b at rank 2
        EvalQuery("q4", "zeta", (), "empty"),              # nothing returned: correct
        EvalQuery("q5", "gamma", (), "empty"),             # something returned: wrong
    ]
    report = evaluate_engines(cat, queries, [Engine.BM25])["bm25"]
    overall = report["overall"]
    assert overall["hit@5"] == round((1 + 0 + 1 + 1 + 0) / 5, 4)
    assert overall["mrr"] == round((1 + 0 + 1 / 2 + 1 + 0) / 5, 4)
    assert overall["p@5"] == round((1 / 5 + 0 + 1 / 5 + 1 + 0) / 5, 4)
    assert overall["empty_correct"] == 0.5 and overall["n"] == 5
    assert report["by_type"]["text"] == {"hit@5": 0.5, "mrr": 0.25, "p@5": 0.1, "empty_correct": None,
                                         "false_absent": 0, "n": 2}


def test_unknown_relevant_ids_are_refused():
    cat = DatasetCatalog.from_records([card("a", "A")])
    with pytest.raises(DatasetsError, match="not in the catalog"):
        evaluate_engines(cat, [EvalQuery("q", "A", ("zzz",), "name")], [Engine.INDEX])


def test_query_file_errors_name_lines(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"query": "a", "relevant": [], "type": "empty"}\n{"query": "b"}\nnot json\n', encoding="utf-8")
    with pytest.raises(InvalidQueryError, match="line 2.*line 3"):
        read_queries(path)


def test_the_regression_set_shape(catalog):
    queries = read_queries(QUERIES)
    types = {q.type for q in queries}
    assert len(queries) >= 85 and types == {
        "chinese", "english", "mixed", "alias-hyphen", "alias", "name", "typo", "synonym", "specialty",
        "condition", "combination", "empty", "agent"}
    assert sum(1 for q in queries if not q.relevant) >= 8
    assert all(catalog.get(doc) is not None for q in queries for doc in q.relevant)

"""The three engines on the regression set against the accepted baseline, and the scoring contract."""

from __future__ import annotations

import json
import math

import pytest

from eagle_rag_datasets import DatasetCatalog, Engine
from eagle_rag_datasets.evaluate import METRICS, evaluate_engines, read_queries
from eagle_rag_datasets.search.engines.bm25 import BM25Engine, idf
from tests.datasets.conftest import BASELINE, QUERIES, card

TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def report(catalog) -> dict:
    return evaluate_engines(catalog, read_queries(QUERIES), list(Engine))


@pytest.mark.integration
def test_no_figure_drops_below_the_accepted_baseline(report):
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    assert set(baseline) == {e.value for e in Engine}
    drops = []
    for engine, accepted in baseline.items():
        scopes = [("overall", accepted["overall"], report[engine]["overall"])]
        scopes += [(t, figures, report[engine]["by_type"].get(t)) for t, figures in accepted["by_type"].items()]
        for scope, old, new in scopes:
            for metric in (*METRICS, "empty_correct"):
                if old.get(metric) is None:
                    continue
                if new is None or new[metric] is None or new[metric] < old[metric] - TOLERANCE:
                    drops.append(f"{engine} {scope} {metric}: {old[metric]} -> {new and new[metric]}")
    assert not drops, "figures below eval/datasets/baseline.json:\n" + "\n".join(drops)


@pytest.mark.integration
def test_main_engine_targets(report):
    overall = report["index"]["overall"]
    assert overall["hit@5"] == 1.0 and overall["mrr"] >= 0.98
    for engine in Engine:
        assert report[engine.value]["overall"]["empty_correct"] == 1.0  # every empty query returns nothing


@pytest.mark.unit
def test_bm25_formula_pinned():
    cat = DatasetCatalog.from_records([card("a", "Alpha", "x y"), card("b", "Beta", "x x z"), card("c", "Gamma", "w")])
    scores = BM25Engine(cat.index).scores([("text", "x", 1.0)], {0, 1, 2})
    n_docs, doc_freq, avg_len = 3, 2, (2 + 3 + 1) / 3
    assert idf(n_docs, doc_freq) == math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    k1, b = 1.2, 0.75
    expected_a = idf(3, 2) * 1 * (k1 + 1) / (1 + k1 * (1 - b + b * 2 / avg_len))
    expected_b = idf(3, 2) * 2 * (k1 + 1) / (2 + k1 * (1 - b + b * 3 / avg_len))
    assert scores == pytest.approx({0: expected_a, 1: expected_b})


@pytest.fixture(scope="module", params=[Engine.INDEX, Engine.BM25])
def scorer(request, mini):
    return mini.engine(request.param)


@pytest.mark.unit
def test_scoring_contract(scorer, mini):
    """Every scoring engine: scores only candidates, nothing for unknown terms or no terms."""
    assert scorer.scores([("text", "chemic", 1.0)], {0, 1, 2}).keys() == {0, 1}
    assert scorer.scores([("text", "chemic", 1.0)], {1}).keys() == {1}
    assert scorer.scores([("text", "zzzqqq", 1.0)], {0, 1}) == {}
    assert scorer.scores([], {0, 1}) == {}
    title = scorer.scores([("text", "bc5cdr", 1.0)], {0, 1})
    assert title[0] > title[1] > 0  # name hit (x TITLE_BOOST) above description hit


@pytest.mark.unit
def test_tantivy_and_python_bm25_agree(catalog):
    terms = [("text", "diseas", 1.0), ("text", "corpus", 0.5), ("text", "中文", 1.0)]
    candidates = set(range(catalog.size))
    ours = BM25Engine(catalog.index).scores(terms, candidates)
    theirs = catalog.engine(Engine.INDEX).scores(terms, candidates)
    assert ours.keys() == theirs.keys()
    for ordinal, score in ours.items():  # tantivy stores field lengths in one byte: small differences
        assert theirs[ordinal] == pytest.approx(score, rel=0.15)

"""Gold-set scoring: ranx metrics with the arithmetic written out, and the failure classes."""

from __future__ import annotations

import pytest

from eagle_rag_biomed.eval.runner import QueryResult, classify_failure, evaluate_results

pytestmark = pytest.mark.unit


def result(qid: str, expected: list[str], ranked: list[str], coverage: float = 1.0,
           plans: list[str] | None = None, workflow: str = "general") -> QueryResult:
    return QueryResult(qid, "q", workflow, workflow, expected, ranked,
                       [ranked.index(d) + 1 for d in expected if d in ranked], coverage, [],
                       plans or ["eagle_text_biomed"])


def test_metrics_arithmetic() -> None:
    results = [
        result("q1", ["a"], ["a", "x"]),                 # hit, recall 1, RR 1
        result("q2", ["b", "c"], ["x", "b", "y"]),       # hit, recall 1/2, RR 1/2
        result("q3", ["d"], ["x", "y", "z", "w", "v", "d"], coverage=0.5),  # rank 6: no hit@5, RR 1/6
        result("q4", ["e"], []),                         # nothing
    ]
    out = evaluate_results(results)
    assert out["hit@5"] == pytest.approx((1 + 1 + 0 + 0) / 4)
    assert out["recall@5"] == pytest.approx((1 + 0.5 + 0 + 0) / 4)
    assert out["mrr"] == pytest.approx(round((1 + 1 / 2 + 1 / 6 + 0) / 4, 4))
    assert out["term_coverage"] == pytest.approx((1 + 1 + 0.5 + 1) / 4)
    assert out["queries"] == 4


LOC = {"a": {"eagle_text_biomed"}, "b": {"eagle_chemical"}, "c": {"eagle_text_biomed"}}


@pytest.mark.parametrize(("res", "indexed", "gaps", "expected"), [
    (result("q", ["zzz"], ["a"]), {"a"}, set(), "gold_corpus_gap"),
    (result("q", ["a"], ["a"]), {"a"}, {"q"}, "gold_over_specified"),
    (result("q", ["b"], ["a"], plans=["eagle_text_biomed"]), {"a", "b"}, set(), "query_route_gap"),
    (result("q", ["a"], ["x", "y", "z", "w", "v", "a"]), {"a"}, set(), "ranking_gap"),
    (result("q", ["a", "c"], ["a"]), {"a", "c"}, set(), "ranking_gap"),
    (result("q", ["a"], ["a"], coverage=0.5), {"a"}, set(), "term_metric_strict"),
    (result("q", ["a"], ["a"]), {"a"}, set(), "ok"),
])
def test_failure_classes(res: QueryResult, indexed: set[str], gaps: set[str], expected: str) -> None:
    assert classify_failure(res, indexed, gaps, LOC) == expected

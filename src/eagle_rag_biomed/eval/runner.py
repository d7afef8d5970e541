"""``eagle-rag eval biomed``: run the gold set through the engine and score it.

Metrics (ranx, never hand-rolled): Hit@5 (``hit_rate@5``), Recall@5 (``recall@5``) and MRR
(``mrr@10``: the reciprocal rank of the first expected document in the top 10), overall and per
workflow; term coverage is the share of a query's expected terms found (case-insensitive) in what the
top 5 hits show (document name, section path and text), averaged over queries. Each query also gets a failure class
(:func:`classify_failure`, explained for operators in ``eval/biomed/RETRIEVAL.md``):

``gold_corpus_gap``      an expected document is not in the index;
``gold_over_specified``  an expected term occurs in none of the expected documents;
``query_route_gap``      the expected documents are missing from the top 5 and live only in
                         collections the route did not search;
``ranking_gap``          an expected document was searchable but is not in the top 5;
``term_metric_strict``   the documents are found but some expected term is not in the top 5 texts;
``ok``                   everything found.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ranx import Qrels, Run, evaluate

from eagle_rag.plugin_api import SearchMode, SearchRequest, StoreFilter, public_document_id
from eagle_rag_biomed.eval.gold_set import GoldQuery, doc_key, matches
from eagle_rag_biomed.query.intent import detect_retrieval_intent

__all__ = ["FAILURE_CLASSES", "GATES", "CUTOFF", "GoldReport", "QueryResult", "classify_failure", "corpus_texts",
           "evaluate_results", "run_gold", "sample_corpus_paths"]

CUTOFF = 5
DEPTH = 10
METRICS = {"hit@5": "hit_rate@5", "recall@5": "recall@5", "mrr": "mrr@10"}
FAILURE_CLASSES = ("gold_corpus_gap", "gold_over_specified", "query_route_gap", "ranking_gap",
                   "term_metric_strict", "ok")
GATES = {"hit@5": 0.70, "recall@5": 0.50, "mrr": 0.55, "term_coverage": 0.80}
CORPUS_FOLDERS = ("labels", "abstracts", "compounds", "chinese", "other")


@dataclass
class QueryResult:
    """What one gold query got."""

    id: str
    query: str
    workflow: str
    detected_workflow: str
    expected: list[str]
    ranked: list[str]
    found_at: list[int]
    term_coverage: float
    missing_terms: list[str]
    plans: list[str]
    failure_class: str = "ok"
    latency_ms: float = 0.0


@dataclass
class GoldReport:
    overall: dict[str, float]
    by_workflow: dict[str, dict[str, float]]
    results: list[QueryResult] = field(default_factory=list)

    def failures(self) -> list[dict[str, Any]]:
        return [{"id": r.id, "query": r.query, "workflow": r.workflow, "failure_class": r.failure_class,
                 "expected": r.expected, "top5": r.ranked[:CUTOFF], "missing_terms": r.missing_terms,
                 "plans": r.plans, "detected_workflow": r.detected_workflow}
                for r in self.results if r.failure_class != "ok"]

    def to_dict(self) -> dict[str, Any]:
        return {"overall": self.overall, "by_workflow": self.by_workflow, "failures": self.failures(),
                "queries": [asdict(r) for r in self.results]}


def sample_corpus_paths(root: Path) -> list[Path]:
    """The corpus folders of the bundled sample (``labels``, ``abstracts``, ``compounds``, ...)."""
    return [root / name for name in CORPUS_FOLDERS if (root / name).is_dir()]


def corpus_texts(engine: Any, paths: Sequence[Path], kb_name: str) -> dict[str, str]:
    """Gold id -> full text of every document in ``paths``, parsed as the ingest parses them."""
    from eagle_rag.plugin_api.ingest import iter_source_files

    files, _ = iter_source_files(list(paths))
    ctx = engine.request_context()
    out: dict[str, str] = {}
    for path in files:
        for doc in engine.ingestor.parse_file(ctx, path, kb_name):
            out[doc_key(doc.document_id, str(doc.metadata.get("record_id", "")))] = f"{doc.name}\n{doc.full_text}"
    return out


def _coverage(terms: Sequence[str], texts: Sequence[str]) -> tuple[float, list[str]]:
    if not terms:
        return 1.0, []
    body = " ".join(texts).lower()
    missing = [t for t in terms if t.lower() not in body]
    return 1 - len(missing) / len(terms), missing


def classify_failure(result: QueryResult, indexed: set[str], term_gaps: set[str],
                     locations: dict[str, set[str]]) -> str:
    """The failure class of one result (see the module docstring), checked in the listed order.

    ``indexed``: gold ids present in the index; ``term_gaps``: ids of queries whose terms are not all
    in their expected documents; ``locations``: gold id -> collections holding its chunks.
    """
    if any(doc not in indexed for doc in result.expected):
        return "gold_corpus_gap"
    if result.id in term_gaps:
        return "gold_over_specified"
    in_top = [d for d in result.expected if d in result.ranked[:CUTOFF]]
    if not in_top:
        routable = any(locations.get(d, set()) & set(result.plans) for d in result.expected)
        return "ranking_gap" if routable else "query_route_gap"
    if len(in_top) < len(result.expected):
        return "ranking_gap"
    if result.term_coverage < 1.0:
        return "term_metric_strict"
    return "ok"


def evaluate_results(results: Sequence[QueryResult]) -> dict[str, float]:
    """Hit@5, Recall@5, MRR (ranx) and mean term coverage of some results."""
    if not results:
        return {k: 0.0 for k in (*METRICS, "term_coverage")} | {"queries": 0}
    qrels = Qrels({r.id: dict.fromkeys(r.expected, 1) for r in results})
    run = Run({r.id: ({d: float(DEPTH - i) for i, d in enumerate(r.ranked)} or {"__none__": 0.0}) for r in results})
    scores = evaluate(qrels, run, list(METRICS.values()), make_comparable=True)
    out = {name: round(float(scores[metric]), 4) for name, metric in METRICS.items()}
    out["term_coverage"] = round(sum(r.term_coverage for r in results) / len(results), 4)
    out["queries"] = len(results)
    return out


def _ranked(response: Any, expected: Sequence[str]) -> tuple[list[str], list[str]]:
    ranked: list[str] = []
    texts: list[str] = []
    for hit in response.hits:
        key = doc_key(hit.document_id, str(hit.metadata.get("record_id", "")), expected)
        if len(texts) < CUTOFF:
            texts.append(f"{hit.metadata.get('document_name', '')}\n{hit.path}\n{hit.text}")
        if key not in ranked:
            ranked.append(key)
    return ranked, texts


def run_gold(engine: Any, gold: Sequence[GoldQuery], mode: SearchMode = SearchMode.FULL, kb_name: str = "",
             texts: dict[str, str] | None = None,
             progress: Callable[[int, int], None] | None = None) -> GoldReport:
    """Search every gold query (top 10) and score the run. ``texts`` enables the gold self-check."""
    import time

    docs = engine.registry.list(limit=1_000_000)
    expected_all = {d for g in gold for d in g.expected_doc_ids}
    indexed = {e for e in expected_all if any(matches(public_document_id(d.id), e) for d in docs)}
    locations: dict[str, set[str]] = {}
    present = [p.name for p in engine.encoders.collections() if engine.vectors.has_collection(p.name)]
    for e in expected_all:
        ids = tuple(d.id for d in docs if matches(public_document_id(d.id), e))
        for name in present if ids else []:
            if engine.vectors.has_rows(name, StoreFilter(document_ids=ids)):
                locations.setdefault(e, set()).add(name)
    term_gaps: set[str] = set()
    if texts is not None:
        for g in gold:
            body = " ".join(texts.get(d, "") for d in g.expected_doc_ids).lower()
            if any(t.lower() not in body for t in g.expected_terms):
                term_gaps.add(g.id)
    results: list[QueryResult] = []
    for n, g in enumerate(gold, start=1):
        started = time.perf_counter()
        request = SearchRequest(query=g.query, top_k=DEPTH, mode=mode, kb_names=(kb_name,) if kb_name else ())
        response = engine.search(request)
        latency = (time.perf_counter() - started) * 1000
        ranked, top_texts = _ranked(response, g.expected_doc_ids)
        coverage, missing = _coverage(g.expected_terms, top_texts)
        result = QueryResult(g.id, g.query, g.workflow, detect_retrieval_intent(g.query).workflow,
                             list(g.expected_doc_ids), ranked,
                             [ranked.index(d) + 1 for d in g.expected_doc_ids if d in ranked], round(coverage, 4),
                             missing, list(response.route.get("plans", [])), latency_ms=round(latency, 1))
        result.failure_class = classify_failure(result, indexed, term_gaps, locations)
        results.append(result)
        if progress:
            progress(n, len(gold))
    workflows = sorted({r.workflow for r in results})
    by_workflow = {w: evaluate_results([r for r in results if r.workflow == w]) for w in workflows}
    return GoldReport(evaluate_results(results), by_workflow, results)

"""Evaluation of the engines on a query set: Hit@5, MRR and P@5 per query type and overall.

Query file: JSONL ``{"query", "relevant": [card ids], "type"}`` with optional ``"filters"``
(languages, licenses, tasks, sources, tags; ``license`` is read as ``licenses``), ``"strict"`` and
``"split"`` (``read_queries(path, split="tune")`` keeps one split; other keys are ignored). An
empty ``relevant`` means the right answer is no result. Metrics for queries with relevant cards
come from ranx (hit_rate@5, mrr over the top 10 returned, precision@5); a query whose right
answer is no result scores 1.0 on all three when nothing is returned and 0.0 otherwise (:func:`empty_query_score`).
``empty_correct`` is the share of such queries answered with no result (None when a group has none);
``false_absent`` counts queries with relevant cards answered "the catalog holds no such card"
(``absent`` in the response).
The query set and its figures: eval/datasets/; the rules: docs/datasets.md, section 12.
"""

from __future__ import annotations

import json
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eagle_rag_datasets.catalog.catalog import DatasetCatalog
from eagle_rag_datasets.errors import DatasetsError, InvalidQueryError
from eagle_rag_datasets.search.engines import Engine
from eagle_rag_datasets.search.query import FILTERS, DatasetQuery

EVAL_TOP_K = 10
METRICS = ("hit@5", "mrr", "p@5")
_RANX = {"hit@5": "hit_rate@5", "mrr": "mrr", "p@5": "precision@5"}


@dataclass(frozen=True)
class EvalQuery:
    qid: str
    query: str
    relevant: tuple[str, ...]
    type: str
    filters: dict[str, tuple[str, ...]] = field(default_factory=dict)
    strict: bool = False
    split: str = ""


def _filters(row: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    raw = dict(row.get("filters") or {})
    if "license" in raw:
        raw["licenses"] = raw.pop("license")
    return {k: (v,) if isinstance(v, str) else tuple(v) for k, v in raw.items()}


def read_queries(path: str | Path, split: str | None = None) -> list[EvalQuery]:
    """Read a query file (only the queries of ``split`` when given); raises :class:`InvalidQueryError`
    naming every bad line."""
    out, problems = [], []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            filters = _filters(row)
            if set(filters) - set(FILTERS):
                raise ValueError(f"unknown filters {sorted(set(filters) - set(FILTERS))}")
            if not isinstance(row["query"], str) or not isinstance(row["relevant"], list) or not row.get("type"):
                raise ValueError("needs query (string), relevant (list) and type")
            if split is None or row.get("split") == split:
                out.append(EvalQuery(str(row.get("id") or f"q{number}"), row["query"], tuple(row["relevant"]),
                                     str(row["type"]), filters, bool(row.get("strict", False)),
                                     str(row.get("split", ""))))
        except (ValueError, KeyError, TypeError) as exc:
            problems.append(f"line {number}: {exc}")
    if problems:
        raise InvalidQueryError(f"{path}: {len(problems)} bad query line(s): " + "; ".join(problems[:5]),
                                {"problems": problems})
    return out


def empty_query_score(returned: Sequence[str]) -> float:
    """A query whose right answer is no result: 1.0 when nothing was returned, else 0.0."""
    return 0.0 if returned else 1.0


def run_engine(catalog: DatasetCatalog, queries: Iterable[EvalQuery], engine: Engine,
               k: int = EVAL_TOP_K, progress: Callable[[int], None] | None = None,
               absent: set[str] | None = None) -> dict[str, list[str]]:
    """Query id -> returned card ids, best first; ``progress`` gets the queries done so far; ``absent``
    gets the ids of the queries answered "no such card"."""
    runs = {}
    for done, q in enumerate(queries, start=1):
        request = DatasetQuery.from_dict({"text": q.query, "top_k": k, "engine": engine.value, "strict": q.strict,
                                          **q.filters})
        response = catalog.search(request)
        runs[q.qid] = [hit.id for hit in response.hits]
        if absent is not None and response.absent:
            absent.add(q.qid)
        if progress is not None:
            progress(done)
    return runs


def _per_query(queries: Sequence[EvalQuery], runs: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    from ranx import Qrels, Run, evaluate

    scored = [q for q in queries if q.relevant]
    out: dict[str, dict[str, float]] = {}
    if scored:
        qrels = Qrels.from_dict({q.qid: {doc: 1 for doc in q.relevant} for q in scored})
        run = Run.from_dict({q.qid: {doc: 1.0 / rank for rank, doc in enumerate(runs[q.qid], 1)} for q in scored})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba's uint64 -> int64 cast notice inside ranx
            evaluate(qrels, run, [_RANX[m] for m in METRICS], return_mean=False, make_comparable=True)
        # Per-query scores by query id (ranx orders its arrays by sorted id, not by input order).
        for q in scored:
            out[q.qid] = {m: float(run.scores[_RANX[m]][q.qid]) for m in METRICS}
    for q in queries:
        if not q.relevant:
            score = empty_query_score(runs[q.qid])
            out[q.qid] = dict.fromkeys(METRICS, score)
    return out


def _summary(queries: Sequence[EvalQuery], per_query: dict[str, dict[str, float]],
             absent: set[str]) -> dict[str, Any]:
    n = len(queries)
    out: dict[str, Any] = {m: round(sum(per_query[q.qid][m] for q in queries) / n, 4) for m in METRICS}
    empties = [q for q in queries if not q.relevant]
    out["empty_correct"] = (round(sum(per_query[q.qid]["hit@5"] for q in empties) / len(empties), 4)
                            if empties else None)
    out["false_absent"] = sum(1 for q in queries if q.relevant and q.qid in absent)
    out["n"] = n
    return out


def evaluate_engines(catalog: DatasetCatalog, queries: Sequence[EvalQuery], engines: Sequence[Engine],
                     progress: Callable[[int], None] | None = None) -> dict[str, dict[str, Any]]:
    """``{ENGINE: {"overall": {...}, "by_type": {TYPE: {...}}}}`` (see the module docstring).

    ``progress`` gets the queries run so far, over every engine (``len(queries) * len(engines)`` in all).
    """
    unknown = sorted({doc for q in queries for doc in q.relevant if catalog.get(doc) is None})
    if unknown:
        raise DatasetsError(f"relevant ids not in the catalog: {', '.join(unknown[:10])}", {"unknown": unknown})
    report: dict[str, dict[str, Any]] = {}
    for index, engine in enumerate(engines):
        base = index * len(queries)
        step = None if progress is None else (lambda done, base=base: progress(base + done))
        absent: set[str] = set()
        per_query = _per_query(queries, run_engine(catalog, queries, engine, progress=step, absent=absent))
        by_type: dict[str, list[EvalQuery]] = defaultdict(list)
        for q in queries:
            by_type[q.type].append(q)
        report[engine.value] = {
            "overall": _summary(queries, per_query, absent),
            "by_type": {t: _summary(qs, per_query, absent) for t, qs in sorted(by_type.items())},
        }
    return report


def parse_engines(name: str) -> list[Engine]:
    """``all`` or one engine name."""
    return list(Engine) if name.strip().lower() == "all" else [Engine.from_str(name)]

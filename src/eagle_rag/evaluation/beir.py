"""BEIR evaluation: ingest a BEIR folder, run its queries, score with ranx.

Metrics: nDCG@10, Recall@100, MRR@10 and Hit@5 (ranx ``hit_rate@5``), per-query latency p50/p95
and ingest documents per second. Relevance 0 in the qrels means "not relevant" and is dropped.
"""

from __future__ import annotations

import csv
import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ranx import Qrels, Run, evaluate

from eagle_rag.errors import InvalidRequest
from eagle_rag.types import SearchMode, SearchRequest

METRICS = ("ndcg@10", "recall@100", "mrr@10", "hit_rate@5")
PIPELINES = (SearchMode.BM25, SearchMode.DENSE, SearchMode.HYBRID, SearchMode.FULL)
KB_NAME = "beir"


@dataclass
class BeirData:
    root: Path
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    corpus_path: Path
    corpus_docs: int


@dataclass
class PipelineResult:
    pipeline: str
    metrics: dict[str, float]
    latencies_ms: list[float] = field(default_factory=list)
    ingest_docs_per_s: float = 0.0
    per_query_ndcg: dict[str, float] = field(default_factory=dict)
    """nDCG@10 of every query (paired comparisons of two pipelines: bench/bench_multilingual_rerank.py)."""

    def to_dict(self) -> dict[str, Any]:
        lat = sorted(self.latencies_ms)
        return {
            "ndcg@10": round(self.metrics["ndcg@10"], 4),
            "recall@100": round(self.metrics["recall@100"], 4),
            "mrr@10": round(self.metrics["mrr@10"], 4),
            "hit@5": round(self.metrics["hit_rate@5"], 4),
            "latency_ms": {"p50": round(percentile(lat, 50), 2), "p95": round(percentile(lat, 95), 2)},
            "ingest_docs_per_s": round(self.ingest_docs_per_s, 2),
            "queries": len(lat),
        }


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list (0.0 for an empty list)."""
    if not sorted_values:
        return 0.0
    index = max(0, min(len(sorted_values) - 1, round(q / 100 * len(sorted_values) + 0.5) - 1))
    return float(sorted_values[index])


def load_beir(root: Path, split: str = "test", limit_queries: int | None = None, offset: int = 0) -> BeirData:
    """Read corpus.jsonl, queries.jsonl and qrels/SPLIT.tsv. Raises InvalidRequest when missing.

    The judged queries are taken in the order of the qrels file: the first ``offset`` are skipped and
    at most ``limit_queries`` after them kept (a slice for tuning, a disjoint one for reporting).
    """
    if offset < 0:
        raise InvalidRequest("the query offset must be 0 or more", {"field": "offset"})
    corpus = root / "corpus.jsonl"
    qrels_path = root / "qrels" / f"{split}.tsv"
    for needed in (corpus, root / "queries.jsonl", qrels_path):
        if not needed.is_file():
            raise InvalidRequest(f"not a BEIR folder: {needed} is missing")
    qrels: dict[str, dict[str, int]] = {}
    with qrels_path.open(encoding="utf-8") as fh:
        for row in csv.reader(fh, delimiter="\t"):
            if len(row) < 3 or row[0] == "query-id":
                continue
            score = int(float(row[2]))
            if score > 0:
                qrels.setdefault(row[0], {})[row[1]] = score
    queries: dict[str, str] = {}
    with (root / "queries.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                obj = json.loads(line)
                if str(obj["_id"]) in qrels:
                    queries[str(obj["_id"])] = str(obj["text"])
    ids = [q for q in qrels if q in queries][offset:]
    if limit_queries:
        ids = ids[:limit_queries]
    with corpus.open(encoding="utf-8") as fh:
        docs = sum(1 for line in fh if line.strip())
    return BeirData(root, {q: queries[q] for q in ids}, {q: qrels[q] for q in ids}, corpus, docs)


def corpus_fingerprint(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def ensure_index(engine: Any, data: BeirData, progress: Callable[[int, int], None] | None = None) -> float:
    """Ingest the corpus unless this data dir already holds it. Returns ingest docs/s (stored)."""
    engine.flush()  # an index written by an interrupted run may hold unflushed rows
    marker = engine.settings.data_path / "beir_index.json"
    fingerprint = corpus_fingerprint(data.corpus_path)
    if marker.is_file():
        saved = json.loads(marker.read_text())
        if saved.get("fingerprint") == fingerprint:
            return float(saved.get("ingest_docs_per_s", 0.0))
    started = time.perf_counter()
    report = engine.ingest([data.corpus_path], kb_name=KB_NAME, progress=progress)
    seconds = time.perf_counter() - started
    if report.failures:
        raise InvalidRequest(f"ingest of {data.corpus_path} failed: {report.failures[0].error}")
    rate = report.documents / seconds if report.documents else 0.0
    marker.write_text(json.dumps({"fingerprint": fingerprint, "ingest_docs_per_s": rate,
                                  "documents": report.documents, "chunks": report.chunks,
                                  "seconds": seconds}))
    return rate


def run_pipeline(engine: Any, data: BeirData, mode: SearchMode, top_k: int = 100,
                 progress: Callable[[int], None] | None = None) -> PipelineResult:
    """Run every query with one pipeline and score the run; ``progress`` gets the queries done so far."""
    run: dict[str, dict[str, float]] = {}
    latencies: list[float] = []
    for done, (qid, text) in enumerate(data.queries.items(), start=1):
        started = time.perf_counter()
        response = engine.search(SearchRequest(query=text, top_k=top_k, mode=mode, kb_names=(KB_NAME,)))
        latencies.append((time.perf_counter() - started) * 1000)
        scores: dict[str, float] = {}
        for rank, hit in enumerate(response.hits):
            doc = str(hit.metadata.get("record_id", hit.document_id))
            scores.setdefault(doc, float(top_k - rank))
        run[qid] = scores or {"__none__": 0.0}
        if progress is not None:
            progress(done)
    scored = Run(run)
    metrics = evaluate(Qrels(data.qrels), scored, list(METRICS), make_comparable=True)
    per_query = {str(q): float(v) for q, v in dict(scored.scores["ndcg@10"]).items()}
    return PipelineResult(mode.value, {k: float(v) for k, v in dict(metrics).items()}, latencies,
                          per_query_ndcg=per_query)


def format_table(results: Sequence[PipelineResult]) -> str:
    header = f"{'pipeline':<10} {'nDCG@10':>8} {'R@100':>7} {'MRR@10':>7} {'Hit@5':>7} {'p50 ms':>8} {'p95 ms':>8}"
    lines = [header, "-" * len(header)]
    for r in results:
        d = r.to_dict()
        lines.append(f"{r.pipeline:<10} {d['ndcg@10']:>8.4f} {d['recall@100']:>7.4f} {d['mrr@10']:>7.4f} "
                     f"{d['hit@5']:>7.4f} {d['latency_ms']['p50']:>8.1f} {d['latency_ms']['p95']:>8.1f}")
    return "\n".join(lines)

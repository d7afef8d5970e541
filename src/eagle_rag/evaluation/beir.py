"""BEIR evaluation: ingest a BEIR folder, run its queries, score with ranx.

Metrics: nDCG@10, Recall@100, MRR@10 and Hit@5 (ranx ``hit_rate@5``), per-query latency p50/p95
and ingest documents per second. Relevance 0 in the qrels means "not relevant" and is dropped.

An index is reused only under the settings that wrote it: :func:`index_settings` (the profile, the
enabled plugins, the encoders, the chunking, the sentence-row and token-vector collections, the
stores' layout and every plugin option declared ``WRITES_INDEX``) is recorded beside the corpus
fingerprint, keys the default index folder (:func:`index_folder_name`), and a folder written under
other values is refused in one line instead of being searched.
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
from eagle_rag.kernel.plugin_options import index_options
from eagle_rag.settings import Settings, flatten
from eagle_rag.types import SearchMode, SearchRequest

METRICS = ("ndcg@10", "recall@100", "mrr@10", "hit_rate@5")
PIPELINES = (SearchMode.BM25, SearchMode.DENSE, SearchMode.HYBRID, SearchMode.FULL)
KB_NAME = "beir"
INDEX_SETTINGS = ("profile", "plugins.enabled", "allow_deterministic", "encoders.mode", "encoders.text_model",
                  "encoders.multilingual_model", "encoders.cjk_ratio_threshold", "ingest.chunk_chars",
                  "ingest.chunk_overlap", "ingest.sentence_collections", "ingest.token_vector_collections",
                  "lexical.backend", "milvus.db_name")
"""The core settings that change what an ingest writes (plugins add theirs through ``WRITES_INDEX``)."""


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
    per_query_recall: dict[str, float] = field(default_factory=dict)
    """Recall@100 of every query."""
    per_query_ms: dict[str, float] = field(default_factory=dict)
    """Latency of every query in milliseconds."""

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


def load_beir(root: Path, split: str = "test", limit_queries: int | None = None, offset: int = 0,
              only: Sequence[str] | None = None) -> BeirData:
    """Read corpus.jsonl, queries.jsonl and qrels/SPLIT.tsv. Raises InvalidRequest when missing.

    The judged queries are taken in the order of the qrels file, or in the order of ``only`` (query ids,
    e.g. one part of a tuning/test split; an id that is not judged is refused): the first ``offset`` are
    skipped and at most ``limit_queries`` after them kept (a slice for tuning, a disjoint one for reporting).
    """
    if offset < 0:
        raise InvalidRequest("the query offset must be 0 or more", {"field": "offset"})
    corpus = root / "corpus.jsonl"
    qrels_path = root / "qrels" / f"{split}.tsv"
    for needed in (corpus, root / "queries.jsonl", qrels_path):
        if not needed.is_file():
            raise InvalidRequest(f"not a BEIR folder: {needed} is missing")
    qrels, queries = read_judgements(root / "queries.jsonl", qrels_path)
    judged = [q for q in qrels if q in queries]
    if only is not None:
        missing = sorted(set(only) - set(judged))
        if missing:
            raise InvalidRequest(f"{len(missing)} of the chosen queries are not judged in {qrels_path} "
                                 f"(first: {missing[0]})", {"field": "query_set"})
        judged = list(dict.fromkeys(only))
    ids = judged[offset:]
    if limit_queries:
        ids = ids[:limit_queries]
    with corpus.open(encoding="utf-8") as fh:
        docs = sum(1 for line in fh if line.strip())
    return BeirData(root, {q: queries[q] for q in ids}, {q: qrels[q] for q in ids}, corpus, docs)


def read_judgements(queries_path: Path, qrels_path: Path,
                    min_grade: int = 1) -> tuple[dict[str, dict[str, int]], dict[str, str]]:
    """The qrels (``query -> document -> grade``, grades under ``min_grade`` dropped) of a TSV file
    (``query-id, corpus-id, score``, header optional) and the text of every judged query of a BEIR
    ``queries.jsonl``. Raises InvalidRequest for a file that cannot be read."""
    qrels: dict[str, dict[str, int]] = {}
    queries: dict[str, str] = {}
    try:
        with qrels_path.open(encoding="utf-8") as fh:
            for row in csv.reader(fh, delimiter="\t"):
                if len(row) < 3 or row[0] == "query-id":
                    continue
                score = int(float(row[2]))
                if score >= max(min_grade, 1):
                    qrels.setdefault(row[0], {})[row[1]] = score
        with queries_path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    obj = json.loads(line)
                    if str(obj["_id"]) in qrels:
                        queries[str(obj["_id"])] = str(obj["text"])
    except (OSError, ValueError, KeyError) as exc:
        raise InvalidRequest(f"cannot read the judgements {queries_path}, {qrels_path}: {exc}") from exc
    return qrels, queries


def query_set(path: Path, part: str) -> list[str]:
    """The query ids of ``part`` in a JSON file of ``{part: [query id, ...]}`` (eval/biomed/bioasq_split.json).

    Raises InvalidRequest for an unreadable file or an unknown part (naming the parts it has)."""
    try:
        parts = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidRequest(f"cannot read the query set {path}: {exc}", {"field": "query_set"}) from exc
    ids = parts.get(part) if isinstance(parts, dict) else None
    if not isinstance(ids, list) or not ids:
        names = sorted(k for k, v in parts.items() if isinstance(v, list)) if isinstance(parts, dict) else []
        raise InvalidRequest(f"{path} has no part {part!r}; its parts: {', '.join(names) or 'none'}",
                             {"field": "part"})
    return [str(q) for q in ids]


def corpus_fingerprint(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def index_settings(settings: Settings, pm: Any) -> dict[str, Any]:
    """``dotted key -> value`` of every setting that changes what the ingest writes (module docstring)."""
    flat = flatten(settings)
    return {**{key: flat[key] for key in INDEX_SETTINGS}, **index_options(pm, settings)}


def settings_key(written: dict[str, Any]) -> str:
    """Twelve hex digits of the SHA-256 of ``written`` as sorted JSON."""
    return hashlib.sha256(json.dumps(written, sort_keys=True).encode()).hexdigest()[:12]


def index_folder_name(data: BeirData, settings: Settings, pm: Any) -> str:
    """``<folder>-<corpus fingerprint>-<profile>-<settings key>``: the default index folder of a run."""
    return (f"{data.root.resolve().name}-{corpus_fingerprint(data.corpus_path)}-{settings.profile}-"
            f"{settings_key(index_settings(settings, pm))}")


def _mismatch(saved: dict[str, Any], written: dict[str, Any]) -> str:
    """The first differing setting, worded for the refusal."""
    if "settings" not in saved:
        return "it records no settings (an older eval beir wrote it)"
    before = saved["settings"]
    key = next(k for k in sorted({*before, *written}) if before.get(k) != written.get(k))
    return f"{key} is {json.dumps(before.get(key))} there, {json.dumps(written.get(key))} here"


def ensure_index(engine: Any, data: BeirData, progress: Callable[[int, int], None] | None = None) -> float:
    """Ingest the corpus unless this data dir already holds it. Returns ingest docs/s (stored).

    Raises InvalidRequest when the folder holds this corpus written under other settings
    (:func:`index_settings`), or an index that records none.
    """
    engine.flush()  # an index written by an interrupted run may hold unflushed rows
    marker = engine.settings.data_path / "beir_index.json"
    fingerprint = corpus_fingerprint(data.corpus_path)
    written = index_settings(engine.settings, engine.pm)
    if marker.is_file():
        saved = json.loads(marker.read_text())
        if saved.get("fingerprint") == fingerprint:
            if saved.get("settings") != written:
                raise InvalidRequest(f"{engine.settings.data_path} holds this corpus written under other settings "
                                     f"({_mismatch(saved, written)}); give another --data-dir",
                                     {"field": "data_dir"})
            return float(saved.get("ingest_docs_per_s", 0.0))
    started = time.perf_counter()
    report = engine.ingest([data.corpus_path], kb_name=KB_NAME, progress=progress)
    seconds = time.perf_counter() - started
    if report.failures:
        raise InvalidRequest(f"ingest of {data.corpus_path} failed: {report.failures[0].error}")
    rate = report.documents / seconds if report.documents else 0.0
    marker.write_text(json.dumps({"fingerprint": fingerprint, "settings": written, "ingest_docs_per_s": rate,
                                  "documents": report.documents, "chunks": report.chunks,
                                  "seconds": seconds}))
    return rate


def run_pipeline(engine: Any, data: BeirData, mode: SearchMode, top_k: int = 100,
                 progress: Callable[[int], None] | None = None, explain: bool = False,
                 observe: Callable[[str, Any], None] | None = None) -> PipelineResult:
    """Run every query with one pipeline and score the run; ``progress`` gets the queries done so far.

    ``observe`` gets every query's id and response (with the hits' trails when ``explain``), after its
    latency is taken: one pass both scores a pipeline and collects its hits (bench/bench_relevance.py)."""
    run: dict[str, dict[str, float]] = {}
    latencies: list[float] = []
    for done, (qid, text) in enumerate(data.queries.items(), start=1):
        started = time.perf_counter()
        response = engine.search(SearchRequest(query=text, top_k=top_k, mode=mode, kb_names=(KB_NAME,),
                                               explain=explain))
        latencies.append((time.perf_counter() - started) * 1000)
        if observe is not None:
            observe(qid, response)
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
    recall = {str(q): float(v) for q, v in dict(scored.scores["recall@100"]).items()}
    return PipelineResult(mode.value, {k: float(v) for k, v in dict(metrics).items()}, latencies,
                          per_query_ndcg=per_query, per_query_recall=recall,
                          per_query_ms=dict(zip(data.queries, latencies, strict=True)))


def results_json(results: Sequence[PipelineResult], profile: str) -> dict[str, Any]:
    """What ``eval beir --json`` writes: each pipeline's figures, the profile, and every query's nDCG@10,
    Recall@100 and ms (read by bench/bench_bioasq.py compare)."""
    return {r.pipeline: {**r.to_dict(), "profile": profile, "per_query": {
        q: {"ndcg@10": v, "recall@100": r.per_query_recall.get(q, 0.0), "ms": r.per_query_ms.get(q, 0.0)}
        for q, v in r.per_query_ndcg.items()}} for r in results}


def format_table(results: Sequence[PipelineResult]) -> str:
    header = f"{'pipeline':<10} {'nDCG@10':>8} {'R@100':>7} {'MRR@10':>7} {'Hit@5':>7} {'p50 ms':>8} {'p95 ms':>8}"
    lines = [header, "-" * len(header)]
    for r in results:
        d = r.to_dict()
        lines.append(f"{r.pipeline:<10} {d['ndcg@10']:>8.4f} {d['recall@100']:>7.4f} {d['mrr@10']:>7.4f} "
                     f"{d['hit@5']:>7.4f} {d['latency_ms']['p50']:>8.1f} {d['latency_ms']['p95']:>8.1f}")
    return "\n".join(lines)

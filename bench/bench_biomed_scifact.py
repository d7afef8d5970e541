"""The biomed pipeline on a BEIR set (SciFact): stage ablation, latency, and Tier-2 weight tuning.

    EAGLE_RAG_PROFILE=biomed .venv/bin/python bench/bench_biomed_scifact.py ablation \\
        --beir ../shared/data/beir/scifact --data-dir DIR [--split test] [--limit-queries N] [--json OUT]
    .venv/bin/python bench/bench_biomed_scifact.py tune --beir ... --data-dir DIR --split train --limit-queries 200

``ablation`` runs the cumulative configurations of :data:`ABLATION` (each a search mode plus the
``stages`` switches of the biomed plugin options; the dense-suffix row forces the suffix on, later rows
use its default, ``auto``) and prints nDCG@10, Recall@100, MRR@10 and the
latency per query (p50 / p95). ``tune`` runs the full pipeline once with every Tier-2 signal recorded
(cross-encoder and late interaction included), then searches the weights offline on the recorded
signals (exact: the signals do not depend on the weights) and prints the best settings. Tune on the
train split only; evaluate once on test. The index is built by ``eagle-rag eval beir`` (re-used here).
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ranx import Qrels, Run, evaluate

from eagle_rag.engine import Engine
from eagle_rag.evaluation.beir import KB_NAME, ensure_index, load_beir, percentile
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchMode, SearchRequest
from eagle_rag_biomed import rerank_merged, retrieval_hooks

OFF: dict[str, bool | str] = {"assemble": False, "dense_suffix": False, "tier1": False, "supplement": False,
                               "inject": False, "tier2": False, "cross_encoder": False, "late_interaction": False}
_T1 = {**OFF, "assemble": True, "dense_suffix": "auto", "tier1": True}
_SUP = {**_T1, "supplement": True, "inject": True}
_T2 = {**_SUP, "tier2": True}
ABLATION: list[tuple[str, SearchMode, dict[str, bool | str]]] = [
    ("hybrid", SearchMode.HYBRID, OFF),
    ("+ dense suffix", SearchMode.HYBRID, {**OFF, "assemble": True, "dense_suffix": True}),
    ("+ Tier-1", SearchMode.HYBRID, _T1),
    ("+ supplement", SearchMode.HYBRID, _SUP),
    ("+ Tier-2", SearchMode.HYBRID, _T2),
    ("+ cross-encoder", SearchMode.FULL, {**_T2, "cross_encoder": True}),
    ("+ late interaction", SearchMode.FULL, {**_T2, "cross_encoder": True, "late_interaction": True}),
]


def engine_for(data_dir: Path, options: dict[str, Any]) -> Engine:
    settings = load_settings(overrides={"profile": "biomed", "data_dir": str(data_dir),
                                        "plugins": {"options": {"biomed": options}}})
    return Engine(settings)


def run(engine: Engine, data: Any, mode: SearchMode, top_k: int = 100) -> tuple[dict[str, float], list[float]]:
    runs: dict[str, dict[str, float]] = {}
    latencies: list[float] = []
    for qid, text in data.queries.items():
        started = time.perf_counter()
        response = engine.search(SearchRequest(query=text, top_k=top_k, mode=mode, kb_names=(KB_NAME,)))
        latencies.append((time.perf_counter() - started) * 1000)
        scores: dict[str, float] = {}
        for rank, hit in enumerate(response.hits):
            scores.setdefault(str(hit.metadata.get("record_id", hit.document_id)), float(top_k - rank))
        runs[qid] = scores or {"__none__": 0.0}
    metrics = evaluate(Qrels(data.qrels), Run(runs), ["ndcg@10", "recall@100", "mrr@10"], make_comparable=True)
    return {k: round(float(v), 4) for k, v in dict(metrics).items()}, latencies


def ablation(args: argparse.Namespace, data: Any) -> None:
    rows = []
    base = json.loads(args.options) if args.options else {}
    for name, mode, stages in ABLATION:
        if args.only and name not in args.only.split(","):
            continue
        with engine_for(args.data_dir, {**base, "stages": {**stages, **base.get("stages", {})}}) as engine:
            metrics, lat = run(engine, data, mode)
        lat.sort()
        row = {"config": name, "mode": mode.value, **metrics, "p50_ms": round(percentile(lat, 50), 1),
               "p95_ms": round(percentile(lat, 95), 1)}
        rows.append(row)
        print(f"{name:<20} {mode.value:<7} nDCG@10 {metrics['ndcg@10']:.4f}  R@100 {metrics['recall@100']:.4f}  "
              f"MRR@10 {metrics['mrr@10']:.4f}  p50 {row['p50_ms']:.0f} ms  p95 {row['p95_ms']:.0f} ms", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


@contextmanager
def recording() -> Iterator[list[dict[str, Any]]]:
    """Record, per Tier-2 call, the incoming ids, the pool's signals and the workflow."""
    records: list[dict[str, Any]] = []
    original_rerank, original_fuse = retrieval_hooks.post_rrf_rerank, rerank_merged.fuse_signals

    def fuse(nodes: Any, signals: Any, weights: Any) -> Any:
        records[-1]["pool"] = [str(n.node.metadata.get("record_id", n.node.document_id)) for n in nodes]
        records[-1]["signals"] = signals.__dict__
        return original_fuse(nodes, signals, weights)

    def rerank(ctx: Any, query: str, nodes: Any, intent: Any) -> Any:
        records.append({"query": query, "workflow": intent.workflow,
                        "ids": [str(n.node.metadata.get("record_id", n.node.document_id)) for n in nodes]})
        return original_rerank(ctx, query, nodes, intent)

    retrieval_hooks.post_rrf_rerank, rerank_merged.fuse_signals = rerank, fuse  # type: ignore[assignment]
    try:
        yield records
    finally:
        retrieval_hooks.post_rrf_rerank, rerank_merged.fuse_signals = original_rerank, original_fuse  # type: ignore[assignment]


@contextmanager
def score_cache(path: str) -> Iterator[None]:
    """Memoise the Tier-2 model scores per (signal, label, query, chunk, cut) in ``path`` (JSON), if given.

    The scores depend on the query and the passage only, so a second recording with other stage
    switches or a larger pool re-uses them and runs the models only on new candidates.
    """
    if not path:
        yield
        return
    store: dict[str, float] = json.loads(Path(path).read_text()) if Path(path).exists() else {}
    originals = rerank_merged.cross_encoder_scores, rerank_merged.late_interaction_scores

    def cached(kind: str, fn: Any) -> Any:
        def wrapper(ctx: Any, label: str, query: str, nodes: Any, max_chars: int, with_name: bool = False) -> Any:
            keys = [f"{kind}|{label}|{max_chars}|{with_name}|{query}|{n.node.id}" for n in nodes]
            missing = [i for i, key in enumerate(keys) if key not in store]
            if missing:
                scores = fn(ctx, label, query, [nodes[i] for i in missing], max_chars, with_name)
                if scores is None:
                    return None
                store.update({keys[i]: s for i, s in zip(missing, scores, strict=True)})
            return [store[key] for key in keys]
        return wrapper

    rerank_merged.cross_encoder_scores = cached("ce", originals[0])  # type: ignore[assignment]
    rerank_merged.late_interaction_scores = cached("li", originals[1])  # type: ignore[assignment]
    try:
        yield
    finally:
        rerank_merged.cross_encoder_scores, rerank_merged.late_interaction_scores = originals  # type: ignore[assignment]
        Path(path).write_text(json.dumps(store))


def fused_run(records: dict[str, dict[str, Any]], w: dict[str, float]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for qid, rec in records.items():
        s, pool = rec["signals"], rec["pool"]
        scores = [w["ce"] * s["ce_norm"][i] + w["li"] * s["li_norm"][i] + w["prior"] * s["prior"][i]
                  + w["entity"] * s["entity"][i] + w["sec"] * s["section"][i] - w["xdrug"] * s["xdrug"][i]
                  for i in range(len(pool))]
        order = sorted(range(len(pool)), key=lambda i: (-scores[i], i))
        ranked = [pool[i] for i in order] + [d for d in rec["ids"] if d not in pool]
        run_q: dict[str, float] = {}
        for rank, doc in enumerate(ranked):
            run_q.setdefault(doc, float(len(ranked) - rank))
        out[qid] = run_q or {"__none__": 0.0}
    return out


def tune(args: argparse.Namespace, data: Any) -> None:
    extra = json.loads(args.options) if args.options else {}
    options = {**extra, "stages": {"late_interaction": True, **extra.get("stages", {})},
               "retrieval_scoring": {"all": {"w_li": 0.001}}}
    with engine_for(args.data_dir, options) as engine, recording() as records, score_cache(args.score_cache):
        by_query: dict[str, dict[str, Any]] = {}
        for done, (qid, text) in enumerate(data.queries.items(), 1):
            engine.search(SearchRequest(query=text, top_k=100, mode=SearchMode.FULL, kb_names=(KB_NAME,)))
            if done % 50 == 0:
                print(f"recorded {done} of {len(data.queries)} queries", flush=True)
            if records and "signals" in records[-1]:
                by_query[qid] = records[-1]
    Path(args.json or "tier2_signals.json").write_text(json.dumps(by_query))
    qrels = Qrels({q: data.qrels[q] for q in by_query})
    results = []
    grid = {"ce": [0.0, 0.15, 0.3, 0.5], "li": [0.0, 0.25, 0.5, 1.0], "prior": [0.25, 0.5, 1.0],
            "entity": [0.0, 0.1, 0.25], "sec": [0.0], "xdrug": [0.0, 1.0, 3.0]}
    for values in itertools.product(*grid.values()):
        w = dict(zip(grid, values, strict=True))
        ndcg = float(evaluate(qrels, Run(fused_run(by_query, w)), "ndcg@10", make_comparable=True))
        results.append((ndcg, w))
    results.sort(key=lambda item: -item[0])
    for ndcg, w in results[:15]:
        print(f"nDCG@10 {ndcg:.4f}  {w}")


def main() -> None:
    logging.getLogger("pymilvus").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["ablation", "tune"])
    parser.add_argument("--beir", type=Path, default=Path("../shared/data/beir/scifact"))
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--split", default="test")
    parser.add_argument("--limit-queries", type=int, default=None)
    parser.add_argument("--only", default="", help="comma-separated ablation rows")
    parser.add_argument("--options", default="", help="extra biomed options as JSON")
    parser.add_argument("--json", default="")
    parser.add_argument("--score-cache", default="", help="tune: JSON file memoising the Tier-2 model scores")
    args = parser.parse_args()
    data = load_beir(args.beir, args.split, args.limit_queries)
    with engine_for(args.data_dir, {}) as engine:
        ensure_index(engine, data)
    print(f"{args.beir} split={args.split} queries={len(data.queries)}", flush=True)
    (ablation if args.command == "ablation" else tune)(args, data)


if __name__ == "__main__":
    main()

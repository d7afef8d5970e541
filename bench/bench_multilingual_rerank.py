"""The multilingual e5 cosine as a Tier-2 signal of mode ``full`` for Chinese queries, on KUAKE-QTR.

    .venv/bin/python bench/bench_multilingual_rerank.py --data-dir DIR --offset 0 --queries 1000 \
        [--weights 0.25,0.5,1,2] [--json out.json]

``DIR`` is an index built by ``eagle-rag eval beir ../shared/data/kuake_qtr_train --split train
--data-dir DIR`` (general profile, real encoders). The judged queries ``offset+1 .. offset+queries``
(in the order of the qrels file) run in mode ``hybrid``, in mode ``full`` as shipped
(``search.multilingual_rerank_weight`` from the settings, 0 by default) and in mode ``full`` with
the signal at each weight of ``--weights``, each through ``Engine.search`` (``eval beir``'s
``run_pipeline``). For each it prints nDCG@10, the mean per-query difference from hybrid and its
standard error (ddof 1). Run it on one slice to choose the weight and on a disjoint slice to
report it.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

import numpy as np

from eagle_rag.engine import Engine
from eagle_rag.evaluation.beir import PipelineResult, load_beir, run_pipeline
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchMode


def paired(result: PipelineResult, reference: PipelineResult) -> tuple[float, float]:
    """Mean per-query nDCG@10 difference ``result - reference`` and its standard error (ddof 1)."""
    ids = sorted(reference.per_query_ndcg)
    diff = np.array([result.per_query_ndcg[q] - reference.per_query_ndcg[q] for q in ids])
    return float(diff.mean()), float(diff.std(ddof=1) / np.sqrt(len(diff)))


def main() -> None:
    logging.getLogger("pymilvus").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--beir", type=Path, default=Path("../shared/data/kuake_qtr_train"))
    parser.add_argument("--split", default="train")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--weights", default="0.25,0.5,1,2")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not (args.data_dir / "beir_index.json").is_file():
        parser.error(f"{args.data_dir} holds no index built by eagle-rag eval beir")
    data = load_beir(args.beir, args.split, args.queries, args.offset)
    runs: list[tuple[str, SearchMode, float | None]] = [("hybrid", SearchMode.HYBRID, None),
                                                         ("full (as configured)", SearchMode.FULL, None)]
    runs += [(f"full + e5 cosine w={w}", SearchMode.FULL, float(w)) for w in args.weights.split(",") if w]
    results: dict[str, PipelineResult] = {}
    print(f"queries {args.offset + 1}-{args.offset + len(data.queries)} of {args.beir} ({args.split})")
    print(f"{'pipeline':<26} {'nDCG@10':>8} {'d hybrid':>9} {'se':>7} {'p50 ms':>7}", flush=True)
    for name, mode, weight in runs:
        overrides: dict[str, object] = {"profile": "general", "data_dir": str(args.data_dir)}
        if weight is not None:
            overrides["search"] = {"multilingual_rerank_weight": weight}
        with Engine(load_settings(overrides=overrides)) as engine:
            result = run_pipeline(engine, data, mode)
        results[name] = result
        diff, se = paired(result, results["hybrid"])
        lat = sorted(result.latencies_ms)
        print(f"{name:<26} {result.metrics['ndcg@10']:>8.4f} {diff:>+9.4f} {se:>7.4f} "
              f"{lat[len(lat) // 2]:>7.1f}", flush=True)
    if args.json:
        args.json.write_text(json.dumps({name: {"ndcg@10": r.metrics["ndcg@10"], "per_query": r.per_query_ndcg}
                                         for name, r in results.items()}))


if __name__ == "__main__":
    main()

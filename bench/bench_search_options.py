"""What the result options of a search cost: ``facets``, ``recency``, ``max_per_document``, ``diversity``.

    .venv/bin/python bench/bench_search_options.py [--profile general] [--data-dir DIR] [--rounds 3]
        [--mode hybrid]

Builds the sample corpus (``eagle-rag demo``'s kb ``demo``) unless ``--data-dir`` holds it, then times
the ten queries below, once per configuration in turn for each query (so drift on a shared machine
hits every configuration alike), ``--rounds`` times, at ``top_k`` 10. Prints the p50 latency of each
configuration, its ratio to the same queries without options in the same run, and the median extra
milliseconds per query (paired by query and round). Every option works on the whole candidate pool
(``search.retrieval_window``, 100), so the page size does not change the cost.

A second table times the options' own stages alone (``collapse_per_document`` as the orchestrator
runs it, then :func:`apply_result_options`, the stored vectors' read included) on each query's
ungrouped candidate pool, retrieved once: on a loaded machine the whole-search figures move by more
than the options cost, the stages' do not.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from eagle_rag.engine import Engine
from eagle_rag.ops.demo import sample_dir
from eagle_rag.protocols import StoreFilter
from eagle_rag.retrieve.diversity import collapse_per_document
from eagle_rag.retrieve.result_options import apply_result_options
from eagle_rag.settings import load_settings
from eagle_rag.types import Facet, SearchMode, SearchRequest

KB = "demo"
TIMED = ("statin trial", "kinase inhibitor resistance", "bleeding risk", "imatinib dosage",
         "metformin lactic acidosis", "EGFR T790M", "aspirin cardiovascular prevention",
         "pembrolizumab adverse events", "warfarin interactions", "atorvastatin liver")
CONFIGS: dict[str, dict[str, Any]] = {
    "none": {},
    "facets (all five)": {"facets": tuple(f.value for f in Facet)},
    "recency 365": {"recency": 365.0},
    "max_per_document 1": {"max_per_document": 1},
    "diversity 0.7": {"diversity": 0.7},
    "all four": {"facets": tuple(f.value for f in Facet), "recency": 365.0, "max_per_document": 1,
                 "diversity": 0.7},
}


def timed(engine: Engine, mode: SearchMode, rounds: int) -> dict[str, list[float]]:
    """Milliseconds per (query, round) of each configuration, in the same order for every one."""
    times: dict[str, list[float]] = {name: [] for name in CONFIGS}
    for _ in range(rounds):
        for query in TIMED:
            for name, options in CONFIGS.items():
                started = time.perf_counter()
                engine.search(SearchRequest(query, top_k=10, mode=mode, kb_names=(KB,), **options))
                times[name].append((time.perf_counter() - started) * 1000)
    return times


def stage_ms(engine: Engine, mode: SearchMode, rounds: int) -> dict[str, list[float]]:
    """Milliseconds of :func:`apply_result_options` alone per (query, round), on each query's pool."""
    times: dict[str, list[float]] = {name: [] for name in CONFIGS}
    today = datetime.now(UTC).date()
    for query in TIMED:
        ungrouped = SearchRequest(query, top_k=100, mode=mode, kb_names=(KB,), max_per_document=100)
        pool = engine.retriever.retrieve(engine.request_context(), ungrouped, StoreFilter(kb_names=(KB,))).nodes
        for _ in range(rounds):
            for name, options in CONFIGS.items():
                request = SearchRequest(query, top_k=10, mode=mode, kb_names=(KB,), **options)
                started = time.perf_counter()
                kept = pool if request.max_per_document is None else \
                    collapse_per_document(pool, request.max_per_document)[0]  # in the orchestrator
                apply_result_options(request, kept, engine.vectors, rrf_k=engine.settings.router.rrf_k, today=today)
                times[name].append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--profile", default="general")
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--mode", default="hybrid", choices=[m.value for m in SearchMode])
    args = parser.parse_args()
    logging.getLogger("pymilvus").setLevel(logging.ERROR)
    data = args.data_dir or Path(tempfile.mkdtemp(prefix="eagle-options-"))
    mode = SearchMode(args.mode)
    with Engine(load_settings(overrides={"profile": args.profile, "data_dir": str(data)})) as engine:
        if not engine.registry.count(kb_name=KB):
            from eagle_rag_biomed.eval.runner import sample_corpus_paths

            engine.ingest(sample_corpus_paths(sample_dir()), kb_name=KB)
        for query in TIMED[:3]:  # load every model and open every store first
            engine.search(SearchRequest(query, top_k=10, mode=mode, kb_names=(KB,), **CONFIGS["all four"]))
        times = timed(engine, mode, args.rounds)
        print(f"profile {args.profile}, mode {mode.value}, {engine.registry.count(kb_name=KB)} documents, "
              f"{len(TIMED)} queries x {args.rounds} rounds, top_k 10")
        print("| options | p50 | to none | extra ms a query (median of pairs) |")
        print("|---|---:|---:|---:|")
        base = statistics.median(times["none"])
        for name, values in times.items():
            extra = statistics.median(v - b for v, b in zip(values, times["none"], strict=True))
            print(f"| {name} | {statistics.median(values):.1f} ms | {statistics.median(values) / base:.2f} | "
                  f"{extra:+.1f} |")
        stage = stage_ms(engine, mode, args.rounds)
        print("\nthe options' stage alone, on each query's ungrouped pool (up to 100 candidates)")
        print("| options | p50 | p95 |")
        print("|---|---:|---:|")
        for name, values in stage.items():
            print(f"| {name} | {statistics.median(values):.2f} ms | "
                  f"{statistics.quantiles(values, n=20)[-1]:.2f} ms |")


if __name__ == "__main__":
    main()

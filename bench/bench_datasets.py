"""Latency of dataset-card search: the three engines on the real catalog and on synthetic ones.

Usage: ``python bench/bench_datasets.py [--sizes 2000 20000] [--repeat 3]``

Queries are the regression set (eval/datasets/queries.jsonl, with their filters). Synthetic
catalogs (fixed seed) are made from the real cards: each synthetic card keeps a real card's
languages, tasks, tags, licence and source, gets a name built from a real name plus a numbered
suffix, and a description mixing sentences of three real descriptions. Prints, per catalog size and
engine: the shared build (analysis, postings, facets), the engine's own build (the tantivy index),
and p50/p95 search latency.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from eagle_rag_datasets import DatasetCatalog, DatasetQuery, Engine
from eagle_rag_datasets.catalog.cards import DatasetCard
from eagle_rag_datasets.evaluate import read_queries

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ROOT / "eval" / "datasets" / "queries.jsonl"
SEED = 20261113


def synthetic(cards: tuple[DatasetCard, ...], size: int, seed: int = SEED) -> list[DatasetCard]:
    """``size`` cards derived from ``cards`` (deterministic for a seed); the real cards come first."""
    rnd = random.Random(seed)
    sentences = [s.strip() for c in cards for s in (c.description or c.name).split(".") if s.strip()]
    out = list(cards)
    for i in range(size - len(cards)):
        base = rnd.choice(cards)
        description = ". ".join(rnd.sample(sentences, 3)) + "."
        out.append(DatasetCard(
            id=f"syn/{i:06d}", name=f"{base.name} {rnd.choice(['v', 'ext', 'sub', 'x'])}{i}",
            aliases=(f"{base.name.lower().replace(' ', '_')}_{i}",), description=description,
            tags=base.tags, tasks=base.tasks, languages=base.languages, license=base.license, source=base.source,
        ))
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def bench(catalog: DatasetCatalog, label: str, repeat: int) -> list[tuple[str, str, int, float, float, float, float]]:
    queries = read_queries(QUERIES)
    rows = []
    start = time.perf_counter()
    catalog.warm_up([])  # analysis, postings and facets, shared by the engines
    shared = time.perf_counter() - start
    for engine in Engine:
        start = time.perf_counter()
        catalog.warm_up([engine])
        build = time.perf_counter() - start
        catalog.search(DatasetQuery("warm up", engine=engine.value))
        times = []
        for _ in range(repeat):
            for q in queries:
                request = DatasetQuery.from_dict({"text": q.query, "top_k": 10, "engine": engine.value, **q.filters})
                t0 = time.perf_counter()
                catalog.search(request)
                times.append((time.perf_counter() - t0) * 1000)
        rows.append((label, engine.value, catalog.size, shared, build, statistics.median(times),
                     percentile(times, 0.95)))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[2000, 20000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    real = DatasetCatalog.load(strict=True)
    rows = bench(real, "real", args.repeat)
    for size in args.sizes:
        rows += bench(DatasetCatalog(synthetic(real.cards, size), source=f"synthetic-{size}"), "synthetic",
                      args.repeat)
    print(f"{'catalog':<10} {'engine':<10} {'cards':>7} {'shared s':>9} {'build s':>8} {'p50 ms':>8} {'p95 ms':>8}")
    for label, engine, size, shared, build, p50, p95 in rows:
        print(f"{label:<10} {engine:<10} {size:>7} {shared:>9.2f} {build:>8.2f} {p50:>8.2f} {p95:>8.2f}")


if __name__ == "__main__":
    main()

"""Latency of dataset-card search: the three engines on the real catalog and on synthetic ones.

Usage: ``python bench/bench_datasets.py [--sizes 2000 20000] [--repeat 3] [--no-semantic]``

Queries are the regression set (eval/datasets/queries.jsonl, with their filters). Synthetic
catalogs (fixed seed) are made from the real cards: each synthetic card keeps a real card's
languages, tasks, tags, licence and source, gets a name built from a real name plus a numbered
suffix, and a description mixing sentences of three real descriptions. Prints, per catalog size and
engine: the shared build (analysis, postings, facets), the engine's own build (the tantivy index),
and p50/p95 search latency. ``index`` and ``bm25`` run with the semantic channel (the default) and
``index-lex`` is ``index`` with it off; every search with the channel encodes its query (the query memo
is emptied before each search), and ``e5 query ms`` is the median encoding alone. The real catalog's
card vectors ship with the package; a synthetic card takes the vector of the real card it was made
from (embedding 20,000 cards takes hours on two cores, and the latency of the channel does not depend
on the values of the vectors).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from eagle_rag.encoders.memo import PASSAGE_MEMO
from eagle_rag_datasets import DatasetCatalog, DatasetQuery, Engine
from eagle_rag_datasets.catalog.cards import DatasetCard
from eagle_rag_datasets.evaluate import read_queries
from eagle_rag_datasets.search.semantic import SemanticIndex

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ROOT / "eval" / "datasets" / "queries.jsonl"
SEED = 20261113


def synthetic(cards: tuple[DatasetCard, ...], size: int, seed: int = SEED) -> tuple[list[DatasetCard], list[int]]:
    """``size`` cards derived from ``cards`` (deterministic for a seed), the real cards first, and the
    ordinal of the real card each one was made from."""
    rnd = random.Random(seed)
    sentences = [s.strip() for c in cards for s in (c.description or c.name).split(".") if s.strip()]
    out = list(cards)
    bases = list(range(len(cards)))
    for i in range(size - len(cards)):
        ordinal = rnd.randrange(len(cards))
        base = cards[ordinal]
        bases.append(ordinal)
        description = ". ".join(rnd.sample(sentences, 3)) + "."
        out.append(DatasetCard(
            id=f"syn/{i:06d}", name=f"{base.name} {rnd.choice(['v', 'ext', 'sub', 'x'])}{i}",
            aliases=(f"{base.name.lower().replace(' ', '_')}_{i}",), description=description,
            tags=base.tags, tasks=base.tasks, languages=base.languages, license=base.license, source=base.source,
        ))
    return out, bases


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


Row = tuple[str, str, int, float, float, float, float]
RUNS = (("index", Engine.INDEX, True), ("index-lex", Engine.INDEX, False), ("bm25", Engine.BM25, True),
        ("substring", Engine.SUBSTRING, False))


def bench(catalog: DatasetCatalog, label: str, repeat: int, semantic: bool) -> list[Row]:
    queries = read_queries(QUERIES)
    rows = []
    start = time.perf_counter()
    catalog.warm_up([])  # analysis, postings and facets, shared by the engines
    index = catalog.semantic() if semantic else None
    shared = time.perf_counter() - start
    for name, engine, with_semantic in RUNS:
        if with_semantic and index is None:
            continue
        start = time.perf_counter()
        catalog.warm_up([engine])
        build = time.perf_counter() - start
        catalog.search(DatasetQuery("warm up", engine=engine.value, semantic=with_semantic))
        times = []
        for _ in range(repeat):
            for q in queries:
                request = DatasetQuery.from_dict({"text": q.query, "top_k": 10, "engine": engine.value,
                                                  "semantic": with_semantic, **q.filters})
                if index is not None:
                    index.forget_queries()
                t0 = time.perf_counter()
                catalog.search(request)
                times.append((time.perf_counter() - t0) * 1000)
        rows.append((label, name, catalog.size, shared, build, statistics.median(times), percentile(times, 0.95)))
    if index is not None:
        encode = []
        for q in queries:
            index.forget_queries()
            t0 = time.perf_counter()
            index.query_vector(q.query)
            encode.append((time.perf_counter() - t0) * 1000)
        rows.append((label, "e5 query", catalog.size, 0.0, 0.0, statistics.median(encode), percentile(encode, 0.95)))
        if index.english is not None:  # the English space's query: the gloss (Chinese only) and bge-small
            encode = []
            for q in queries:
                index.forget_queries()
                PASSAGE_MEMO.clear()  # the core's encoders remember recent texts too
                t0 = time.perf_counter()
                index.query_vector(q.query, english=True)
                encode.append((time.perf_counter() - t0) * 1000)
            rows.append((label, "en query", catalog.size, 0.0, 0.0, statistics.median(encode),
                         percentile(encode, 0.95)))
    return rows


def with_base_vectors(catalog: DatasetCatalog, real: DatasetCatalog, bases: list[int]) -> DatasetCatalog:
    """``catalog`` whose semantic channel gives each synthetic card its real card's vectors (both spaces)."""
    index = real.semantic()
    if index is not None:
        english = index.english[bases] if index.english is not None else None
        catalog.attach_semantic(SemanticIndex(index.vectors[bases], index.encoder, index.chinese[bases],
                                              english, index.english_encoder))
    return catalog


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[2000, 20000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-semantic", action="store_true", help="the lexical engines only (as before issue 36)")
    args = parser.parse_args(argv)
    semantic = not args.no_semantic
    real = DatasetCatalog.load(strict=True)
    rows = bench(real, "real", args.repeat, semantic)
    for size in args.sizes:
        cards, bases = synthetic(real.cards, size)
        catalog = with_base_vectors(DatasetCatalog(cards, source=f"synthetic-{size}"), real, bases)
        rows += bench(catalog, "synthetic", args.repeat, semantic)
    print(f"{'catalog':<10} {'engine':<10} {'cards':>7} {'shared s':>9} {'build s':>8} {'p50 ms':>8} {'p95 ms':>8}")
    for label, engine, size, shared, build, p50, p95 in rows:
        print(f"{label:<10} {engine:<10} {size:>7} {shared:>9.2f} {build:>8.2f} {p50:>8.2f} {p95:>8.2f}")


if __name__ == "__main__":
    main()

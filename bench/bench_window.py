"""What the fixed retrieval window costs and what it changes: ``search.retrieval_window``.

    .venv/bin/python bench/bench_window.py [--profile biomed] [--data-dir DIR] [--rounds 2]

Builds the sample corpus (``eagle-rag demo``'s kb ``demo``) unless ``--data-dir`` holds it, then
compares two settings in one process, on the same index:

- ``retrieval_window = 1``: the depth is ``offset + top_k``, as before the setting existed, so a
  top 5 ranks a pool of five while the benchmarks (``top_k = 100``) rank a pool of a hundred;
- ``retrieval_window = 100`` (the default): every search ranks the same hundred candidates.

For each it prints, per mode, the p50 latency of the ten queries below at ``top_k`` 5 and 100 (the
ratio of the two is the cost of ranking a hundred for a top 5), and over the 85 gold-set queries
(eval/biomed/gold.jsonl) how many top 5s differ from the first five of the same query's top 100.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import tempfile
import time
from pathlib import Path

from eagle_rag.engine import Engine
from eagle_rag.ops.demo import sample_dir
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchMode, SearchRequest

KB = "demo"
GOLD = Path(__file__).resolve().parents[1] / "eval" / "biomed" / "gold.jsonl"
TIMED = ("statin trial", "kinase inhibitor resistance", "bleeding risk", "imatinib dosage",
         "metformin lactic acidosis", "EGFR T790M", "aspirin cardiovascular prevention",
         "pembrolizumab adverse events", "warfarin interactions", "atorvastatin liver")
MODES = (SearchMode.HYBRID, SearchMode.FULL)


def p50_ms(engine: Engine, mode: SearchMode, top_k: int, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        for query in TIMED:
            started = time.perf_counter()
            engine.search(SearchRequest(query, top_k=top_k, mode=mode, kb_names=(KB,)))
            times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def top5_differs(engine: Engine, mode: SearchMode, queries: list[str]) -> int:
    differs = 0
    for query in queries:
        five = [h.id for h in engine.search(SearchRequest(query, top_k=5, mode=mode, kb_names=(KB,))).hits]
        hundred = [h.id for h in engine.search(SearchRequest(query, top_k=100, mode=mode, kb_names=(KB,))).hits]
        differs += five != hundred[:len(five)]
    return differs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--profile", default="general")
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    logging.getLogger("pymilvus").setLevel(logging.ERROR)
    data = args.data_dir or Path(tempfile.mkdtemp(prefix="eagle-window-"))
    queries = [json.loads(line)["query"] for line in GOLD.read_text(encoding="utf-8").splitlines() if line.strip()]
    with Engine(load_settings(overrides={"profile": args.profile, "data_dir": str(data)})) as engine:
        if not engine.registry.count(kb_name=KB):
            from eagle_rag_biomed.eval.runner import sample_corpus_paths

            engine.ingest(sample_corpus_paths(sample_dir()), kb_name=KB)
        for query in TIMED[:3]:  # load every model first
            engine.search(SearchRequest(query, top_k=5, mode=SearchMode.FULL, kb_names=(KB,)))
        print(f"profile {args.profile}, {engine.registry.count(kb_name=KB)} documents, {len(queries)} gold queries")
        print("| retrieval_window | mode | p50 top_k 5 | p50 top_k 100 | top 5 differs from the top 100's first 5 |")
        print("|---|---|---:|---:|---:|")
        for window in (1, 100):
            engine.settings.search.retrieval_window = window
            for mode in MODES:
                five, hundred = p50_ms(engine, mode, 5, args.rounds), p50_ms(engine, mode, 100, args.rounds)
                print(f"| {window} | {mode.value} | {five:.0f} ms | {hundred:.0f} ms | "
                      f"{top5_differs(engine, mode, queries)} / {len(queries)} |")


if __name__ == "__main__":
    main()

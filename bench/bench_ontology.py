"""Load and match latency of the biomed ontology (prints a table; not a test).

Usage::

    python bench/bench_ontology.py [--queries 1109] [--docs 300]

Measures the one-off load (compiled vocabulary + curated rules -> automaton) in wall and CPU time,
then ``match_entities`` over the SciFact claims (short queries) and over the first abstracts
(title + text), reporting mean, p50 and p95 per text, plus the entities found per text.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from eagle_rag_biomed.ontology import umls

SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "data" / "beir" / "scifact"
FALLBACK = ["osimertinib resistance in EGFR-mutant NSCLC", "VEGFR1-3 inhibitors such as fruquintinib",
            "MET amplification after capmatinib", "the cat sat on the mat", "warfarin dosing and CYP2C9"]


def read(path: Path, field: str, limit: int) -> list[str]:
    if not path.is_file():
        return []
    texts = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            texts.append(f"{row.get('title', '')}. {row[field]}".strip(". ") if field == "text" and
                         row.get("title") else row[field])
            if len(texts) >= limit:
                break
    return texts


def timings(texts: list[str]) -> tuple[list[float], float]:
    times, found = [], 0
    for text in texts:
        started = time.perf_counter()
        found += len(umls.match_entities(text))
        times.append((time.perf_counter() - started) * 1e6)
    return times, found / max(len(texts), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1109)
    parser.add_argument("--docs", type=int, default=300)
    args = parser.parse_args()
    wall, cpu = time.perf_counter(), time.process_time()
    ontology = umls.get_ontology()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"load: {wall:.2f} s wall, {cpu:.2f} s CPU; {len(ontology.index.entities):,} entities, "
          f"{len(ontology.index.keys):,} surface keys")
    queries = read(SCIFACT / "queries.jsonl", "text", args.queries) or FALLBACK * 200
    docs = read(SCIFACT / "corpus.jsonl", "text", args.docs)
    print(f"{'texts':<22}{'n':>6}{'chars':>8}{'mean us':>10}{'p50 us':>9}{'p95 us':>9}{'entities':>10}")
    for label, texts in (("queries (claims)", queries), ("abstracts", docs)):
        if not texts:
            continue
        times, per_text = timings(texts)
        p95 = statistics.quantiles(times, n=20)[-1] if len(times) >= 20 else max(times)
        chars = statistics.mean(len(t) for t in texts)
        print(f"{label:<22}{len(texts):>6}{chars:>8.0f}{statistics.mean(times):>10.1f}"
              f"{statistics.median(times):>9.1f}{p95:>9.1f}{per_text:>10.1f}")


if __name__ == "__main__":
    main()

"""Compile ranx's metrics once (numba, cached in site-packages) so the first evaluation does not pay for it.

ranx compiles each metric with numba on its first use, 30 to 90 s on a 2-core machine, and caches the
machine code next to the package. ``.ci/run`` runs this in the background while ruff and mypy run, so the
test that first evaluates (and every ``eval`` subprocess after it) loads the cache instead of compiling.
The metrics are those of ``eval beir``, the biomed gold set and the dataset catalog.
"""

from __future__ import annotations

import time

from ranx import Qrels, Run, evaluate

from eagle_rag.evaluation.beir import METRICS as BEIR
from eagle_rag_biomed.eval.runner import METRICS as GOLD
from eagle_rag_datasets.evaluate import _RANX as CATALOG


def main() -> None:
    start = time.perf_counter()
    qrels = Qrels({"q1": {"a": 1, "b": 2}, "q2": {"c": 1}})
    run = Run({"q1": {"a": 0.9, "x": 0.5, "b": 0.1}, "q2": {"y": 0.4, "c": 0.3}})
    metrics = sorted({*BEIR, *GOLD.values(), *CATALOG.values()})
    evaluate(qrels, run, metrics, make_comparable=True)
    evaluate(qrels, run, metrics, return_mean=False, make_comparable=True)
    print(f"ranx: {len(metrics)} metrics compiled in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()

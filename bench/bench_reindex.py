"""Reindex time (eagle_rag.ops.reindex) against the ingest time of the same corpus.

A synthetic corpus of ``--docs`` JSONL records is ingested (general profile, no plugins, ``eagle_text``
only) with ``--mode`` ``deterministic`` (the hash encoder: what reading, writing and switching cost) or
``require_native`` (bge-small, then a reindex to ``--model``, the bundled multilingual e5 by default; the
raw encoding time of that model over the same texts is printed too, so the reindex overhead over the
encoder is visible). Prints one table.

    nice -n 10 .venv/bin/python bench/bench_reindex.py --docs 2000
    nice -n 10 .venv/bin/python bench/bench_reindex.py --docs 200 --mode require_native
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench_snapshots import corpus

from eagle_rag.engine import Engine
from eagle_rag.ingest.dispatch import embed_input
from eagle_rag.ops.reindex import reindex
from eagle_rag.settings import load_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--chars", type=int, default=1000)
    parser.add_argument("--mode", choices=("deterministic", "require_native"), default="deterministic")
    parser.add_argument("--model", default="bundled:multilingual-e5-small")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-reindex-") as tmp:
        root = Path(tmp)
        settings = load_settings(environ={"EAGLE_RAG_PROFILE": "general"}, overrides={
            "data_dir": str(root / "data"), "encoders": {"mode": args.mode}, "plugins": {"enabled": []}})
        source = corpus(root / "corpus.jsonl", args.docs, args.chars)
        with Engine(settings) as engine:
            engine.encoders.get_encoder("bge-small")  # model load is not ingest time
            started = time.perf_counter()
            ingested = engine.ingest([source], kb_name="bench")
            ingest_s = time.perf_counter() - started
            report = reindex(engine, "bge-small", args.model)
            rows = sum(report.rows.values())
            chunks = engine.vectors.get_chunks("eagle_text", [c for c, _ in engine.vectors.chunk_refs("eagle_text")])
            encoder = engine.encoders.text_encoder("bge-small")
            started = time.perf_counter()
            encoder.encode_passages([embed_input(c) for c in chunks])
            raw_s = time.perf_counter() - started
    print(f"{ingested.documents} documents, {rows} rows, mode {args.mode}, reindex to {args.model}")
    print("| step | seconds | rows/s | to ingest |")
    print("|---|---:|---:|---:|")
    for step, seconds in (("ingest (parse, chunk, embed, write 3 stores)", ingest_s),
                          ("reindex (read, embed, write, catch up, check, switch)", report.seconds),
                          ("raw encoding of the same texts by the new model", raw_s)):
        print(f"| {step} | {seconds:.2f} | {rows / seconds:.1f} | {seconds / ingest_s:.2f} |")


if __name__ == "__main__":
    main()

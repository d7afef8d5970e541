"""Snapshot and restore time per GB of data folder (eagle_rag.ops.snapshots), against the ingest time of the
same corpus.

A synthetic corpus of ``--docs`` JSONL records (``--chars`` characters each) is ingested with the hash
encoder into a fresh data folder (general profile, no plugins, sentence rows on so the folder holds
two collections; ``--pad-mb`` adds one large upload), then snapshotted ``--repeat`` times and restored
``--repeat`` times. Prints one table: folder size, ingest time, snapshot time (``copy_s``: how long writes
waited; total: with hashing), restore time (hash check, copy, swap), each per GB.

    nice -n 10 .venv/bin/python bench/bench_snapshots.py --docs 2000 --chars 1500
    nice -n 10 .venv/bin/python bench/bench_snapshots.py --docs 300 --pad-mb 1000 --repeat 2
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from eagle_rag.engine import Engine
from eagle_rag.ops.snapshot_restore import restore_snapshot
from eagle_rag.ops.snapshots import create_snapshot, delete_snapshot
from eagle_rag.settings import load_settings

WORDS = [
    "imatinib", "kinase", "leukaemia", "warfarin", "bleeding", "cohort", "trial", "dose", "hepatic",
    "glucose", "metformin", "statin", "receptor", "inhibitor", "randomised", "placebo", "outcome",
    "mortality", "biomarker", "tumour", "expression", "pathway"
]


def corpus(path: Path, docs: int, chars: int, seed: int = 7) -> Path:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for i in range(docs):
            words: list[str] = []
            while sum(len(w) + 1 for w in words) < chars:
                words.append(rng.choice(WORDS))
            out.write(json.dumps({"id": f"d-{i}", "title": f"Record {i}", "text": " ".join(words) + "."}) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--chars", type=int, default=1500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pad-mb", type=int, default=0, help="add an upload of this many MB of random bytes, so "
                        "the folder reaches a size where per-GB figures mean something")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-snapshots-") as tmp:
        root = Path(tmp)
        settings = load_settings(environ={"EAGLE_RAG_PROFILE": "general"}, overrides={
            "data_dir": str(root / "data"), "encoders": {"mode": "deterministic"}, "plugins": {"enabled": []},
            "ingest": {"sentence_collections": ["eagle_text"]}})
        source = corpus(root / "corpus.jsonl", args.docs, args.chars)
        creates, copies, restores = [], [], []
        with Engine(settings) as engine:
            started = time.perf_counter()
            report = engine.ingest([source], kb_name="bench")
            ingest_s = time.perf_counter() - started
            if args.pad_mb:
                pad = settings.data_path / "uploads" / "bench" / "pad.bin"
                pad.parent.mkdir(parents=True, exist_ok=True)
                with pad.open("wb") as out:
                    for _ in range(args.pad_mb):
                        out.write(os.urandom(1 << 20))
            for i in range(args.repeat):
                started = time.perf_counter()
                manifest = create_snapshot(engine, f"b{i}")
                creates.append(time.perf_counter() - started)
                copies.append(manifest.copy_s)
        for i in range(args.repeat):
            started = time.perf_counter()
            restore_snapshot(settings, f"b{i}")
            restores.append(time.perf_counter() - started)
            delete_snapshot(settings, f"b{i}")
        gb = manifest.total_bytes / 1e9
        print(f"{report.documents} documents, {report.chunks} chunks, {len(manifest.files)} files "
              f"(pad {args.pad_mb} MB), "
              f"{manifest.total_bytes / 1e6:.1f} MB; medians of {args.repeat} runs")
        print("| step | seconds | seconds per GB |")
        print("|---|---:|---:|")
        for step, seconds in (("ingest (hash encoder)", ingest_s),
                              ("snapshot: writes wait (flush + copy)", statistics.median(copies)),
                              ("snapshot: total (with sha256)", statistics.median(creates)),
                              ("restore (hash check, copy, swap)", statistics.median(restores))):
            print(f"| {step} | {seconds:.2f} | {seconds / gb:.1f} |")


if __name__ == "__main__":
    main()

"""Peak memory of ``eagle-rag ingest --dry-run`` over a large and a small generated JSONL file.

Ingest reads multi-record files record by record, so its memory should not depend on the file's
size. This script writes two BEIR-style JSONL files of the same records (default 1 GB and 10 MB,
about 1 KB a record, with a few bad records sprinkled in), runs ``eagle-rag ingest --dry-run --json``
over each in a fresh subprocess, and prints each run's peak RSS (``ru_maxrss`` of the child),
records, wall time, and the ratio large/small (the target: within 1.2).

    .venv/bin/python bench/bench_ingest_memory.py                     # 1 GB vs 10 MB under /tmp
    .venv/bin/python bench/bench_ingest_memory.py --large-mb 200 --keep

The generated files are deleted afterwards unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = ["kinase", "receptor", "antibody", "cohort", "survival", "toxicity", "metformin", "insulin", "glucose",
         "tumour", "melanoma", "trial", "mouse", "dose", "gene", "protein", "cell", "therapy", "risk", "aspirin",
         "inhibitor", "expression", "pathway", "mutation"]
BAD_EVERY = 5000


def write_corpus(path: Path, target_bytes: int, seed: int = 7) -> int:
    """Write about ``target_bytes`` of records to ``path`` (one bad record in every BAD_EVERY). Returns records."""
    rng = random.Random(seed)
    written = records = 0
    with path.open("w", encoding="utf-8") as fh:
        while written < target_bytes:
            records += 1
            if records % BAD_EVERY == 0:
                line = '{"_id": "broken", "text": \n'
            else:
                text = " ".join(rng.choices(WORDS, k=130))
                line = json.dumps({"_id": f"d{records}", "title": f"Record {records}", "text": text}) + "\n"
            fh.write(line)
            written += len(line)
    return records


def dry_run(path: Path, data_dir: Path) -> dict[str, float]:
    """Run the CLI's dry run over ``path`` in a child process; its peak RSS (MiB), records and seconds."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
    env.update({"EAGLE_RAG_DATA_DIR": str(data_dir), "EAGLE_RAG_ENCODERS__MODE": "deterministic",
                "EAGLE_RAG_PLUGINS__ENABLED": "[]"})
    code = ("import resource, sys\n"
            "from eagle_rag.cli import main\n"
            "try:\n    main(sys.argv[1:])\n"
            "finally:\n"
            "    print('PEAK_RSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, "ingest", str(path), "--kb", "bench", "--dry-run", "--json"],
                          env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    peak = next(int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("PEAK_RSS_KB"))
    report = json.loads(done.stdout)
    [counts] = report["files_detail"]
    return {"peak_mib": peak / 1024, "records": counts["records"], "valid": counts["ingested"],
            "bad": counts["failed"], "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--large-mb", type=int, default=1024)
    parser.add_argument("--small-mb", type=int, default=10)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="eagle-ingest-mem-", dir=args.dir))
    rows = []
    try:
        for label, mb in (("small", args.small_mb), ("large", args.large_mb)):
            path = work / f"{label}.jsonl"
            started = time.perf_counter()
            records = write_corpus(path, mb * 1024 * 1024)
            print(f"generated {path} ({path.stat().st_size / 2**20:.0f} MiB, {records} records) "
                  f"in {time.perf_counter() - started:.0f} s", flush=True)
            result = dry_run(path, work / f"data-{label}")
            rows.append((label, path.stat().st_size, result))
            if not args.keep:
                path.unlink()
    finally:
        if not args.keep:
            subprocess.run(["rm", "-rf", str(work)], check=False)
    print("\n| file | size | records | bad | dry-run s | records/s | peak RSS MiB |")
    print("|---|---|---|---|---|---|---|")
    for label, size, r in rows:
        print(f"| {label} | {size / 2**20:.0f} MiB | {r['records']:.0f} | {r['bad']:.0f} | {r['seconds']:.1f} | "
              f"{r['records'] / r['seconds']:.0f} | {r['peak_mib']:.0f} |")
    ratio = rows[1][2]["peak_mib"] / rows[0][2]["peak_mib"]
    print(f"\npeak RSS large / small: {ratio:.3f} (target <= 1.2): {'ok' if ratio <= 1.2 else 'OVER'}")
    print(f"this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()

"""Fault bench: SIGKILL ``eagle-rag ingest`` at seeded random moments, restart it until it finishes,
then check with ``eagle-rag doctor`` that nothing was lost.

    /tmp/venv/bin/python bench/bench_faults.py [--records 3000] [--kills 8] [--seed 11] [--json PATH]

Phase 1 ingests a fresh corpus (JSONL records, long Markdown files, a Chinese file); phase 2
changes every other record and re-ingests, killed again, which exercises the versioned replace
(new chunks written next to the old ones, registry flip, old ones deleted). After each phase: the
doctor's findings, ``--repair`` when it found anything, and a search for every record's marker
word (the new marker after phase 2). Deterministic vectors keep it CPU-cheap; the stores are the
real ones (Milvus Lite, tantivy, SQLite).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from eagle_rag.engine import Engine
from eagle_rag.ops import doctor
from eagle_rag.settings import load_settings
from eagle_rag.types import DocumentStatus, SearchMode, SearchRequest

WORDS = ["tumour", "melanoma", "kinase", "receptor", "antibody", "trial", "cohort", "mouse", "survival", "dose",
         "toxicity", "gene", "protein", "cell", "therapy", "risk", "metformin", "aspirin", "insulin", "glucose"]


def write_corpus(root: Path, records: int, rng: random.Random, phase: int) -> None:
    root.mkdir(exist_ok=True)
    with (root / "records.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(records):
            tag = f"v{phase}m{i:05d}" if phase == 1 or i % 2 == 0 else f"v1m{i:05d}"
            fh.write(json.dumps({"id": f"r{i:05d}", "title": f"Record {i}",
                                 "text": " ".join(rng.choices(WORDS, k=60)) + f" {tag}"}) + "\n")
    for i in range(5):
        body = "\n\n".join(f"## Part {j}\n" + " ".join(rng.choices(WORDS, k=250)) + f" long{i}v{phase}"
                           for j in range(8))
        (root / f"long{i}.md").write_text(f"# Long document {i}\n\n{body}\n", encoding="utf-8")
    (root / "zh.md").write_text("# 二甲双胍\n\n## 不良反应\n常见胃肠道反应，如恶心、腹泻。\n", encoding="utf-8")


def killed_ingest(corpus: Path, env: dict[str, str], cwd: Path, kills: int, rng: random.Random,
                  window: tuple[float, float], data: Path) -> list[dict[str, Any]]:
    """Run the ingest, SIGKILL it ``kills`` times after random delays, then let it finish."""
    runs: list[dict[str, Any]] = []
    while True:
        started = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "eagle_rag.cli.app", "ingest", str(corpus), "--kb", "faults"],
                                env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        killed = sum(1 for r in runs if r["killed"]) < kills
        delay = rng.uniform(*window) if killed else 600.0
        try:
            proc.wait(timeout=delay)
            killed = False
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=600)
        run = {"killed": killed, "after_s": round(time.perf_counter() - started, 2), "rc": proc.returncode,
               "state": registry_state(data)}
        runs.append(run)
        print(f"  run {len(runs)}: {'killed' if killed else 'finished'} after {run['after_s']} s, "
              f"registry {run['state']}", flush=True)
        if not killed:
            if proc.returncode != 0:
                raise SystemExit(f"ingest failed: {err.strip()[-500:]}")
            return runs


def registry_state(data: Path) -> dict[str, int]:
    from eagle_rag.stores.registry import SqlDocumentRegistry

    registry = SqlDocumentRegistry(f"sqlite:///{data / 'registry.db'}")
    try:
        return {s.value: registry.count(status=s) for s in DocumentStatus}
    finally:
        registry.close()


def verify(data: Path, records: int, phase: int) -> dict[str, Any]:
    settings = load_settings(environ={}, overrides={"profile": "general", "data_dir": str(data),
                                                   "encoders": {"mode": "deterministic"}, "plugins": {"enabled": []}})
    with Engine(settings) as engine:
        found = doctor.check(engine)
        result: dict[str, Any] = {"findings": found.counts(), "actions": []}
        if found.findings:
            result["actions"] = doctor.repair(engine, found).actions
            result["after_repair"] = doctor.check(engine).counts()
        missing = []
        for i in range(records):
            tag = f"v{phase}m{i:05d}" if phase == 1 or i % 2 == 0 else f"v1m{i:05d}"
            hits = engine.search(SearchRequest(query=tag, top_k=1, mode=SearchMode.BM25)).hits
            if not hits or hits[0].document_id != f"r{i:05d}":
                missing.append(i)
        result["records_not_found"] = len(missing)
        result["complete"] = engine.registry.count(status=DocumentStatus.COMPLETE)
        result["documents"] = engine.registry.count()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=3000)
    parser.add_argument("--kills", type=int, default=8)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--window", type=float, nargs=2, default=(1.5, 8.0), help="kill delay range (s)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    out: dict[str, Any] = {"records": args.records, "kills_per_phase": args.kills, "seed": args.seed}
    with tempfile.TemporaryDirectory() as tmp:
        root, data = Path(tmp), Path(tmp) / "data"
        env = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
        env.update({"EAGLE_RAG_DATA_DIR": str(data), "EAGLE_RAG_ENCODERS__MODE": "deterministic",
                    "EAGLE_RAG_PLUGINS__ENABLED": "[]"})
        for phase in (1, 2):
            write_corpus(root / "corpus", args.records, rng, phase)
            print(f"phase {phase}: {'fresh ingest' if phase == 1 else 're-ingest of changed records'}")
            runs = killed_ingest(root / "corpus", env, root, args.kills, rng, tuple(args.window), data)
            result = verify(data, args.records, phase)
            print(f"  doctor: {result['findings'] or 'consistent'}; repair: {result['actions'] or 'none'}; "
                  f"{result['complete']}/{result['documents']} complete; "
                  f"records not found by search: {result['records_not_found']}")
            out[f"phase{phase}"] = {"runs": runs, **result}
    lost = sum(out[f"phase{p}"]["records_not_found"] for p in (1, 2))
    print(f"nothing lost: {lost == 0}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

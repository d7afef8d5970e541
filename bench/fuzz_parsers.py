"""Parser fuzzing for a bounded time: every target of ``tests/fuzz/targets.py``, longer than CI.

    /tmp/venv/bin/python bench/fuzz_parsers.py [--seconds 60] [--engine auto|atheris|mutate]
        [--targets markdown,biomed_pdf,...] [--json PATH]

Engines: ``atheris`` (coverage-guided libFuzzer, one subprocess per target, seeded with the real
sample files; used when ``pip install atheris`` worked) or ``mutate`` (seeded random mutations of
the same seeds with the CI harness' mutators, plus random bytes). The only allowed failure is
IngestError; bugs already reported for the biomed plugin (``targets.KNOWN_PLUGIN_BUGS``) are
counted and skipped. New crashes are written to ``bench/results/fuzz/crashes/`` and listed;
each one should become a test in ``tests/fuzz/test_parser_regressions.py``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "bench" / "results" / "fuzz"

from tests.fuzz.targets import TOKENS, known_plugin_bug, mutate, run_target, seeds, token_kind  # noqa: E402


def _signature(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "eagle_rag" in f.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    return f"{type(exc).__name__} at {where}"


def fuzz_mutate(target: str, seconds: float, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    tokens, pool = TOKENS[token_kind(target)], seeds()[target]
    runs = known = 0
    crashes: dict[str, str] = {}
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        if rng.random() < 0.1:
            data = rng.randbytes(rng.randint(0, 4096))
        else:
            ops = [(rng.randint(0, 7), rng.randint(0, 2**20), rng.randint(0, 2**16), rng.randint(0, 2**16))
                   for _ in range(rng.randint(1, 8))]
            data = mutate(rng.choice(pool), ops, tokens)
        runs += 1
        try:
            run_target(target, data, tolerate_known=False)
        except Exception as exc:  # noqa: BLE001 - every escape is recorded
            if known_plugin_bug(target, exc):
                known += 1
                continue
            sig = _signature(exc)
            if sig not in crashes:
                path = OUT / "crashes" / f"{target}-{hashlib.sha1(data).hexdigest()[:12]}.bin"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
                crashes[sig] = str(path.relative_to(ROOT))
    return {"engine": "mutate", "runs": runs, "runs_per_s": round(runs / seconds, 1), "known_plugin_bugs": known,
            "new_crashes": crashes}


def atheris_child(target: str) -> None:
    """Run inside the subprocess: libFuzzer drives ``run_target`` (known plugin bugs tolerated)."""
    import atheris

    def one_input(data: bytes) -> None:
        run_target(target, data)

    atheris.instrument_all()
    atheris.Setup(sys.argv[:1] + sys.argv[3:], one_input)
    atheris.Fuzz()


def fuzz_atheris(target: str, seconds: float) -> dict[str, Any]:
    corpus = OUT / "corpus" / target
    corpus.mkdir(parents=True, exist_ok=True)
    for i, seed in enumerate(seeds()[target]):
        (corpus / f"seed{i}").write_bytes(seed)
    crashes = OUT / "crashes"
    crashes.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, __file__, "--atheris-child", target, f"-max_total_time={int(seconds)}",
           f"-artifact_prefix={crashes}/{target}-", "-rss_limit_mb=4096", "-timeout=20", str(corpus)]
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 120)
    log = (proc.stderr + "\n" + proc.stdout).splitlines()  # atheris prints the exception on stdout
    done = [line.split()[1] for line in log if line.startswith("Done ") and line.split()[1].isdigit()]
    pulses = [line.split()[0].lstrip("#") for line in log if line.startswith("#") and line.split()[0][1:].isdigit()]
    runs = int(done[-1]) if done else int(pulses[-1]) if pulses else 0
    marks = [i for i, line in enumerate(log) if "Uncaught Python exception" in line]
    crash = next((line for line in log[marks[0] + 1:] if line and not line.startswith(("Traceback", " "))), "?") \
        if marks else ""
    artifacts = sorted(crashes.glob(f"{target}-crash-*"), key=lambda p: p.stat().st_mtime)
    found = {crash: str(artifacts[-1].relative_to(ROOT)) if artifacts else target} if marks else {}
    if not found and proc.returncode != 0:  # a crash whose report was not recognised still counts
        found = {f"exit code {proc.returncode}": str(artifacts[-1].relative_to(ROOT)) if artifacts else target}
    return {"engine": "atheris", "runs": runs, "runs_per_s": round(runs / max(time.perf_counter() - started, 1), 1),
            "rc": proc.returncode, "new_crashes": found}


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--atheris-child":
        atheris_child(sys.argv[2])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="budget per target")
    parser.add_argument("--engine", choices=("auto", "atheris", "mutate"), default="auto")
    parser.add_argument("--targets", default="", help="comma-separated (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    engine = args.engine
    if engine == "auto":
        try:
            import atheris  # noqa: F401
            engine = "atheris"
        except ImportError:
            engine = "mutate"
    targets = [t for t in args.targets.split(",") if t] or sorted(seeds())
    results: dict[str, Any] = {}
    print(f"{'target':<12} {'engine':<8} {'runs':>8} {'runs/s':>8} {'known':>6}  new crashes")
    for target in targets:
        result = (fuzz_atheris(target, args.seconds) if engine == "atheris"
                  else fuzz_mutate(target, args.seconds, args.seed))
        results[target] = result
        print(f"{target:<12} {result['engine']:<8} {result['runs']:>8} {result['runs_per_s']:>8} "
              f"{result.get('known_plugin_bugs', '-'):>6}  {result['new_crashes'] or 'none'}", flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

"""Load: ``eagle-rag serve`` on loopback under 16 concurrent clients for 60 seconds.

    /tmp/venv/bin/python bench/bench_load.py [--data-dir DIR] [--clients 16] [--seconds 60]
        [--max-requests 50000] [--mode hybrid] [--json bench/results/load.json]

The server runs in a subprocess on a free 127.0.0.1 port with an existing index: ``--data-dir``,
else the SciFact index under bench/results (built by bench/bench_scifact.py or ``eagle-rag eval beir
--data-dir``), else a small index of the bundled sample corpus built here. Queries: the SciFact test
queries (the bundled demo queries for the sample index), sent round-robin as ``POST /search``
(top_k 10). The clients are httpx AsyncClients; the run stops by itself at ``--seconds`` or
``--max-requests``. Reported: requests, errors (any non-200 answer or transport error; the run
fails when there is one), throughput, latency p50/p95/p99 and the server's peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import yaml

from eagle_rag.evaluation.beir import corpus_fingerprint, load_beir, percentile

ROOT = Path(__file__).resolve().parents[1]
SCIFACT = ROOT.parent / "shared" / "data" / "beir" / "scifact"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def pick_index(given: Path | None) -> tuple[Path, list[str]]:
    """The data dir to serve and the queries to send."""
    scifact_queries = []
    if (SCIFACT / "qrels" / "test.tsv").is_file():
        scifact_queries = list(load_beir(SCIFACT, "test").queries.values())
    if given:
        return given, scifact_queries
    if (SCIFACT / "corpus.jsonl").is_file():
        default = ROOT / "bench" / "results" / f"scifact-{corpus_fingerprint(SCIFACT / 'corpus.jsonl')}"
        if (default / "beir_index.json").is_file():
            return default, scifact_queries
    sample = ROOT / "bench" / "results" / "load-sample"
    if not (sample / "registry.db").is_file():
        from eagle_rag.engine import Engine
        from eagle_rag.ops.demo import sample_dir
        from eagle_rag.settings import load_settings

        with Engine(load_settings(overrides={"profile": "general", "data_dir": str(sample)})) as engine:
            engine.ingest([sample_dir()], kb_name="demo")
    from eagle_rag.ops.demo import sample_dir

    demo = yaml.safe_load((sample_dir() / "demo_queries.yaml").read_text(encoding="utf-8"))
    items = demo if isinstance(demo, list) else demo.get("queries", [])
    return sample, [q["query"] if isinstance(q, dict) else str(q) for q in items]


def start_server(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
    env.update({"EAGLE_RAG_DATA_DIR": str(data_dir), "EAGLE_RAG_LOG_LEVEL": "WARNING",
                "EAGLE_RAG_API__LOG_FORMAT": "text"})
    return subprocess.Popen([sys.executable, "-m", "eagle_rag.cli.app", "serve", "--host", "127.0.0.1",
                             "--port", str(port)], env=env, cwd=data_dir, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


async def wait_ready(base: str, proc: subprocess.Popen[bytes], timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient(base_url=base, timeout=5) as client:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise SystemExit(f"server exited: {proc.stderr.read().decode()[-2000:] if proc.stderr else ''}")
            try:
                if (await client.get("/health")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.5)
    raise SystemExit("server did not answer /health in time")


async def load(base: str, queries: list[str], clients: int, seconds: float, max_requests: int,
               mode: str) -> dict[str, Any]:
    latencies: list[float] = []
    errors: list[str] = []
    counter = iter(range(max_requests))
    deadline = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as client:
        for q in queries[:5]:  # warm up (models, HNSW, searcher)
            await client.post("/search", json={"query": q, "top_k": 10, "mode": mode})

        async def worker() -> None:
            for n in counter:
                if time.perf_counter() >= deadline:
                    return
                body = {"query": queries[n % len(queries)], "top_k": 10, "mode": mode}
                started = time.perf_counter()
                try:
                    response = await client.post("/search", json=body)
                    if response.status_code != 200:
                        errors.append(f"{response.status_code}: {response.text[:200]}")
                except httpx.HTTPError as exc:
                    errors.append(f"{type(exc).__name__}: {exc}")
                latencies.append((time.perf_counter() - started) * 1000)

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        elapsed = time.perf_counter() - started
    lat = sorted(latencies)
    return {"requests": len(lat), "errors": len(errors), "error_samples": errors[:5],
            "seconds": round(elapsed, 1), "throughput_rps": round(len(lat) / elapsed, 2),
            "latency_ms": {p: round(percentile(lat, q), 1) for p, q in (("p50", 50), ("p95", 95), ("p99", 99))}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--max-requests", type=int, default=50_000)
    parser.add_argument("--mode", default="hybrid")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "load.json")
    args = parser.parse_args()
    data_dir, queries = pick_index(args.data_dir)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(data_dir, port)
    try:
        asyncio.run(wait_ready(base, proc))
        result = asyncio.run(load(base, queries, args.clients, args.seconds, args.max_requests, args.mode))
        status = Path(f"/proc/{proc.pid}/status").read_text()
        result["server_peak_rss_mb"] = round(int(status.split("VmHWM:")[1].split()[0]) / 1024, 1)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    result.update({"data_dir": str(data_dir), "clients": args.clients, "mode": args.mode, "queries": len(queries)})
    print(json.dumps(result, indent=2))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2))
    if result["errors"]:
        raise SystemExit(f"{result['errors']} errors")


if __name__ == "__main__":
    main()

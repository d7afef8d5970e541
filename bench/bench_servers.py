"""The server configuration against the embedded one, and one API replica against two, on SciFact abstracts.

    nice -n 10 .venv/bin/python bench/bench_servers.py [--beir ../shared/data/beir/scifact] [--docs 1000]
        [--queries 100] [--threads 4] [--seconds 20]

1. Ingest documents/s and hybrid search p50 in a fresh process each, on the same first ``--docs`` abstracts and
   the same ``--queries`` test queries, for the embedded stores (Milvus Lite file, tantivy, SQLite) and
   the server stores (milvus-lite's gRPC server with ``lexical.backend: milvus``, PostgreSQL on
   127.0.0.1:5432). The encoders are the real ones (bge-small INT8), the profile ``general`` without
   plugins, so the ratio shows what the stores cost.
2. Queries per second through ``eagle-rag serve`` replicas of the server configuration under the same
   client load (``--threads`` clients for ``--seconds``): all to replica A, then round-robin over A and B,
   and the CPU seconds each request cost (replicas and the Milvus server, from /proc). On a machine with
   few cores two replicas show the overhead, not the gain: the CPU time per request is what a bigger
   machine divides.

Writes bench/results/bench_servers.json and prints the tables.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from eagle_rag.engine import Engine
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchMode, SearchRequest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.milvus_servers import POSTGRES_URL, milvus_lite_server  # noqa: E402
from tests.servers import free_port, health_ok, wait_ready  # noqa: E402

QUIET = {"token_vector_collections": [], "sentence_collections": []}


def cpu_seconds(pid: int) -> float:
    """utime + stime of ``pid`` and its children that were waited for (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))
    return ticks / os.sysconf("SC_CLK_TCK")


def sample_corpus(beir: Path, n_docs: int, out: Path) -> tuple[Path, list[str]]:
    lines = [line for line in (beir / "corpus.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    out.write_text("\n".join(lines[:n_docs]) + "\n", encoding="utf-8")
    queries = [json.loads(line)["text"] for line in (beir / "queries.jsonl").read_text().splitlines() if line.strip()]
    return out, queries


def store_overrides(kind: str, milvus_uri: str, registry: str) -> dict[str, Any]:
    if kind == "embedded":
        return {}
    return {"milvus": {"uri": milvus_uri}, "registry": {"url": registry}, "lexical": {"backend": "milvus"}}


def in_process(kind: str, data: Path, corpus: Path, queries: list[str], milvus_uri: str,
               registry: str) -> dict[str, float]:
    settings = load_settings(overrides={"profile": "general", "data_dir": str(data), "plugins": {"enabled": []},
                                        "ingest": QUIET, **store_overrides(kind, milvus_uri, registry)})
    with Engine(settings) as engine:
        engine.encoders.get_encoder("bge-small").encode_passages(["warm up"])
        started = time.perf_counter()
        report = engine.ingest([corpus], kb_name="scifact")
        ingest_s = time.perf_counter() - started
        for query in queries[:3]:
            engine.search(SearchRequest(query=query, mode=SearchMode.HYBRID))
        times = []
        for query in queries:
            t0 = time.perf_counter()
            engine.search(SearchRequest(query=query, mode=SearchMode.HYBRID))
            times.append((time.perf_counter() - t0) * 1000)
    return {"documents": report.documents, "chunks": report.chunks, "ingest_s": ingest_s,
            "docs_per_s": report.documents / ingest_s, "search_p50_ms": statistics.median(times)}


def start_replica(root: Path, name: str, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    data = root / name
    data.mkdir(parents=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = root / f"{name}.log"
    with log.open("ab") as out:
        proc = subprocess.Popen([sys.executable, "-c", "from eagle_rag.cli.app import main; main()", "serve", "--port",
                                 str(port)], env={**env, "EAGLE_RAG_DATA_DIR": str(data)}, stdout=out,
                                stderr=subprocess.STDOUT)
    wait_ready(proc, lambda: health_ok(url), log, 300)
    return proc, url


def load(urls: list[str], queries: list[str], threads: int, seconds: float) -> dict[str, Any]:
    latencies: list[float] = []
    errors = [0]
    stop = time.monotonic() + seconds
    lock = threading.Lock()

    def client(offset: int) -> None:
        with httpx.Client(timeout=60) as http:
            i = offset
            while time.monotonic() < stop:
                t0 = time.perf_counter()
                answer = http.post(f"{urls[i % len(urls)]}/search", json={"query": queries[i % len(queries)],
                                                                           "mode": "hybrid"})
                with lock:
                    if answer.status_code == 200:
                        latencies.append((time.perf_counter() - t0) * 1000)
                    else:
                        errors[0] += 1
                i += 1

    workers = [threading.Thread(target=client, args=(t * 7,)) for t in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return {"requests": len(latencies), "errors": errors[0], "qps": len(latencies) / seconds,
            "p50_ms": statistics.median(latencies) if latencies else float("nan")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--beir", type=Path, default=ROOT.parent / "shared" / "data" / "beir" / "scifact")
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    for hidden in ("--measure", "--data", "--corpus", "--milvus", "--registry", "--query-file"):
        parser.add_argument(hidden, default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:  # one configuration, in this (fresh) process
        queries = json.loads(Path(args.query_file).read_text())
        print(json.dumps(in_process(args.measure, Path(args.data), Path(args.corpus), queries, args.milvus,
                                    args.registry)))
        return

    import psycopg
    from sqlalchemy.engine import make_url

    root = Path(tempfile.mkdtemp(prefix="bench-servers-"))
    corpus, queries = sample_corpus(args.beir, args.docs, root / "corpus.jsonl")
    queries = queries[:args.queries]
    url = make_url(POSTGRES_URL)
    params = {"host": url.host, "port": url.port or 5432, "user": url.username, "password": url.password,
              "dbname": url.database, "autocommit": True}
    database = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(**params) as conn:
        conn.execute(f'CREATE DATABASE "{database}"')
    registry = url.set(database=database).render_as_string(hide_password=False)
    (root / "milvus").mkdir()
    milvus = milvus_lite_server(root / "milvus")
    milvus.start()
    replicas: list[subprocess.Popen[bytes]] = []
    results: dict[str, Any] = {"docs": args.docs, "queries": len(queries), "threads": args.threads,
                               "seconds": args.seconds, "cpus": os.cpu_count()}
    try:
        (root / "queries.json").write_text(json.dumps(queries))
        for kind in ("embedded", "server"):  # each in a fresh process: no encoder cache carried over
            done = subprocess.run([sys.executable, __file__, "--measure", kind, "--data", str(root / kind),
                                   "--corpus", str(corpus), "--milvus", milvus.uri, "--registry", registry,
                                   "--query-file", str(root / "queries.json")],
                                  capture_output=True, text=True, check=True)
            results[kind] = json.loads(done.stdout.strip().splitlines()[-1])
            print(kind, json.dumps(results[kind]), flush=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
        env.update({"EAGLE_RAG_PROFILE": "general", "EAGLE_RAG_PLUGINS__ENABLED": "[]",
                    "EAGLE_RAG_LOG_LEVEL": "WARNING",
                    "EAGLE_RAG_MILVUS__URI": milvus.uri, "EAGLE_RAG_REGISTRY__URL": registry,
                    "EAGLE_RAG_LEXICAL__BACKEND": "milvus", "EAGLE_RAG_INGEST__TOKEN_VECTOR_COLLECTIONS": "[]",
                    "EAGLE_RAG_INGEST__SENTENCE_COLLECTIONS": "[]"})
        a, url_a = start_replica(root / "replicas", "a", env)
        b, url_b = start_replica(root / "replicas", "b", env)
        replicas += [a, b]
        assert milvus.proc is not None
        for label, urls in (("one_replica", [url_a]), ("two_replicas", [url_a, url_b])):
            load(urls, queries, args.threads, 3.0)  # warm the connections
            pids = [a.pid, b.pid, milvus.proc.pid]
            before = [cpu_seconds(pid) for pid in pids]
            run = load(urls, queries, args.threads, args.seconds)
            spent = [cpu_seconds(pid) - was for pid, was in zip(pids, before, strict=True)]
            run["cpu_ms_per_request_replicas"] = 1000 * (spent[0] + spent[1]) / max(run["requests"], 1)
            run["cpu_ms_per_request_milvus"] = 1000 * spent[2] / max(run["requests"], 1)
            results[label] = run
            print(label, json.dumps(run), flush=True)
    finally:
        for proc in replicas:
            proc.terminate()
            proc.wait(timeout=60)
        milvus.stop()
        with psycopg.connect(**params) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        shutil.rmtree(root, ignore_errors=True)
    emb, srv = results["embedded"], results["server"]
    print(f"\n| {args.docs} SciFact abstracts, {len(queries)} queries | embedded | server | server/embedded |")
    print("|---|---:|---:|---:|")
    print(f"| ingest docs/s | {emb['docs_per_s']:.1f} | {srv['docs_per_s']:.1f} | "
          f"{srv['docs_per_s'] / emb['docs_per_s']:.2f} |")
    print(f"| hybrid search p50 (ms) | {emb['search_p50_ms']:.1f} | {srv['search_p50_ms']:.1f} | "
          f"{srv['search_p50_ms'] / emb['search_p50_ms']:.2f} |")
    one, two = results["one_replica"], results["two_replicas"]
    print(f"\n| {args.threads} clients, {args.seconds:.0f} s | QPS | p50 ms | CPU ms/request (replicas + Milvus) |")
    print("|---|---:|---:|---:|")
    for label, run in (("one replica", one), ("two replicas", two)):
        print(f"| {label} | {run['qps']:.1f} | {run['p50_ms']:.0f} | {run['cpu_ms_per_request_replicas']:.0f} + "
              f"{run['cpu_ms_per_request_milvus']:.0f} |")
    out = ROOT / "bench" / "results" / "bench_servers.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()

"""Growth: indexes of 10k, 100k and 1M chunks; ingest rate, size on disk, memory, search latency.

    nice -n 10 .venv/bin/python bench/bench_growth.py --sizes 10000 100000 1000000 --queries 200 \
        --real-queries --results bench/results/growth.json
    .venv/bin/python bench/bench_growth.py --report      # plot bench/growth.png + markdown table

Each size is built from scratch in its own folder, in this process, straight through the stores (no
encoder on the chunks): synthetic text from a fixed seed (a Zipf vocabulary of 50,000 pseudo-words,
40-120 words a chunk, 4 chunks a document) and random unit vectors (seeded numpy). Written to Milvus
Lite (the store's own schema and rows, :func:`eagle_rag.stores.milvus_schema.chunk_to_row`, inserted
``--batch`` rows a call; the vector index HNSW M 16 / efConstruction 256 as the store creates it; with
``--index-after`` it is dropped before loading and built once after it, unless Milvus Lite has put an
index back on its sealed segments itself, as it did at 100k: ``index_after`` false in the result),
tantivy (through the shared analyzer, one commit every 200,000 chunks) and the SQLite registry (one
transaction a batch). With ``--real-queries`` the query vectors are SciFact queries encoded by the
bundled bge-small (dimension 384, the store's vectors then 384 too); else random (``--dim``). Reported
per size: chunks/s of each store and overall, the index build, bytes on disk of each store, RSS before
the build, now and peak (Milvus Lite runs in this process), and p50/p95 over ``--queries`` queries (2-4
vocabulary words) of bm25 (tantivy), dense (Milvus, ef 64) and hybrid (both, depth 50, RRF k 60 with the
engine's ``merge_rrf``, then the registry visibility look-up the search service does). Results
accumulate in ``--results`` (default ``bench/results/growth.json``), one entry per size, so sizes can be
run in separate processes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from pymilvus.exceptions import MilvusException

from eagle_rag.evaluation.beir import percentile
from eagle_rag.protocols import DocumentRecord
from eagle_rag.retrieve.fusion import merge_rrf
from eagle_rag.stores import milvus_schema as ms
from eagle_rag.stores.lexical import TantivyLexicalIndex
from eagle_rag.stores.milvus import MilvusVectorStore
from eagle_rag.stores.registry import SqlDocumentRegistry
from eagle_rag.types import Chunk, DocumentStatus, NodeWithScore, ranked

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "growth.json"
VOCAB, COMMIT_EVERY, CHUNKS_PER_DOC, DEPTH = 50_000, 200_000, 4, 50
SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qui", "dra", "bel", "sto", "fen", "gor"]


def vocabulary(rng: np.random.Generator) -> np.ndarray:
    words = {"".join(rng.choice(SYLLABLES, size=rng.integers(2, 5))) for _ in range(VOCAB * 2)}
    return np.array(sorted(words)[:VOCAB])


def texts(rng: np.random.Generator, vocab: np.ndarray, n: int) -> list[str]:
    ranks = rng.zipf(1.2, size=n * 80) % len(vocab)
    lengths = rng.integers(40, 121, size=n)
    out, at = [], 0
    words = vocab[ranks]
    for length in lengths:
        if at + length > len(words):
            at = 0
        out.append(" ".join(words[at:at + length]))
        at += length
    return out


def disk_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def rss_mb() -> tuple[float, float]:
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build(size: int, folder: Path, dim: int, seed: int, batch: int, index_after: bool,
          qvecs: np.ndarray | None) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    vocab = vocabulary(rng)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    vectors = MilvusVectorStore(folder / "milvus.db")
    lexical = TantivyLexicalIndex(folder / "lexical", writer_heap_bytes=256_000_000)
    registry = SqlDocumentRegistry(f"sqlite:///{folder / 'registry.db'}")
    vectors.ensure_collection("eagle_text", dim)
    physical = vectors.physical_name("eagle_text")
    client = vectors.client
    fields = frozenset(["id", "vector", "text", "document_id", "kb_name", "path", "chunk_type", "source_type",
                        "source_chunk_id", "ordinal", "metadata"])
    if index_after:
        client.release_collection(physical)
        client.drop_index(physical, "vector")
    seconds = {"generate": 0.0, "vectors": 0.0, "lexical": 0.0, "registry": 0.0, "index": 0.0}
    from datetime import UTC, datetime

    stamp = datetime.fromtimestamp(time.time(), UTC)
    started = time.perf_counter()
    for start in range(0, size, batch):
        t0 = time.perf_counter()
        n = min(batch, size - start)
        batch_texts = texts(rng, vocab, n)
        vecs = rng.standard_normal((n, dim), dtype=np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        chunks = [Chunk(id=f"{start + i:032x}", text=t, document_id=f"d{(start + i) // CHUNKS_PER_DOC:08d}",
                        kb_name="growth", path=f"Section {(start + i) % CHUNKS_PER_DOC}", ordinal=(start + i) % 4)
                  for i, t in enumerate(batch_texts)]
        rows = [ms.chunk_to_row(c, v, (), fields) for c, v in zip(chunks, vecs, strict=True)]
        t1 = time.perf_counter()
        client.insert(physical, rows)
        t2 = time.perf_counter()
        lexical.add(chunks)
        if (start + n) % COMMIT_EVERY == 0 or start + n == size:
            lexical.commit()
        t3 = time.perf_counter()
        docs = sorted({c.document_id for c in chunks})
        registry.upsert_many([DocumentRecord(id=d, kb_name="growth", name=d, source_uri=f"/synthetic/{d}",
                                             content_hash=d, status=DocumentStatus.COMPLETE,
                                             chunk_count=CHUNKS_PER_DOC, tags=(), namespace="default",
                                             created_at=stamp, updated_at=stamp) for d in docs])
        t4 = time.perf_counter()
        for key, value in zip(seconds, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=False):
            seconds[key] += value
    t0 = time.perf_counter()
    client.flush(physical)
    if index_after:
        params = client.prepare_index_params()
        params.add_index(field_name="vector", index_type="HNSW", metric_type="COSINE",
                         params={"params": dict(ms.HNSW_PARAMS)})
        try:
            client.create_index(physical, params, sync=True)
        except MilvusException as exc:  # seen at 100k: Milvus Lite put an index back on its sealed segments
            if "already exists" not in str(exc):
                raise
            index_after = False
        client.load_collection(physical)
    seconds["index"] = time.perf_counter() - t0
    total = time.perf_counter() - started
    queries = [" ".join(vocab[rng.zipf(1.2, size=rng.integers(2, 5)) % 2000]) for _ in range(400)]
    if qvecs is None:
        qvecs = rng.standard_normal((400, dim), dtype=np.float32)
        qvecs /= np.linalg.norm(qvecs, axis=1, keepdims=True)
    return {"size": size, "dim": dim, "batch": batch, "index_after": index_after,
            "seconds": {k: round(v, 2) for k, v in seconds.items()},
            "total_s": round(total, 1), "stores": (vectors, lexical, registry), "queries": queries,
            "qvecs": qvecs}


def real_query_vectors(n: int) -> np.ndarray:
    """``n`` SciFact queries (cycled) encoded by the bundled bge-small, as the search encodes a query."""
    from eagle_rag.engine import Engine
    from eagle_rag.settings import load_settings

    lines = (ROOT.parent / "shared" / "data" / "beir" / "scifact" / "queries.jsonl").read_text().splitlines()
    queries = [json.loads(line)["text"] for line in lines[:n]]
    with tempfile.TemporaryDirectory() as folder, \
            Engine(load_settings(environ={}, overrides={"data_dir": folder})) as engine:
        vecs = np.asarray(engine.encoders.text_encoder("bge-small").encode_queries(queries), dtype=np.float32)
    return np.resize(vecs, (400, vecs.shape[1]))


def latency(stores: tuple[Any, Any, Any], queries: list[str], qvecs: np.ndarray, n: int) -> dict[str, Any]:
    vectors, lexical, registry = stores
    for q, v in zip(queries[:10], qvecs[:10], strict=True):  # warm caches (HNSW load, searcher)
        lexical.search(q, DEPTH)
        vectors.search("eagle_text", v.tolist(), DEPTH)
    out: dict[str, list[float]] = {"bm25": [], "dense": [], "hybrid": []}
    for q, v in zip(queries[10:10 + n], qvecs[10:10 + n], strict=True):
        t0 = time.perf_counter()
        bm25 = lexical.search(q, DEPTH)
        t1 = time.perf_counter()
        dense = vectors.search("eagle_text", v.tolist(), DEPTH)
        t2 = time.perf_counter()
        lists = [ranked([NodeWithScore(h.chunk, h.score, "eagle_text") for h in hits], stage)
                 for hits, stage in ((bm25, "bm25"), (dense, "dense"))]
        fused = merge_rrf(lists, k=60)
        registry.complete_versions([n_.node.document_id for n_ in fused])
        t3 = time.perf_counter()
        out["bm25"].append((t1 - t0) * 1000)
        out["dense"].append((t2 - t1) * 1000)
        out["hybrid"].append((t3 - t0) * 1000)
    return {k: {"p50": round(percentile(sorted(v), 50), 2), "p95": round(percentile(sorted(v), 95), 2)}
            for k, v in out.items()}


def run(size: int, dim: int, queries: int, seed: int, keep: bool, batch: int, index_after: bool,
        qvecs: np.ndarray | None, folder: Path) -> dict[str, Any]:
    before, _ = rss_mb()
    built = build(size, folder, dim, seed, batch, index_after, qvecs)
    vectors, lexical, registry = built.pop("stores")
    lat = latency((vectors, lexical, registry), built.pop("queries"), built.pop("qvecs"), queries)
    rss, peak = rss_mb()
    lexical.close()
    vectors.close()
    registry.close()
    disk = {"milvus_lite": disk_bytes(folder / "milvus.db"), "tantivy": disk_bytes(folder / "lexical"),
            "sqlite": disk_bytes(folder / "registry.db")}
    s = built["seconds"]
    result = {**built, "chunks_per_s": round(size / built["total_s"], 1),
              "store_chunks_per_s": {k: round(size / s[k], 1) for k in ("vectors", "lexical", "registry") if s[k]},
              "disk_mb": {k: round(v / 2**20, 1) for k, v in disk.items()}, "rss_mb": round(rss, 1),
              "peak_rss_mb": round(peak, 1), "rss_before_mb": round(before, 1), "latency_ms": lat}
    if not keep:
        shutil.rmtree(folder, ignore_errors=True)
    return result


def report(results_file: Path, png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = sorted(json.loads(results_file.read_text()).values(), key=lambda r: r["size"])
    sizes = [r["size"] for r in results]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for kind, style in (("bm25", "o-"), ("dense", "s-"), ("hybrid", "^-")):
        axes[0].plot(sizes, [r["latency_ms"][kind]["p50"] for r in results], style, label=f"{kind} p50")
        axes[0].plot(sizes, [r["latency_ms"][kind]["p95"] for r in results], style, alpha=0.35, label=f"{kind} p95")
    axes[0].set(xscale="log", yscale="log", xlabel="chunks", ylabel="ms", title="search latency (top 50)")
    for store in ("milvus_lite", "tantivy", "sqlite"):
        axes[1].plot(sizes, [r["disk_mb"][store] for r in results], "o-", label=store)
    axes[1].plot(sizes, [r["peak_rss_mb"] for r in results], "k--", label="peak RSS")
    axes[1].set(xscale="log", yscale="log", xlabel="chunks", ylabel="MB", title="disk and memory")
    axes[2].plot(sizes, [r["chunks_per_s"] for r in results], "o-", label="all stores")
    for store in ("vectors", "lexical"):
        axes[2].plot(sizes, [r["store_chunks_per_s"][store] for r in results], "s--", label=store)
    axes[2].set(xscale="log", xlabel="chunks", ylabel="chunks/s", title="ingest rate (no encoder)")
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Eagle-RAG growth: Milvus Lite + tantivy + SQLite on 2 shared cores "
                 f"(dim {results[0]['dim']} vectors)")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print("| chunks | ingest chunks/s (vectors / lexical / all) | disk MB (Milvus Lite / tantivy / SQLite) "
          "| RSS / peak MB | bm25 p50 / p95 ms | dense p50 / p95 ms | hybrid p50 / p95 ms |")
    print("|---:|---|---|---|---|---|---|")
    for r in results:
        lat, d, s = r["latency_ms"], r["disk_mb"], r["store_chunks_per_s"]
        print(f"| {r['size']:,} | {s['vectors']:,.0f} / {s['lexical']:,.0f} / {r['chunks_per_s']:,.0f} "
              f"| {d['milvus_lite']:,} / {d['tantivy']:,} / {d['sqlite']:,} "
              f"| {r['rss_mb']:,.0f} / {r['peak_rss_mb']:,.0f} | "
              + " | ".join(f"{lat[k]['p50']} / {lat[k]['p95']}" for k in ("bm25", "dense", "hybrid")) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--dim", type=int, default=64, help="vector dimension without --real-queries")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--batch", type=int, default=20_000, help="rows an insert call (and a registry transaction)")
    parser.add_argument("--index-after", action="store_true", help="build the vector index after loading")
    parser.add_argument("--real-queries", action="store_true", help="query vectors from bge-small (dim 384)")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--folder", type=Path, default=ROOT / "bench" / "results",
                        help="where the index folders are built")
    parser.add_argument("--keep", action="store_true", help="keep the index folders")
    parser.add_argument("--report", action="store_true", help="only plot and print the table")
    parser.add_argument("--png", type=Path, default=ROOT / "bench" / "growth.png", help="where --report plots")
    args = parser.parse_args()
    if args.report:
        report(args.results, args.png)
        return
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    qvecs = real_query_vectors(args.queries) if args.real_queries else None
    dim = qvecs.shape[1] if qvecs is not None else args.dim
    for size in args.sizes:
        result = run(size, dim, args.queries, args.seed, args.keep, args.batch, args.index_after, qvecs,
                     args.folder / f"growth-{size}")
        result["real_queries"] = qvecs is not None
        saved = json.loads(args.results.read_text()) if args.results.is_file() else {}
        saved[str(size)] = result
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(json.dumps(saved, indent=2))
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()

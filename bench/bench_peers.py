"""Side by side on SciFact: Eagle-RAG's pipelines, Milvus Lite's native hybrid_search and bm25s.

    /tmp/venv/bin/python bench/bench_peers.py [--beir ../shared/data/beir/scifact] [--data-dir DIR]
        [--queries 300] [--full-queries 100] [--json bench/results/peers.json]

All systems see the same chunks and, where dense, the same bge-small vectors: the corpus is embedded
once (by the Eagle-RAG ingest of ``--data-dir``, built when missing) and the vectors are read back
from its Milvus collection and cached as ``.npy`` next to the index; query vectors are cached too.

Rows: Eagle-RAG ``bm25`` (tantivy, and the Milvus BM25 backend through the same engine), ``dense``,
``hybrid`` and ``full`` (cross-encoder; ``--full-queries`` only, a fixed subsample); the Milvus BM25
backend again with its rows spread over 10 flushed segments (the per-segment statistics caveat);
Milvus Lite's own ``hybrid_search`` (dense + its BM25 function, RRFRanker(60)) once with Milvus's
standard analyzer on the raw text ("native") and once fed our analyzer's terms; bm25s alone (its
own tokenizer, English stop words and stemmer, one entry per chunk). nDCG@10 by ranx against the
qrels (chunk hits folded to their SciFact document); latency p50 per query, query embedding
included for dense rows; ratio = p50 / Eagle-RAG hybrid p50.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
import Stemmer
from ranx import Qrels, Run, evaluate

from eagle_rag.analysis import analyze
from eagle_rag.engine import Engine
from eagle_rag.evaluation import beir
from eagle_rag.protocols import ScoredId
from eagle_rag.settings import load_settings
from eagle_rag.stores import milvus_schema as ms
from eagle_rag.stores.milvus import MilvusVectorStore
from eagle_rag.stores.milvus_lexical import MilvusLexicalIndex, create_bm25_collection, encode_terms, hybrid_search
from eagle_rag.types import Chunk, SearchMode

ROOT = Path(__file__).resolve().parents[1]
DEPTH = 100


def corpus_chunks(engine: Engine, cache: Path) -> tuple[list[Chunk], np.ndarray]:
    """Every chunk of the index with its stored vector (cached as chunks.jsonl + vectors.npy)."""
    if not (cache / "vectors.npy").is_file():
        rows = list(ms.iterate(engine.vectors.client, "eagle_text", "", ["*"]))
        rows.sort(key=lambda r: str(r["id"]))
        with (cache / "chunks.jsonl").open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps({k: v for k, v in row.items() if k != "vector"}, ensure_ascii=False) + "\n")
        np.save(cache / "vectors.npy", np.asarray([r["vector"] for r in rows], dtype=np.float32))
    with (cache / "chunks.jsonl").open(encoding="utf-8") as fh:
        chunks = [ms.row_to_chunk(json.loads(line)) for line in fh]
    return chunks, np.load(cache / "vectors.npy")


def query_vectors(engine: Engine, queries: dict[str, str], cache: Path) -> dict[str, np.ndarray]:
    path = cache / "query_vectors.npz"
    if not path.is_file():
        encoder = engine.encoders.get_encoder("bge-small")
        ids = list(queries)
        vecs = encoder.encode_queries([queries[q] for q in ids])
        np.savez(path, **{q: np.asarray(v, dtype=np.float32) for q, v in zip(ids, vecs, strict=True)})
    loaded = np.load(path)
    return {q: loaded[q] for q in queries}


def score(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> float:
    run = {q: (hits or {"__none__": 0.0}) for q, hits in run.items()}
    return float(evaluate(Qrels(qrels), Run(run), "ndcg@10", make_comparable=True))


def fold(hits: list[ScoredId]) -> dict[str, float]:
    """Chunk hits -> {SciFact document id: rank score}, best chunk per document."""
    out: dict[str, float] = {}
    for rank, hit in enumerate(hits):
        out.setdefault(str(hit.chunk.metadata.get("record_id", hit.chunk.document_id)), float(DEPTH - rank))
    return out


def timed(queries: dict[str, str],
          search: Callable[[str, str], dict[str, float]]) -> tuple[dict[str, Any], list[float]]:
    run, times = {}, []
    for qid, text in queries.items():
        started = time.perf_counter()
        run[qid] = search(qid, text)
        times.append((time.perf_counter() - started) * 1000)
    return run, sorted(times)


def native_collection(client: Any, name: str, chunks: list[Chunk], vectors: np.ndarray, ours: bool) -> None:
    if client.has_collection(name):
        return
    create_bm25_collection(client, name, dim=vectors.shape[1])
    rows = []
    for chunk, vector in zip(chunks, vectors, strict=True):
        row = ms.chunk_to_row(chunk, [float(x) for x in vector], (), frozenset({*ms.OUTPUT_FIELDS, "vector"}))
        raw = f"{chunk.metadata.get('document_name', '')}\n{chunk.text}"
        row["terms"] = encode_terms(analyze(chunk.text)) if ours else raw
        rows.append(row)
    for start in range(0, len(rows), 512):
        client.insert(name, rows[start:start + 512])
    client.flush(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", type=Path, default=ROOT.parent / "shared" / "data" / "beir" / "scifact")
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--full-queries", type=int, default=100)
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "peers.json")
    parser.add_argument("--reuse", action="store_true", help="keep rows already in --json (resume a run)")
    args = parser.parse_args()
    data = beir.load_beir(args.beir, "test", args.queries)
    data_dir = args.data_dir or ROOT / "bench" / "results" / f"scifact-{beir.corpus_fingerprint(data.corpus_path)}"
    rows: dict[str, dict[str, Any]] = {}
    if args.reuse and args.json.is_file():
        rows = json.loads(args.json.read_text())["rows"]

    def save() -> None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"queries": len(data.queries), "rows": rows}, indent=2))

    def record(name: str, run: dict[str, Any], times: list[float], qrels: dict[str, Any] = data.qrels) -> None:
        rows[name] = {"ndcg@10": round(score(qrels, run), 4), "p50_ms": round(beir.percentile(times, 50), 2),
                      "p95_ms": round(beir.percentile(times, 95), 2), "queries": len(times)}
        print(f"{name:<34} nDCG@10 {rows[name]['ndcg@10']:.4f}  p50 {rows[name]['p50_ms']:7.1f} ms", flush=True)
        save()

    with Engine(load_settings(overrides={"profile": "general", "data_dir": str(data_dir)})) as engine:
        beir.ensure_index(engine, data)
        chunks, vectors = corpus_chunks(engine, data_dir)
        qvecs = query_vectors(engine, data.queries, data_dir)
        encoder = engine.encoders.get_encoder("bge-small")
        encoder.encode_queries(["warm up"])
        started = time.perf_counter()
        for text in list(data.queries.values())[:50]:
            encoder.encode_queries([text])
        embed_ms = (time.perf_counter() - started) * 1000 / min(50, len(data.queries))
        for mode in (SearchMode.BM25, SearchMode.DENSE, SearchMode.HYBRID):
            if f"eagle-rag {mode.value}" not in rows:
                result = beir.run_pipeline(engine, data, mode)
                rows[f"eagle-rag {mode.value}"] = {**result.to_dict(), "p50_ms": result.to_dict()["latency_ms"]["p50"]}
                print(f"eagle-rag {mode.value:<24} nDCG@10 {result.metrics['ndcg@10']:.4f}", flush=True)
                save()
        subset_ids = sorted(random.Random(13).sample(list(data.queries), min(args.full_queries, len(data.queries))))
        subset = beir.BeirData(data.root, {q: data.queries[q] for q in subset_ids},
                               {q: data.qrels[q] for q in subset_ids}, data.corpus_path, data.corpus_docs)
        for mode in (SearchMode.HYBRID, SearchMode.FULL):
            if f"eagle-rag {mode.value} (subset {len(subset_ids)})" not in rows:
                result = beir.run_pipeline(engine, subset, mode)
                rows[f"eagle-rag {mode.value} (subset {len(subset_ids)})"] = {
                    **result.to_dict(), "p50_ms": result.to_dict()["latency_ms"]["p50"]}
                print(f"eagle-rag {mode.value} subset            nDCG@10 {result.metrics['ndcg@10']:.4f}", flush=True)
                save()
        lexical = MilvusLexicalIndex(engine.vectors, "eagle_text")
        if not lexical.exists():
            lexical.add(chunks)
            lexical.commit()
    settings = load_settings(environ={"EAGLE_RAG_LEXICAL__BACKEND": "milvus"},
                             overrides={"profile": "general", "data_dir": str(data_dir)})
    with Engine(settings) as engine:
        result = beir.run_pipeline(engine, data, SearchMode.BM25)
        rows["eagle-rag bm25 (milvus backend)"] = {**result.to_dict(), "p50_ms": result.to_dict()["latency_ms"]["p50"]}
        print(f"eagle-rag bm25 milvus backend     nDCG@10 {result.metrics['ndcg@10']:.4f}", flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        store = MilvusVectorStore(Path(tmp) / "peers.db")
        segmented = MilvusLexicalIndex(store, "segmented")
        for part in np.array_split(np.arange(len(chunks)), 10):  # 10 flushed segments
            segmented.add([chunks[i] for i in part])
            segmented.commit()
            store.client.flush(segmented.name)
        run, times = timed(data.queries, lambda q, text: fold(segmented.search(text, DEPTH)))
        record("milvus bm25 backend, 10 segments", run, times)
        client = store.client
        for ours in (False, True):
            name = "native_ours" if ours else "native_raw"
            native_collection(client, name, chunks, vectors, ours)
            label = "ours" if ours else "native"

            def sparse(text: str, ours: bool = ours) -> str:
                return encode_terms(list(dict.fromkeys(analyze(text)))) if ours else text

            run, times = timed(data.queries, lambda q, text, n=name, s=sparse: fold(
                hybrid_search(client, n, qvecs[q].tolist(), s(text), DEPTH)))
            record(f"milvus hybrid_search ({label} BM25)", run, [t + embed_ms for t in times])

            def bm25_only(q: str, text: str, n: str = name, s: Callable[[str], str] = sparse) -> dict[str, float]:
                res = client.search(n, data=[s(text)], anns_field="sparse", limit=DEPTH,
                                    output_fields=["metadata", "document_id"], search_params={"metric_type": "BM25"})
                return fold([ScoredId(str(h["id"]), 0.0, ms.row_to_chunk({**h["entity"], "id": h["id"]}))
                             for h in res[0]])

            run, times = timed(data.queries, bm25_only)
            record(f"milvus BM25 function ({label} analyzer)", run, times)
        store.close()
        shutil.rmtree(Path(tmp) / "peers.db", ignore_errors=True)

    stemmer = Stemmer.Stemmer("english")
    texts = [f"{c.metadata.get('document_name', '')}\n{c.text}" for c in chunks]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    records = [str(c.metadata.get("record_id", c.document_id)) for c in chunks]

    def bm25s_search(q: str, text: str) -> dict[str, float]:
        docs, _ = retriever.retrieve(bm25s.tokenize([text], stopwords="en", stemmer=stemmer, show_progress=False),
                                     k=DEPTH, show_progress=False)
        out: dict[str, float] = {}
        for rank, index in enumerate(docs[0]):
            out.setdefault(records[int(index)], float(DEPTH - rank))
        return out

    run, times = timed(data.queries, bm25s_search)
    record("bm25s alone", run, times)
    base = rows["eagle-rag hybrid"]["p50_ms"]
    print(f"\n{'system':<42} {'nDCG@10':>8} {'p50 ms':>8} {'ratio':>7}")
    for name, row in rows.items():
        row["latency_ratio_vs_eagle_hybrid"] = round(row["p50_ms"] / base, 3)
        print(f"{name:<42} {row['ndcg@10']:>8.4f} {row['p50_ms']:>8.1f} {row['latency_ratio_vs_eagle_hybrid']:>7.2f}")
    print(f"query embedding (bge-small INT8): {embed_ms:.1f} ms, included in the Milvus hybrid rows")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"queries": len(data.queries), "full_subset": len(subset_ids), "rows": rows,
                                     "query_embedding_ms": round(embed_ms, 2)}, indent=2))
    sys.exit(0)


if __name__ == "__main__":
    main()

"""SciFact benchmark: search latency per pipeline, ingest rate against the raw encoder, peak RSS.

    .venv/bin/python bench/bench_scifact.py [--beir ../shared/data/beir/scifact] [--docs 500]
        [--queries 300] [--data-dir DIR]

1. Ingest throughput: the first ``--docs`` SciFact abstracts are encoded by the raw bge-small
   encoder (passages/s), then ingested by the full pipeline into a fresh data dir (documents/s:
   parse, chunk, classify, embed, Milvus Lite + tantivy + SQLite writes). Both run in this
   process on the same texts; the ratio pipeline/raw shows what the pipeline adds.
2. Search latency: the whole corpus is indexed (re-used when present) and each pipeline runs
   ``--queries`` test queries; medians and 95th percentiles are printed.
3. Peak RSS of this process.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

from eagle_rag.engine import Engine
from eagle_rag.evaluation.beir import corpus_fingerprint, ensure_index, load_beir, percentile
from eagle_rag.ingest.chunker import chunk_document
from eagle_rag.ingest.orchestrator import embed_input
from eagle_rag.ingest.parsers import parse_beir
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchMode, SearchRequest

ROOT = Path(__file__).resolve().parents[1]


def ingest_ratio(corpus: Path, n_docs: int) -> dict[str, float]:
    lines = [line for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()][:n_docs]
    with tempfile.TemporaryDirectory() as tmp:
        sample = Path(tmp) / "corpus.jsonl"
        sample.write_text("\n".join(lines) + "\n", encoding="utf-8")
        docs = parse_beir(sample, sample.read_bytes(), "bench")
        texts = [embed_input(c) for d in docs for c in chunk_document(d)]
        settings = load_settings(overrides={"profile": "general", "data_dir": str(Path(tmp) / "data")})
        with Engine(settings) as engine:
            encoder = engine.encoders.get_encoder("bge-small")
            encoder.encode_passages(texts[:8])  # load the model outside the timed region
            t0 = time.perf_counter()
            step = settings.encoders.batch_size
            for i in range(0, len(texts), step):
                encoder.encode_passages(texts[i:i + step])
            raw_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            report = engine.ingest([sample], kb_name="bench")
            pipe_s = time.perf_counter() - t0
    raw_rate = len(texts) / raw_s
    pipe_rate = report.chunks / pipe_s
    return {"documents": report.documents, "chunks": report.chunks,
            "raw_passages_per_s": raw_rate, "pipeline_chunks_per_s": pipe_rate,
            "pipeline_docs_per_s": report.documents / pipe_s, "ratio": pipe_rate / raw_rate}


def latency(engine: Engine, queries: list[str], mode: SearchMode, top_k: int = 10) -> dict[str, float]:
    times = []
    for q in queries:
        t0 = time.perf_counter()
        engine.search(SearchRequest(query=q, top_k=top_k, mode=mode, kb_names=("beir",)))
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return {"p50": percentile(times, 50), "p95": percentile(times, 95), "mean": statistics.fmean(times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", type=Path, default=ROOT.parent / "shared" / "data" / "beir" / "scifact")
    parser.add_argument("--docs", type=int, default=500)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    data = load_beir(args.beir, "test", args.queries)
    out: dict[str, object] = {"ingest": ingest_ratio(data.corpus_path, args.docs)}
    data_dir = args.data_dir or ROOT / "bench" / "results" / f"scifact-{corpus_fingerprint(data.corpus_path)}"
    settings = load_settings(overrides={"profile": "general", "data_dir": str(data_dir)})
    with Engine(settings) as engine:
        ensure_index(engine, data)
        queries = list(data.queries.values())
        latency(engine, queries[:5], SearchMode.HYBRID)  # warm the models
        out["latency_ms"] = {m.value: latency(engine, queries, m) for m in
                             (SearchMode.BM25, SearchMode.DENSE, SearchMode.HYBRID, SearchMode.FULL)}
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ing = out["ingest"]
    assert isinstance(ing, dict)
    print(f"ingest ({ing['documents']} docs, {ing['chunks']} chunks): raw encoder "
          f"{ing['raw_passages_per_s']:.1f} passages/s, pipeline {ing['pipeline_chunks_per_s']:.1f} chunks/s "
          f"({ing['pipeline_docs_per_s']:.1f} docs/s), ratio {ing['ratio']:.3f}")
    print(f"{'pipeline':<8} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8}")
    for mode, lat in out["latency_ms"].items():  # type: ignore[attr-defined]
        print(f"{mode:<8} {lat['p50']:>8.1f} {lat['p95']:>8.1f} {lat['mean']:>8.1f}")
    print(f"peak RSS {out['peak_rss_mb']:.0f} MB")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

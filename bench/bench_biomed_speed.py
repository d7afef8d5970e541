"""Speed of the biomed profile as ratios, in one run (absolute times on a shared machine are noise).

    .venv/bin/python bench/bench_biomed_speed.py [--beir ../shared/data/beir/scifact] [--docs 1000]
        [--queries 100] [--json OUT] [--options JSON]

On the first ``--docs`` SciFact abstracts and the first ``--queries`` train claims:

1. **query**: biomed ``full`` p50 / core ``hybrid`` p50, each engine warmed up first
   (``Engine.warm_up``, as ``eagle-rag serve`` does);
2. **first query**: the first query of a fresh process / the median of the next ones, measured in a
   child process on the biomed index, once as a CLI query sees it (no warm-up) and once as a served
   query does (warm-up first, not counted);
3. **ingest**: biomed ingest documents/s (parse, chunk, enrich, route, embed chunks and sentence rows,
   ColBERT token vectors, every store) / raw bge-small passages/s on the chunk texts of the same
   documents;
4. **quality**: not re-measured here (it needs the whole corpus); the command that measures the
   SciFact test nDCG@10 of the biomed full pipeline is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from eagle_rag.engine import Engine
from eagle_rag.evaluation.beir import load_beir, percentile
from eagle_rag.ingest.chunker import chunk_document
from eagle_rag.ingest.dispatch import embed_input
from eagle_rag.ingest.parsers import parse_beir
from eagle_rag.settings import Settings, load_settings
from eagle_rag.types import SearchMode, SearchRequest

ROOT = Path(__file__).resolve().parents[1]
KB = "speed"
QUALITY = ("EAGLE_RAG_PROFILE=biomed .venv/bin/python bench/bench_biomed_scifact.py ablation --beir "
           "../shared/data/beir/scifact --data-dir DIR --split test --only \"+ late interaction\"")


def note(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def settings_for(data_dir: Path, biomed: bool, variant: dict[str, Any] | None = None) -> Settings:
    """The core or biomed profile over ``data_dir``; ``variant`` (biomed only) overlays settings, e.g.
    ``{"plugins": {"options": {"biomed": {...}}}, "ingest": {...}}`` (``--options``)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
    environ["EAGLE_RAG_PROFILE"] = "biomed" if biomed else "general"
    return load_settings(environ=environ, overrides={**((variant or {}) if biomed else {}), "data_dir": str(data_dir)})


def raw_rate(engine: Engine, sample: Path) -> tuple[int, float]:
    """(passages, passages/s) of the raw bge-small encoder over the chunk texts of ``sample``."""
    texts = [embed_input(c) for d in parse_beir(sample, sample.read_bytes(), KB) for c in chunk_document(d)]
    encoder = engine.encoders.text_encoder("bge-small")
    encoder.encode_passages(texts[:8])  # load outside the timed region
    step = engine.settings.encoders.batch_size
    started = time.perf_counter()
    for i in range(0, len(texts), step):
        encoder.encode_passages(texts[i:i + step])
    return len(texts), len(texts) / (time.perf_counter() - started)


def times_ms(engine: Engine, queries: list[str], mode: SearchMode,
             stages: dict[str, list[float]] | None = None) -> list[float]:
    """Wall time of each query (ms); the pipeline's own stage timings are added to ``stages``."""
    out = []
    for query in queries:
        started = time.perf_counter()
        response = engine.search(SearchRequest(query=query, top_k=10, mode=mode, kb_names=(KB,)))
        out.append((time.perf_counter() - started) * 1000)
        if stages is not None:
            for stage, ms in response.timings_ms.items():
                stages.setdefault(stage, []).append(ms)
    return out


def first_query(data_dir: Path, queries: list[str], warm: bool, variant: dict[str, Any]) -> dict[str, float]:
    """In a fresh child process: the first full query, and the median of the next ones (ms)."""
    code = ("import json, sys; sys.path.insert(0, 'bench'); import bench_biomed_speed as b; "
            f"print(json.dumps(b.child({str(data_dir)!r}, {queries!r}, {warm!r}, {variant!r})))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def child(data_dir: str, queries: list[str], warm: bool, variant: dict[str, Any]) -> dict[str, float]:
    with Engine(settings_for(Path(data_dir), biomed=True, variant=variant)) as engine:
        if warm:
            engine.warm_up()
        first, *rest = times_ms(engine, queries, SearchMode.FULL)
    median = statistics.median(rest)
    return {"first_ms": first, "median_ms": median, "ratio": first / median}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", type=Path, default=ROOT.parent / "shared" / "data" / "beir" / "scifact")
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--first-queries", type=int, default=6, help="queries of each fresh child process")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--options", default="", help="settings overrides of the biomed engine as JSON, e.g. "
                        '\'{"ingest": {"token_vector_collections": []}}\' (a variant against the defaults)')
    args = parser.parse_args()
    variant: dict[str, Any] = json.loads(args.options) if args.options else {}

    queries = list(load_beir(args.beir, "train", args.queries).queries.values())[: args.queries]
    lines = [line for line in (args.beir / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
             if line.strip()][: args.docs]
    out: dict[str, Any] = {"docs": len(lines), "queries": len(queries)}
    with tempfile.TemporaryDirectory() as tmp:
        sample = Path(tmp) / "corpus.jsonl"
        sample.write_text("\n".join(lines) + "\n", encoding="utf-8")
        with Engine(settings_for(Path(tmp) / "core", biomed=False)) as core:
            passages, rate = raw_rate(core, sample)
            note(f"raw bge-small: {passages} passages, {rate:.1f}/s")
            core.ingest([sample], kb_name=KB)
            core.warm_up()
            core_p50 = percentile(sorted(times_ms(core, queries, SearchMode.HYBRID)), 50)
            note(f"core hybrid p50 {core_p50:.0f} ms")
        with Engine(settings_for(Path(tmp) / "biomed", biomed=True, variant=variant)) as biomed:
            started = time.perf_counter()
            report = biomed.ingest([sample], kb_name=KB)
            ingest_s = time.perf_counter() - started
            note(f"biomed ingest: {report.documents} documents in {ingest_s:.0f} s")
            biomed.warm_up()
            stages: dict[str, list[float]] = {}
            full = sorted(times_ms(biomed, queries, SearchMode.FULL, stages))
            note(f"biomed full p50 {percentile(full, 50):.0f} ms")
        out["ingest"] = {"raw_passages": passages, "raw_passages_per_s": rate, "documents": report.documents,
                         "chunks": report.chunks, "docs_per_s": report.documents / ingest_s,
                         "ratio": report.documents / ingest_s / rate}
        out["query"] = {"core_hybrid_p50_ms": core_p50, "biomed_full_p50_ms": percentile(full, 50),
                        "biomed_full_p95_ms": percentile(full, 95), "ratio": percentile(full, 50) / core_p50,
                        "biomed_full_stage_p50_ms": {k: statistics.median(v) for k, v in stages.items()}}
        probe = queries[: args.first_queries]
        out["first_query"] = {"cold": first_query(Path(tmp) / "biomed", probe, False, variant),
                              "warmed": first_query(Path(tmp) / "biomed", probe, True, variant)}
    q, f, i = out["query"], out["first_query"], out["ingest"]
    print(f"{len(lines)} SciFact documents, {len(queries)} train claims")
    print(f"1. biomed full p50 / core hybrid p50: {q['biomed_full_p50_ms']:.0f} / {q['core_hybrid_p50_ms']:.0f} ms "
          f"= {q['ratio']:.1f}x (biomed full p95 {q['biomed_full_p95_ms']:.0f} ms)")
    print("   biomed full, median ms per stage: "
          + ", ".join(f"{k} {v:.0f}" for k, v in q["biomed_full_stage_p50_ms"].items()))
    for kind in ("cold", "warmed"):
        print(f"2. first query / median, fresh process, {kind}: {f[kind]['first_ms']:.0f} / "
              f"{f[kind]['median_ms']:.0f} ms = {f[kind]['ratio']:.1f}x")
    print(f"3. biomed ingest docs/s / raw bge-small passages/s: {i['docs_per_s']:.2f} / "
          f"{i['raw_passages_per_s']:.1f} = {i['ratio']:.2f} ({i['documents']} docs, {i['chunks']} chunks)")
    print(f"4. SciFact test nDCG@10 of the biomed full pipeline: {QUALITY}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

"""The Ray executor against the local ingest on the same SciFact abstracts; the embed actor against the raw encoder.

    nice -n 10 .venv/bin/python bench/bench_ray_ingest.py --docs 2000 [--actor-docs 300] \
        [--biomed-docs 100] [--json bench/results/ray_ingest.json]

1. Ingest of the first ``--docs`` SciFact abstracts (biomed profile: document router, enrichment,
   bge-small INT8 chunk vectors; sentence rows and token vectors off, ``CHUNKS_ONLY``), each run into a
   fresh data folder: the local ingest, then ``--executor ray`` with 1 and with 2 embed
   actors on a local Ray of 2 CPUs (``ray.init(num_cpus=2)``, started once, before the first Ray
   run and not timed). Documents/s, the ratio to the local run, and the CPU seconds a document costs:
   this process's CPU time plus that of every Ray worker process (``/proc/<pid>/stat``, sampled every
   0.5 s while the run lasts, so a worker that exits loses at most its last half second). Each Ray
   run's stores are compared with the local run's (:mod:`eagle_rag.testing.ingest_compare`: documents,
   chunk ids, texts, vectors at cosine >= 0.9999); ``differences`` lists what differs (empty: none).
2. The embed actor's rate against the raw encoder's, in this process on the first ``--actor-docs``
   abstracts: the documents are read and prepared by the Ray stages (not timed), then the same chunks
   are embedded by ``EmbedActor`` (unpickling, grouping by collection and encoder, the EMBED hook,
   pickling the batch) and by ``encode_passages`` of the encoder alone, in batches of
   ``encoders.batch_size``, the process's passage memo emptied before each (it would serve every text
   the second time). ``--actor-only`` measures this part again into an existing ``--json`` file.
   Chunks/s of each and the ratio: what the pipeline costs on top of the model.
3. Bytes a row costs on disk, from the local run's data folder (Milvus Lite, tantivy, SQLite registry)
   and, with the biomed profile on ``--biomed-docs`` abstracts, the sentence rows a chunk has and the
   bytes of its late-interaction token vectors; docs/scale.md computes its sizing from these.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from eagle_rag.encoders.memo import PASSAGE_MEMO
from eagle_rag.engine import Engine
from eagle_rag.ingest.executors import Executor, RayOptions
from eagle_rag.ingest.ray_stages import EmbedActor, prepare_rows, read_file_rows, rows_batch
from eagle_rag.settings import load_settings
from eagle_rag.testing.ingest_compare import Snapshot, differences, snapshot

ROOT = Path(__file__).resolve().parents[1]
SCIFACT = ROOT.parent / "shared" / "data" / "beir" / "scifact" / "corpus.jsonl"
TICKS = os.sysconf("SC_CLK_TCK")
CHUNKS_ONLY = {"profile": "biomed", "ingest": {"sentence_collections": [], "token_vector_collections": []}}


def ray_cpu_seconds() -> dict[int, float]:
    """CPU seconds (user + system) of every live Ray worker process, by pid."""
    out: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if not (entry / "cmdline").read_bytes().startswith(b"ray::"):
                continue
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(entry.name)] = (int(fields[11]) + int(fields[12])) / TICKS
    return out


class CpuSampler:
    """The CPU seconds Ray workers spent during a run (the largest value seen of each pid, less what it
    had spent before), sampled every 0.5 s in a thread."""

    def __init__(self) -> None:
        self.before = ray_cpu_seconds()
        self.seen: dict[int, float] = dict(self.before)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            self._sample()

    def _sample(self) -> None:
        for pid, seconds in ray_cpu_seconds().items():
            self.seen[pid] = max(self.seen.get(pid, 0.0), seconds)

    def stop(self) -> float:
        self._sample()
        self._stop.set()
        self._thread.join()
        return sum(seconds - self.before.get(pid, 0.0) for pid, seconds in self.seen.items())


def corpus(folder: Path, docs: int) -> Path:
    path = folder / f"scifact_{docs}.jsonl"
    with SCIFACT.open(encoding="utf-8") as source:
        path.write_text("".join(line for _, line in zip(range(docs), source, strict=False)), encoding="utf-8")
    return path


def folder_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def ingest_run(folder: Path, path: Path, executor: Executor, options: RayOptions | None = None,
               against: Snapshot | None = None, **overrides: Any) -> dict[str, Any]:
    """One ingest into ``folder``: rates, CPU, bytes, and its stores (``"snapshot"``); with ``against``,
    what its stores hold otherwise (``"differences"``, :func:`eagle_rag.testing.ingest_compare.differences`)."""
    settings = load_settings(environ={}, overrides={"data_dir": str(folder), **overrides})
    with Engine(settings) as engine:
        sampler = CpuSampler() if executor is Executor.RAY else None
        cpu, started = time.process_time(), time.perf_counter()
        report = engine.ingest([path], kb_name="bench", executor=executor, ray=options)
        seconds = time.perf_counter() - started
        cpu = time.process_time() - cpu + (sampler.stop() if sampler else 0.0)
        assert not report.any_failed, report.to_dict()
        out = {"documents": report.documents, "chunks": report.chunks, "seconds": round(seconds, 2),
               "docs_per_s": round(report.documents / seconds, 2), "cpu_s": round(cpu, 1),
               "cpu_s_per_doc": round(cpu / report.documents, 3)}
        out["snapshot"] = snapshot(engine)
        if against is not None:
            out["differences"] = differences(out["snapshot"], against)
        if engine.settings.ingest.sentence_collections:
            from eagle_rag.ingest.sentences import sentence_collection

            out["sentence_rows"] = sum(engine.vectors.count(sentence_collection(c))
                                       for c in engine.settings.ingest.sentence_collections
                                       if engine.vectors.has_collection(sentence_collection(c)))
    data = settings.data_path
    out["bytes"] = {"milvus": folder_bytes(Path(settings.milvus_uri)) if settings.milvus_uri.endswith(".db") else 0,
                    "lexical": folder_bytes(settings.lexical_path),
                    "registry": folder_bytes(data / "registry.db") if (data / "registry.db").exists() else 0,
                    "token_vectors": sum(folder_bytes(p) for p in data.glob("token_vectors*"))}
    return out


def actor_against_encoder(folder: Path, path: Path, docs: int) -> dict[str, Any]:
    """Chunks/s of EmbedActor and of the raw encoder on the same prepared chunks (item 2)."""
    settings = load_settings(environ={}, overrides={"data_dir": str(folder), **CHUNKS_ONLY})
    rows = list(read_file_rows({"file": 0, "path": str(path)}, settings=settings, kb_name="bench", limit=None,
                               dry_run=False))[:docs]
    step = 256
    batches = [prepare_rows(rows_batch(rows[i:i + step]), settings=settings, dry_run=False)
               for i in range(0, len(rows), step)]
    actor = EmbedActor(settings)
    actor(batches[0])  # loads the encoders; measured again below
    PASSAGE_MEMO.clear()  # the process's memo of passage vectors would serve every text again
    started = time.perf_counter()
    outputs = [actor(batch) for batch in batches]
    actor_s = time.perf_counter() - started
    import pickle

    from eagle_rag.ingest.dispatch import embed_input

    chunks = []
    for out in outputs:
        for kind, payload in zip(out["kind"], out["payload"], strict=True):
            if kind == "batch":
                _, prepared, _ = pickle.loads(payload)
                chunks.extend((decision.encoder, chunk) for p in prepared for chunk, decision in p.items)
    encoders = actor.engine.encoders
    size = settings.encoders.batch_size
    PASSAGE_MEMO.clear()
    started = time.perf_counter()
    for label in dict.fromkeys(label for label, _ in chunks):
        texts = [embed_input(c) for lab, c in chunks if lab == label]
        encoder = encoders.text_encoder(label)
        for i in range(0, len(texts), size):
            encoder.encode_passages(texts[i:i + size])
    raw_s = time.perf_counter() - started
    return {"documents": docs, "chunks": len(chunks), "actor_chunks_per_s": round(len(chunks) / actor_s, 2),
            "encoder_chunks_per_s": round(len(chunks) / raw_s, 2), "actor_to_encoder": round(raw_s / actor_s, 3)}


CORPORA = {"PubMed baseline": 36_000_000, "lab corpus": 1_000_000}
DIM, VECTOR_BYTES = 384, 384 * 4
INDEX_RAM = {
    # bytes a row in memory: the vector index alone (ids and scalar fields apart)
    "HNSW (M 16)": VECTOR_BYTES + 2 * 16 * 4 * 17 // 16,  # raw vector + level-0 links (2M) and ~1/M above
    "IVF_SQ8": DIM + 8,  # one byte a dimension + the row id in its list
    "DISKANN": VECTOR_BYTES // 8 + (VECTOR_BYTES + 56 * 4) // 10,  # PQ codes (0.125) + node cache (0.1)
}
DISKANN_DISK = VECTOR_BYTES + 56 * 4  # raw vector + max_degree 56 links, on SSD
GPU_CHUNKS_PER_S = 2000
"""An assumption, not a measurement (no GPU here): bge-small passages a second on one data-centre GPU."""


def duration(seconds: float) -> str:
    """``12.3 h``, or minutes under an hour."""
    return f"{seconds / 3600:,.1f} h" if seconds >= 3600 else f"{seconds / 60:,.0f} min"


def sizing(results: dict[str, Any], cores: tuple[int, ...] = (16, 64, 256), gpus: tuple[int, ...] = (1, 8)) -> str:
    """The tables of docs/scale.md, computed from a results file of this bench (markdown)."""
    local, bio = results["local"], results["biomed_local"]
    chunks_per_doc = local["chunks"] / local["documents"]
    sentences_per_chunk = bio["sentence_rows"] / bio["chunks"]
    token_bytes = bio["bytes"]["token_vectors"] / max(1, bio["token_vector_chunks"])
    lite_bytes = local["bytes"]["milvus"] / local["chunks"]
    lexical_bytes = local["bytes"]["lexical"] / local["chunks"]
    cpu_chunks, cpu_full = local["cpu_s_per_doc"], bio["cpu_s_per_doc"]
    lines = [f"Measured: {chunks_per_doc:.3f} chunks a document, {sentences_per_chunk:.2f} sentence rows a chunk, "
             f"{token_bytes / 1024:.1f} KiB of token vectors a chunk, {lite_bytes:.0f} B a chunk row in Milvus Lite "
             f"(vector, text, fields, index), {lexical_bytes:.0f} B a chunk in tantivy, {cpu_chunks:.3f} CPU s a "
             f"document (chunk vectors only), {cpu_full:.3f} CPU s a document (sentence rows and token vectors too).",
             "", "| corpus | documents | chunk rows | sentence rows | token vectors | tantivy |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, docs in CORPORA.items():
        chunks = docs * chunks_per_doc
        lines.append(f"| {name} | {docs:,} | {chunks / 1e6:,.1f} M | {chunks * sentences_per_chunk / 1e6:,.0f} M | "
                     f"{chunks * token_bytes / 2**40:,.2f} TiB | {chunks * lexical_bytes / 2**30:,.0f} GiB |")
    lines += ["", "| corpus | rows | " + " | ".join(f"{k} RAM" for k in INDEX_RAM) + " | DISKANN SSD |",
              "|---|---|" + "---:|" * (len(INDEX_RAM) + 1)]
    for name, docs in CORPORA.items():
        chunks = docs * chunks_per_doc
        for label, rows in (("chunks", chunks), ("sentences", chunks * sentences_per_chunk)):
            cells = " | ".join(f"{rows * b / 2**30:,.1f} GiB" for b in INDEX_RAM.values())
            lines.append(f"| {name} | {label} | {cells} | {rows * DISKANN_DISK / 2**30:,.1f} GiB |")
    lines += ["", "| corpus | pipeline | " + " | ".join(f"{n} cores" for n in cores) + " | "
              + " | ".join(f"{m} GPU (assumed {GPU_CHUNKS_PER_S:,}/s)" for m in gpus) + " |",
              "|---|---|" + "---:|" * (len(cores) + len(gpus))]
    for name, docs in CORPORA.items():
        for label, cpu, passes in (("chunk vectors", cpu_chunks, 1 + 1 / chunks_per_doc),
                                   ("+ sentence rows, token vectors", cpu_full, 2 + sentences_per_chunk
                                    + 1 / chunks_per_doc)):
            model_passes = docs * chunks_per_doc * passes
            hours = [duration(docs * cpu / n) for n in cores]
            hours += [duration(model_passes / (m * GPU_CHUNKS_PER_S)) for m in gpus]
            lines.append(f"| {name} | {label} | " + " | ".join(hours) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--actor-docs", type=int, default=300)
    parser.add_argument("--biomed-docs", type=int, default=100)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--sizing", type=Path, help="print docs/scale.md's tables from a results file and stop")
    parser.add_argument("--actor-only", action="store_true", help="item 2 alone, into the existing --json file")
    args = parser.parse_args()
    if args.sizing:
        print(sizing(json.loads(args.sizing.read_text(encoding="utf-8"))))
        return
    if args.actor_only:
        kept = json.loads(args.json.read_text(encoding="utf-8"))
        with tempfile.TemporaryDirectory() as tmp:
            kept["embed_actor"] = actor_against_encoder(Path(tmp) / "actor", corpus(Path(tmp), args.actor_docs),
                                                        args.actor_docs)
        print("embed actor", kept["embed_actor"], flush=True)
        args.json.write_text(json.dumps(kept, indent=2), encoding="utf-8")
        return
    import ray

    results: dict[str, Any] = {"docs": args.docs, "cpus": os.cpu_count(), "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = corpus(folder, args.docs)
        local = ingest_run(folder / "local", path, Executor.LOCAL, **CHUNKS_ONLY)
        stores = local.pop("snapshot")
        results["local"] = local
        print("local", local, flush=True)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
        for actors in (1, 2):
            run = ingest_run(folder / f"ray{actors}", path, Executor.RAY, RayOptions(actors=actors), stores,
                             **CHUNKS_ONLY)
            del run["snapshot"]
            run["to_local"] = round(run["docs_per_s"] / results["local"]["docs_per_s"], 3)
            results[f"ray_{actors}_actors"] = run
            print(f"ray {actors} actors", run, flush=True)
        ray.shutdown()
        results["embed_actor"] = actor_against_encoder(folder / "actor", path, args.actor_docs)
        print("embed actor", results["embed_actor"], flush=True)
        if args.biomed_docs:
            small = corpus(folder, args.biomed_docs)
            results["biomed_local"] = ingest_run(folder / "biomed", small, Executor.LOCAL, profile="biomed")
            results["biomed_local"]["token_vector_chunks"] = len(results["biomed_local"].pop("snapshot").tokens)
            print("biomed local", results["biomed_local"], flush=True)
    results["load_after"] = os.getloadavg()
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()

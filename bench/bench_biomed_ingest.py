"""Biomed ingest benchmark: parse throughput, peak memory, compound search latency and recall.

    python bench/bench_biomed_ingest.py [--shared ../shared/data] [--molecules 2000] [--repeat 20]
        [--queries 200]

1. Parse throughput (parsers only: no chunking, embedding or store writes) for the openFDA SPL
   labels (all files, ``--repeat`` times), the SciFact corpus as plain-text abstracts (one
   ``<title>\\n\\n<text>`` file body per record, parsed by the abstract parser) and an SDF of
   ``--molecules`` DrugBank structures (written in memory first; the write is not timed).
   Documents/s, sections/s (= chunks before the chunker splits long sections) and MB/s.
2. Peak RSS of this process after each stage (``resource.getrusage``, a high-water mark).
3. With ``--end-to-end``: the whole ingest (parse, enrich, document router, classify, embed with the
   bundled models, Milvus Lite, tantivy, SQLite) in the biomed profile, into a fresh data dir, of the
   SPL labels, ``--e2e-abstracts`` SciFact abstracts as .txt files and an SDF of ``--e2e-molecules``
   DrugBank structures: documents/s and chunks/s per set. A one-document warm-up ingest first loads the
   models and starts Milvus Lite, so the rates are those of a running service.
4. Compound search over every DrugBank structure RDKit accepts: the side index
   (``FingerprintIndex.search``, RDKit BulkTanimotoSimilarity) against a brute-force numpy Tanimoto
   over the same packed fingerprints, for ``--queries`` molecules of the set. The index is exact, so
   recall@10 against brute force is 1.0 and the ranked lists are identical (ties in insertion order).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from rdkit import DataStructs

from eagle_rag.types import ParsedDocument
from eagle_rag_biomed.chem.fingerprints import FingerprintIndex, InvalidStructure, retrieve_compounds, tanimoto_numpy
from eagle_rag_biomed.chem.names import load_drug_table
from eagle_rag_biomed.chem.sdf_writer import drugbank_sdf_text
from eagle_rag_biomed.parsers.abstract import parse_abstract
from eagle_rag_biomed.parsers.compounds import parse_sdf
from eagle_rag_biomed.parsers.spl import parse_spl

ROOT = Path(__file__).resolve().parents[1]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def timed_parse(name: str, inputs: list[tuple[Path, bytes]],
                parse: Callable[[Path, bytes, str], list[ParsedDocument]]) -> dict[str, float | str]:
    t0 = time.perf_counter()
    docs = [doc for path, data in inputs for doc in parse(path, data, "bench")]
    seconds = time.perf_counter() - t0
    size = sum(len(d) for _, d in inputs)
    sections = sum(len(d.sections) for d in docs)
    return {"set": name, "files": len(inputs), "documents": len(docs), "sections": sections,
            "seconds": seconds, "docs_per_s": len(docs) / seconds, "sections_per_s": sections / seconds,
            "mb_per_s": size / seconds / 1e6, "peak_rss_mb": peak_rss_mb()}


def scifact_inputs(corpus: Path) -> list[tuple[Path, bytes]]:
    inputs = []
    for line in corpus.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            inputs.append((Path(f"{rec['_id']}.abstract.txt"), f"{rec['title']}\n\n{rec['text']}\n".encode()))
    return inputs


def search_bench(n_queries: int, top_k: int = 10) -> dict[str, float]:
    table = load_drug_table()
    index = FingerprintIndex()
    t0 = time.perf_counter()
    for record in table.records:
        try:
            index.add(record.drugbank_id, record.smiles, record.name)
        except InvalidStructure:
            continue
    build_s = time.perf_counter() - t0
    packed = index.packed_bits()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        index.save(Path(tmp))
        save_s = time.perf_counter() - t0
        disk = sum(p.stat().st_size for p in Path(tmp).iterdir())
        t0 = time.perf_counter()
        FingerprintIndex.load(Path(tmp))
        load_s = time.perf_counter() - t0
    rng = random.Random(13)
    queries = rng.sample(range(len(index)), min(n_queries, len(index)))
    fps = [DataStructs.CreateFromFPSText(packed[q].tobytes().hex()) for q in queries]
    index_ms, brute_ms, recalls, identical, max_diff = [], [], [], 0, 0.0
    results = []
    for fp in fps:  # the two methods run in separate loops so neither evicts the other's data from cache
        t0 = time.perf_counter()
        results.append(index.search(fp, top_k))
        index_ms.append((time.perf_counter() - t0) * 1000)
    brutes = []
    for q in queries:
        t0 = time.perf_counter()
        sims = tanimoto_numpy(packed[q], packed)
        brutes.append((sims, np.argsort(-sims, kind="stable")[:top_k]))
        brute_ms.append((time.perf_counter() - t0) * 1000)
    for hits, (sims, brute) in zip(results, brutes, strict=True):
        got = [h.compound_id for h in hits]
        want = [index.ids[i] for i in brute]
        recalls.append(len(set(got) & set(want)) / top_k)
        identical += got == want
        max_diff = max(max_diff, max(abs(h.similarity - float(sims[i])) for h, i in zip(hits, brute, strict=True)))
    names = ("aspirin", "imatinib", "paracetamol", "atorvastatin", "metformin") * 20
    t0 = time.perf_counter()
    for name in names:
        retrieve_compounds(index, name, top_k)
    by_name_ms = (time.perf_counter() - t0) * 1000 / len(names)
    return {"compounds": len(index), "build_s": build_s, "save_s": save_s, "load_s": load_s,
            "disk_kb": disk / 1024, "queries": len(queries),
            "index_p50_ms": statistics.median(index_ms), "index_p95_ms": float(np.percentile(index_ms, 95)),
            "brute_p50_ms": statistics.median(brute_ms), "brute_p95_ms": float(np.percentile(brute_ms, 95)),
            "recall_at_10": statistics.fmean(recalls), "identical_rankings": identical / len(queries),
            "max_abs_score_diff": max_diff, "by_name_ms": by_name_ms, "peak_rss_mb": peak_rss_mb()}


def end_to_end(shared: Path, n_abstracts: int, n_molecules: int) -> list[dict[str, float | str]]:
    """The whole ingest, per set, in the biomed profile (see the module docstring, 3)."""
    from eagle_rag.engine import Engine
    from eagle_rag.settings import load_settings

    rows: list[dict[str, float | str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        abstracts = root / "abstracts"
        abstracts.mkdir()
        for path, data in scifact_inputs(shared / "beir" / "scifact" / "corpus.jsonl")[:n_abstracts]:
            (abstracts / path.name).write_bytes(data)
        sdf_text, n_mol = drugbank_sdf_text(limit=n_molecules)
        sdf = root / "drugbank.sdf"
        sdf.write_text(sdf_text, encoding="utf-8")
        warm = root / "warmup.txt"
        warm.write_text("Imatinib inhibits the BCR-ABL tyrosine kinase.\n", encoding="utf-8")
        labels = sorted((shared / "drug_labels").glob("*.xml"))
        settings = load_settings(environ={}, overrides={"profile": "biomed", "data_dir": str(root / "data")})
        with Engine(settings) as engine:
            engine.ingest([warm], kb_name="warmup")
            for name, paths, kb in [(f"SPL labels ({len(labels)} files)", labels, "labels"),
                                    (f"SciFact abstracts ({n_abstracts} .txt)", [abstracts], "abstracts"),
                                    (f"DrugBank SDF ({n_mol} molecules)", [sdf], "molecules")]:
                report = engine.ingest(paths, kb_name=kb)
                if report.failures:
                    raise SystemExit(f"{name}: {report.failures[0].error}")
                rows.append({"set": name, "documents": report.documents, "chunks": report.chunks,
                             "seconds": report.seconds, "docs_per_s": report.documents / report.seconds,
                             "chunks_per_s": report.chunks / report.seconds, "peak_rss_mb": peak_rss_mb()})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--molecules", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=20, help="passes over the SPL labels")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--end-to-end", action="store_true", help="also time the whole ingest (biomed profile)")
    parser.add_argument("--e2e-abstracts", type=int, default=300)
    parser.add_argument("--e2e-molecules", type=int, default=1000)
    args = parser.parse_args()

    labels = sorted((args.shared / "drug_labels").glob("*.xml"))
    label_inputs = [(p, p.read_bytes()) for p in labels] * args.repeat
    sdf_text, n_mol = drugbank_sdf_text(limit=args.molecules)
    rows = [
        timed_parse(f"SPL labels ({len(labels)} files x {args.repeat})", label_inputs, parse_spl),
        timed_parse("SciFact abstracts (.txt)", scifact_inputs(args.shared / "beir" / "scifact" / "corpus.jsonl"),
                    parse_abstract),
        timed_parse(f"DrugBank SDF ({n_mol} molecules)", [(Path("drugbank.sdf"), sdf_text.encode())], parse_sdf),
    ]
    print("\n## Parse throughput (parsers only)\n")
    print("| set | files | documents | sections | seconds | docs/s | sections/s | MB/s | peak RSS MB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['set']} | {r['files']} | {r['documents']} | {r['sections']} | {r['seconds']:.2f} | "
              f"{r['docs_per_s']:,.0f} | {r['sections_per_s']:,.0f} | {r['mb_per_s']:.1f} | {r['peak_rss_mb']:.0f} |")
    if args.end_to_end:
        print("\n## Whole ingest, biomed profile (parse to stores, bundled models)\n")
        print("| set | documents | chunks | seconds | docs/s | chunks/s | peak RSS MB |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for r in end_to_end(args.shared, args.e2e_abstracts, args.e2e_molecules):
            print(f"| {r['set']} | {r['documents']} | {r['chunks']} | {r['seconds']:.1f} | {r['docs_per_s']:.1f} | "
                  f"{r['chunks_per_s']:.1f} | {r['peak_rss_mb']:.0f} |", flush=True)
    s = search_bench(args.queries)
    print(f"\n## Compound search: side index vs brute-force Tanimoto ({s['compounds']:,} DrugBank compounds, "
          f"Morgan r=2, 2048 bits, {s['queries']} queries, top 10)\n")
    print("| measure | value |\n|---|---:|")
    for label, value in [
        ("index build (parse SMILES + fingerprint)", f"{s['build_s']:.2f} s"),
        ("save / load (npz + json)", f"{s['save_s'] * 1000:.0f} / {s['load_s'] * 1000:.0f} ms, {s['disk_kb']:.0f} KiB"),
        ("index search p50 / p95 (BulkTanimoto + sort)", f"{s['index_p50_ms']:.2f} / {s['index_p95_ms']:.2f} ms"),
        ("brute force numpy p50 / p95", f"{s['brute_p50_ms']:.2f} / {s['brute_p95_ms']:.2f} ms"),
        ("by drug name (resolve + search), mean", f"{s['by_name_ms']:.2f} ms"),
        ("recall@10 vs brute force", f"{s['recall_at_10']:.3f}"),
        ("identical top-10 rankings", f"{s['identical_rankings']:.1%}"),
        ("max |score difference|", f"{s['max_abs_score_diff']:.2e}"),
        ("peak RSS", f"{s['peak_rss_mb']:.0f} MB"),
    ]:
        print(f"| {label} | {value} |")


if __name__ == "__main__":
    main()

"""Migration bench: an index written before documents were named by kb and id, moved by
``eagle-rag doctor --repair`` (:mod:`eagle_rag.ops.migrate`), timed against embedding it again.

    .venv/bin/python bench/bench_migrate.py [--records 2000] [--encoder deterministic|bge-small] [--json PATH]

It writes ``--records`` JSONL records (two or three sentences each) into kb ``demo`` the old way
(storage key = the record's own id), with sentence rows on, and records the ingest time. Then it
asks ``doctor`` (one ``legacy`` finding expected), runs ``doctor --repair`` and checks afterwards:
no finding, every row count per store unchanged, the stored vectors of 50 documents (chunk and
sentence rows) bit for bit the same, and how the dense answers to a sample of queries
compare (same top hit, same top 5, largest score change: the vectors are copied, not recomputed, so
only ties may move, their order following the new chunk ids). The stores are the real ones
(Milvus Lite, tantivy, SQLite); ``--encoder bge-small`` embeds with the bundled model, so the ingest
time shows what migrating saves.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from eagle_rag.engine import Engine
from eagle_rag.ingest import orchestrator
from eagle_rag.ingest.sentences import sentence_collection
from eagle_rag.ops import doctor
from eagle_rag.settings import load_settings
from eagle_rag.types import ParsedDocument, SearchMode, SearchRequest, document_key

COLLECTION = "eagle_text"
WORDS = ["tumour", "melanoma", "kinase", "receptor", "antibody", "trial", "cohort", "mouse", "survival", "dose",
         "toxicity", "gene", "protein", "cell", "therapy", "risk", "metformin", "aspirin", "insulin", "glucose"]


def corpus(path: Path, records: int, rng: random.Random) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for i in range(records):
            sentences = [" ".join(rng.choices(WORDS, k=12)).capitalize() + "." for _ in range(rng.randint(2, 3))]
            fh.write(json.dumps({"id": f"r{i:05d}", "title": f"Record {i}",
                                 "text": f"marker{i:05d} " + " ".join(sentences)}) + "\n")
    return path


def counts(engine: Engine) -> dict[str, int]:
    return {"registry": engine.registry.count(), "vectors": engine.vectors.count(COLLECTION),
            "sentences": engine.vectors.count(sentence_collection(COLLECTION)),
            "lexical": engine.lexical_for(COLLECTION).count()}


def sample(engine: Engine, queries: list[str]) -> list[list[tuple[str, float]]]:
    out = []
    for query in queries:
        hits = engine.search(SearchRequest(query, top_k=5, kb_names=("demo",), mode=SearchMode.DENSE)).hits
        out.append([(h.document_id, h.score) for h in hits])
    return out


def vectors_of(engine: Engine, key: str) -> list[list[float]]:
    """The stored vectors of one document's chunk and sentence rows, in text order."""
    out = []
    for collection in (COLLECTION, sentence_collection(COLLECTION)):
        ids = engine.vectors.chunk_ids_for_document(collection, key)
        out += [vector for _, vector in sorted(engine.vectors.get_rows(collection, sorted(ids)),
                                               key=lambda row: row[0].text)]
    return out


def unscoped(doc: ParsedDocument) -> ParsedDocument:
    return doc


def run(records: int, encoder: str, root: Path) -> dict[str, Any]:
    mode = "deterministic" if encoder == "deterministic" else "require_native"
    settings = load_settings(environ={}, overrides={
        "profile": "general", "data_dir": str(root / "data"), "encoders": {"mode": mode}, "plugins": {"enabled": []},
        "ingest": {"sentence_collections": [COLLECTION]}})
    rng = random.Random(7)
    source = corpus(root / "records.jsonl", records, rng)
    queries = [f"marker{rng.randrange(records):05d} kinase" for _ in range(20)]
    with Engine(settings) as engine:
        real_keyed = orchestrator.keyed
        orchestrator.keyed = unscoped  # type: ignore[assignment] - the identity before the change
        try:
            started = time.perf_counter()
            report = engine.ingest([source], kb_name="demo")
            ingest_s = time.perf_counter() - started
        finally:
            orchestrator.keyed = real_keyed  # type: ignore[assignment]
        before, served = counts(engine), sample(engine, queries)
        probe = [f"r{rng.randrange(records):05d}" for _ in range(50)]
        old_vectors = [vectors_of(engine, doc) for doc in probe]
        started = time.perf_counter()
        found = doctor.check(engine)
        check_s = time.perf_counter() - started
        started = time.perf_counter()
        repaired = doctor.repair(engine, found)
        repair_s = time.perf_counter() - started
        after = doctor.check(engine)
        moved = sample(engine, queries)
        same_vectors = [vectors_of(engine, document_key("demo", doc)) for doc in probe] == old_vectors
        return {"records": records, "encoder": encoder, "documents": report.documents, "chunks": report.chunks,
                "ingest_s": round(ingest_s, 2), "doctor_check_s": round(check_s, 2),
                "migrate_s": round(repair_s, 2), "rows": before,
                "findings_before": [f"{f.kind}: {f.document_id}" for f in found.findings],
                "actions": repaired.actions, "findings_after": len(after.findings),
                "rows_unchanged": counts(engine) == before, "vectors_identical": same_vectors,
                **compare(served, moved)}


def compare(served: list[list[tuple[str, float]]], moved: list[list[tuple[str, float]]]) -> dict[str, Any]:
    """How the dense answers after the migration relate to those before: same top hit, same top-5
    (as a set), same list, and the largest score change of a document found both times."""
    delta = 0.0
    for before, after in zip(served, moved, strict=True):
        scores = dict(after)
        delta = max([delta, *(abs(score - scores[doc]) for doc, score in before if doc in scores)])
    return {"queries": len(served),
            "same_top_hit": sum(b[:1] == a[:1] for b, a in zip(served, moved, strict=True)),
            "same_top5_set": sum(set(b) == set(a) for b, a in zip(served, moved, strict=True)),
            "same_list": sum(b == a for b, a in zip(served, moved, strict=True)),
            "max_score_change": round(delta, 6)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--encoder", choices=["deterministic", "bge-small"], default="deterministic")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-migrate-") as tmp:
        result = run(args.records, args.encoder, Path(tmp))
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n")
    if result["findings_after"] or not (result["rows_unchanged"] and result["vectors_identical"]):
        sys.exit(1)


if __name__ == "__main__":
    main()

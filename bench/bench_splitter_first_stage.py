"""The first stage with the shipped sentence splitter against the regular-expression one, paired per claim.

    EAGLE_RAG_PROFILE=biomed .venv/bin/python bench/bench_splitter_first_stage.py \\
        --beir ../shared/data/beir/scifact --data-dir DIR [--out /tmp/scifact-runs/first-stage-splitters.json]

``DIR`` is a biomed SciFact index built with the current code (its sentence rows were cut by the
shipped splitter, :func:`eagle_rag.ingest.sentences.split_sentences`). The reference rows are cut
from the same stored chunks by the splitter used before it (``regex_split`` of
``bench_sentence_splitter.py``) and embedded as the ingest embeds a row (``embed_input``, bundled
bge-small); a row whose document and text equal a stored row re-uses the stored vector, so only the
rows the two splitters cut differently are embedded. Both first stages are the default fusion of
``bench_first_stage.py`` (BM25, dense with the query instruction, documents ranked by their best
sentence with the query embedded without it; weighted RRF 0.5 / 1.0 / 0.5) over the same claims, so
the difference is paired: the script prints nDCG@10 per split and splitter (the sentence list alone and
fused), the mean difference, its standard error (ddof 1) and the claims that moved, and writes every
claim's nDCG@10 and fused top 100 documents to ``--out``.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
from bench_first_stage import LEXICAL_WEIGHT, Channels, claims_and_vectors, index_parser, per_query, rrf
from bench_sentence_splitter import regex_split
from tantivy import Query

from eagle_rag.encoders.onnx_text import bundled_bge_small
from eagle_rag.engine import Engine
from eagle_rag.ingest.dispatch import embed_input
from eagle_rag.ingest.sentences import sentence_collection
from eagle_rag.settings import load_settings
from eagle_rag.stores import milvus_schema
from eagle_rag.stores.lexical import payload_to_chunk
from eagle_rag.types import Chunk

SENTENCE_WEIGHT = 0.5
"""``router.sentence_weight`` of the biomed profile."""


def regex_channels(channels: Channels, engine: Engine, collection: str) -> tuple[Channels, int, int]:
    """``channels`` with sentence rows cut by the regular expression; also (rows, rows embedded anew)."""
    searcher = channels.searcher
    hits = searcher.search(Query.all_query(), limit=searcher.num_docs).hits
    chunks = [payload_to_chunk(bytes(searcher.doc(a).get_first("payload") or b"")) for _, a in hits]
    stored_rows = milvus_schema.iterate(engine.vectors.client,
                                        engine.vectors.physical_name(sentence_collection(collection)),
                                        "", ["text", "vector", "document_id"])
    stored = {(r["document_id"], r["text"]): np.asarray(r["vector"], dtype=np.float32) for r in stored_rows}
    rows: list[Chunk] = [replace(c, text=s) for c in chunks for s in regex_split(c.text)]
    vectors = np.zeros((len(rows), channels.sentence_vectors.shape[1]), dtype=np.float32)
    fresh = []
    for i, row in enumerate(rows):
        vector = stored.get((row.document_id, row.text))
        if vector is None:
            fresh.append(i)
        else:
            vectors[i] = vector
    encoder = bundled_bge_small("passages")
    for start in range(0, len(fresh), 64):
        part = fresh[start:start + 64]
        vectors[part] = np.asarray(encoder.embed([embed_input(rows[i]) for i in part]), dtype=np.float32)
    other = copy.copy(channels)
    other.sentence_vectors = vectors
    other.sentence_doc_of = np.array([str(r.metadata.get("record_id", r.document_id)) for r in rows])
    return other, len(rows), len(fresh)


def main() -> None:
    parser = index_parser(__doc__)
    parser.add_argument("--out", type=Path, default=Path("/tmp/scifact-runs/first-stage-splitters.json"))
    args = parser.parse_args()
    splits, queries, with_instruction, plain = claims_and_vectors(args.beir)
    wanted = list(queries)
    settings = load_settings(overrides={"profile": "biomed", "data_dir": str(args.data_dir)})
    with Engine(settings) as engine:
        shipped = Channels(engine)
        reference, row_count, embedded = regex_channels(shipped, engine, "eagle_text_biomed")
        print(f"sentence rows: shipped {len(shipped.sentence_vectors)}, regex {row_count} "
              f"({embedded} embedded anew, the rest cut alike)", flush=True)
        bm25 = {q: shipped.bm25(queries[q]) for q in wanted}
        dense = {q: shipped.dense(with_instruction[i]) for i, q in enumerate(wanted)}
        lists = {name: {q: channels.sentences(plain[i]) for i, q in enumerate(wanted)}
                 for name, channels in (("regex", reference), ("shipped", shipped))}
        fused = {name: {q: rrf([bm25[q], dense[q], sentences[q]], [LEXICAL_WEIGHT, 1.0, SENTENCE_WEIGHT])
                        for q in wanted} for name, sentences in lists.items()}
    out: dict[str, dict[str, object]] = {}
    print(f"{'split':<6} {'claims':>6} {'regex':>7} {'fused':>7} {'shipped':>7} {'fused':>7} "
          f"{'d fused':>8} {'se':>7} {'up':>4} {'down':>4}")
    for split, data in splits.items():
        qrels = data.qrels
        alone = {name: per_query(run, qrels) for name, run in lists.items()}
        scores = {name: per_query(run, qrels) for name, run in fused.items()}
        diff = scores["shipped"] - scores["regex"]
        se = float(diff.std(ddof=1) / np.sqrt(len(diff)))
        print(f"{split:<6} {len(diff):>6} {alone['regex'].mean():>7.4f} {scores['regex'].mean():>7.4f} "
              f"{alone['shipped'].mean():>7.4f} {scores['shipped'].mean():>7.4f} {diff.mean():>+8.4f} {se:>7.4f} "
              f"{int((diff > 0).sum()):>4} {int((diff < 0).sum()):>4}", flush=True)
        out[split] = {
            "mean": {name: float(s.mean()) for name, s in scores.items()},
            "difference": float(diff.mean()), "standard_error": se,
            "per_claim": {q: {name: float(scores[name][i]) for name in scores} for i, q in enumerate(qrels)},
            "top100": {name: {q: run[q][:100] for q in qrels} for name, run in fused.items()},
        }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out))
    print(f"per-claim scores and runs: {args.out}")


if __name__ == "__main__":
    main()

"""First-stage variants on a biomed SciFact index: query instruction, dense feedback, phrase boosts.

    .venv/bin/python bench/bench_first_stage.py --beir ../shared/data/beir/scifact --data-dir DIR

``DIR`` is an index built by ``EAGLE_RAG_PROFILE=biomed eagle-rag eval beir ... --data-dir DIR``
(collection ``eagle_text_biomed``). For every query of the train and test splits the script takes
the BM25 list of the tantivy index and the dense list of the bge-small vectors stored in Milvus
(brute force over all chunk vectors, so a variant's query vector needs no new index), each as the
first 200 distinct documents, and prints nDCG@10 per split for:

- ``dense``: the query with and without the bge query instruction, and both vectors as two lists;
- ``prf k,beta``: dense pseudo-relevance feedback, ``q' = q + beta * mean(top-k chunk vectors)``;
- ``bigram w,slop``: BM25 plus every pair of adjacent query terms as a phrase clause (slop ``slop``)
  boosted by ``w`` (a sequential-dependence model);
- ``sentences w``: when the index keeps sentence rows (``eagle_text_biomed__sentences``), documents
  ranked by their best sentence (query embedded without the instruction) as a third list of weight ``w``;

each alone and fused with the other channel by weighted RRF (k = 60, lexical weight 0.5 as
``router.lexical_weight``). It tunes nothing: read the train column to decide and the test column
once.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np
from ranx import Qrels, Run, evaluate
from tantivy import Occur, Query

from eagle_rag.analysis import analyze
from eagle_rag.encoders.onnx_text import bundled_bge_small
from eagle_rag.engine import Engine
from eagle_rag.evaluation.beir import load_beir
from eagle_rag.ingest.sentences import sentence_collection
from eagle_rag.settings import load_settings
from eagle_rag.stores import milvus_schema
from eagle_rag.stores.lexical import payload_to_chunk

COLLECTION = "eagle_text_biomed"
DEPTH = 200
LEXICAL_WEIGHT = 0.5


def ndcg(runs: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> float:
    run = {q: {d: float(DEPTH - i) for i, d in enumerate(runs[q])} or {"__none__": 0.0} for q in qrels}
    return float(evaluate(Qrels(qrels), Run(run), "ndcg@10", make_comparable=True))


def rrf(lists: list[list[str]], weights: list[float], k: int = 60) -> list[str]:
    scores: dict[str, float] = {}
    for ranked, weight in zip(lists, weights, strict=True):
        for rank, doc in enumerate(ranked, 1):
            scores[doc] = scores.get(doc, 0.0) + weight / (k + rank)
    return sorted(scores, key=lambda d: -scores[d])


def distinct(docs: Any) -> list[str]:
    return list(dict.fromkeys(docs))[:DEPTH]


def _vectors(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """Stored vectors and the BEIR document id of each row."""
    vectors = np.array([r["vector"] for r in rows], dtype=np.float32) if rows else np.zeros((0, 0), np.float32)
    return vectors, np.array([str(json.loads(r["metadata"]).get("record_id", r["document_id"])) for r in rows])


class Channels:
    """BM25 over the tantivy index and brute-force cosine over the stored chunk vectors."""

    def __init__(self, engine: Engine) -> None:
        index = engine.lexical_for(COLLECTION)
        self.schema = index._schema  # noqa: SLF001 - a bench reads the index directly
        self.searcher = index._index.searcher()  # noqa: SLF001
        rows = list(milvus_schema.iterate(engine.vectors.client, engine.vectors.physical_name(COLLECTION), "",
                                          ["vector", "metadata", "document_id"]))
        self.vectors, self.doc_of = _vectors(rows)
        companion = sentence_collection(COLLECTION)
        sentence_rows = (list(milvus_schema.iterate(engine.vectors.client, engine.vectors.physical_name(companion),
                                                    "", ["vector", "metadata", "document_id"]))
                         if engine.vectors.has_collection(companion) else [])
        self.sentence_vectors, self.sentence_doc_of = _vectors(sentence_rows)

    def bm25(self, text: str, bigram_weight: float = 0.0, slop: int = 0) -> list[str]:
        terms = analyze(text)
        clauses = [(Occur.Should, Query.term_query(self.schema, "terms", t, index_option="freq"))
                   for t in dict.fromkeys(terms)]
        if bigram_weight > 0:
            for a, b in dict.fromkeys(zip(terms, terms[1:], strict=False)):
                if a != b:
                    phrase = Query.phrase_query(self.schema, "terms", [a, b], slop)
                    clauses.append((Occur.Should, Query.boost_query(phrase, bigram_weight)))
        hits = self.searcher.search(Query.boolean_query(clauses), limit=2 * DEPTH).hits
        chunks = (payload_to_chunk(bytes(self.searcher.doc(a).get_first("payload") or b"")) for _, a in hits)
        return distinct(str(c.metadata.get("record_id", c.document_id)) for c in chunks)

    def dense(self, vector: np.ndarray, feedback: int = 0, beta: float = 0.0) -> list[str]:
        sims = self.vectors @ vector
        if feedback:
            top = np.argsort(-sims)[:feedback]
            vector = vector + beta * self.vectors[top].mean(axis=0)
            sims = self.vectors @ (vector / np.linalg.norm(vector))
        return distinct(self.doc_of[np.argsort(-sims)[: 4 * DEPTH]])

    def sentences(self, vector: np.ndarray) -> list[str]:
        """Documents ranked by their most similar sentence row (empty without sentence rows)."""
        if not len(self.sentence_vectors):
            return []
        return distinct(self.sentence_doc_of[np.argsort(-(self.sentence_vectors @ vector))[: 20 * DEPTH]])


def index_args(doc: str | None) -> argparse.Namespace:
    """``--beir`` and ``--data-dir`` (a biomed SciFact index) of a bench script; quiets pymilvus."""
    logging.getLogger("pymilvus").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--beir", type=Path, default=Path("../shared/data/beir/scifact"))
    parser.add_argument("--data-dir", type=Path, required=True)
    return parser.parse_args()


def main() -> None:
    args = index_args(__doc__)
    splits = {split: load_beir(args.beir, split) for split in ("train", "test")}
    qrels = {split: data.qrels for split, data in splits.items()}
    queries = {q: text for data in splits.values() for q, text in data.queries.items()}
    wanted = list(queries)
    texts = [queries[q] for q in wanted]
    with_instruction = np.array(bundled_bge_small("i").encode_queries(texts), dtype=np.float32)
    plain = np.array(bundled_bge_small("n", query_instruction="").encode_queries(texts), dtype=np.float32)
    settings = load_settings(overrides={"profile": "biomed", "data_dir": str(args.data_dir)})
    with Engine(settings) as engine:
        channels = Channels(engine)
        bm25 = {q: channels.bm25(queries[q]) for q in wanted}
        dense_i = {q: channels.dense(with_instruction[i]) for i, q in enumerate(wanted)}
        dense_n = {q: channels.dense(plain[i]) for i, q in enumerate(wanted)}
        rows: list[tuple[str, dict[str, list[str]], dict[str, list[str]]]] = [
            ("bm25 | fused with dense (instruction)", bm25,
             {q: rrf([bm25[q], dense_i[q]], [LEXICAL_WEIGHT, 1.0]) for q in wanted}),
            ("dense, instruction | fused with bm25", dense_i,
             {q: rrf([bm25[q], dense_i[q]], [LEXICAL_WEIGHT, 1.0]) for q in wanted}),
            ("dense, no instruction | fused with bm25", dense_n,
             {q: rrf([bm25[q], dense_n[q]], [LEXICAL_WEIGHT, 1.0]) for q in wanted}),
            ("dense, both vectors | fused with bm25", {q: rrf([dense_i[q], dense_n[q]], [1.0, 1.0]) for q in wanted},
             {q: rrf([bm25[q], dense_i[q], dense_n[q]], [LEXICAL_WEIGHT, 0.5, 0.5]) for q in wanted}),
        ]
        for k, beta in ((3, 0.5), (5, 0.5), (10, 0.5), (3, 1.0)):
            prf = {q: channels.dense(plain[i], k, beta) for i, q in enumerate(wanted)}
            rows.append((f"prf {k},{beta} (no instruction) | fused", prf,
                         {q: rrf([bm25[q], prf[q]], [LEXICAL_WEIGHT, 1.0]) for q in wanted}))
        sentences = {q: channels.sentences(plain[i]) for i, q in enumerate(wanted)}
        for weight in (0.3, 0.5, 1.0):
            rows.append((f"sentences {weight} | fused with bm25 + dense", sentences,
                         {q: rrf([bm25[q], dense_i[q], sentences[q]], [LEXICAL_WEIGHT, 1.0, weight])
                          for q in wanted}))
        for weight, slop in ((0.2, 0), (0.5, 0), (0.2, 2), (0.5, 2)):
            boosted = {q: channels.bm25(queries[q], weight, slop) for q in wanted}
            rows.append((f"bigram {weight},{slop} | fused with dense (instruction)", boosted,
                         {q: rrf([boosted[q], dense_i[q]], [LEXICAL_WEIGHT, 1.0]) for q in wanted}))
    print(f"{'variant':<52} {'train':>7} {'fused':>7} {'test':>7} {'fused':>7}")
    for name, alone, fused in rows:
        cells = [ndcg(run, qrels[s]) for s in ("train", "test") for run in (alone, fused)]
        print(f"{name:<52} " + " ".join(f"{c:>7.4f}" for c in cells), flush=True)


if __name__ == "__main__":
    main()

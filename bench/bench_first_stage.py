"""First-stage variants on a biomed SciFact index: query vectors, feedback, phrases, sentences, titles, chunk size.

    .venv/bin/python bench/bench_first_stage.py --beir ../shared/data/beir/scifact --data-dir DIR \
        [--split train] [--chunk-chars 2000,3000]

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
- ``no fragments``: the sentence channel without the rows that are only the overlap a chunk repeats
  from the one before it (the first piece of a chunk that the previous chunk of its document holds);
- ``chunk chars n`` (with ``--chunk-chars n,...``): the corpus chunked again at ``n`` characters
  (``chunk_document``, overlap 150), BM25 over the new chunks in memory and the dense channel over
  their bge-small vectors (a chunk whose text is unchanged keeps its stored vector), fused with the
  stored sentence rows;
- ``titled``: BM25 over a copy of the chunks in which every chunk reads as the encoders see it
  (``embed_input``: the document name in front of a chunk that lacks it), built in memory;

each alone and fused with the other channel by weighted RRF (k = 60, lexical weight 0.5 as
``router.lexical_weight``). It tunes nothing: read the train column to decide and the test column
once (``--split train`` prints train only, for a variant not yet decided). The last two columns
are the train difference of each fused list from the default first stage (bm25 + dense + sentences
0.5), mean over claims, and its standard error.
"""

from __future__ import annotations

import argparse
import copy
import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from ranx import Qrels, Run, evaluate
from tantivy import Occur, Query

from eagle_rag.analysis import analyze
from eagle_rag.encoders.onnx_text import bundled_bge_small
from eagle_rag.engine import Engine
from eagle_rag.evaluation.beir import KB_NAME, load_beir
from eagle_rag.ingest.chunker import chunk_document
from eagle_rag.ingest.dispatch import embed_input
from eagle_rag.ingest.parsers import parse_beir
from eagle_rag.ingest.sentences import PARENT_KEY, SENTENCE_ID_SEP, sentence_collection
from eagle_rag.settings import load_settings
from eagle_rag.stores import milvus_schema
from eagle_rag.stores.lexical import TantivyLexicalIndex, payload_to_chunk
from eagle_rag.types import Chunk, ParsedDocument

COLLECTION = "eagle_text_biomed"
DEPTH = 200
LEXICAL_WEIGHT = 0.5


def ndcg(runs: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> float:
    return float(per_query(runs, qrels).mean())


def rrf(lists: list[list[str]], weights: list[float], k: int = 60) -> list[str]:
    scores: dict[str, float] = {}
    for ranked, weight in zip(lists, weights, strict=True):
        for rank, doc in enumerate(ranked, 1):
            scores[doc] = scores.get(doc, 0.0) + weight / (k + rank)
    return sorted(scores, key=lambda d: -scores[d])


def distinct(docs: Any) -> list[str]:
    return list(dict.fromkeys(docs))[:DEPTH]


def per_query(runs: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> np.ndarray:
    """nDCG@10 of every judged query, in the order of ``qrels``."""
    run = {q: {d: float(DEPTH - i) for i, d in enumerate(runs[q])} or {"__none__": 0.0} for q in qrels}
    return np.asarray(evaluate(Qrels(qrels), Run(run), "ndcg@10", return_mean=False, make_comparable=True))


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
                                          ["id", "text", "vector", "metadata", "document_id"]))
        self.vectors, self.doc_of = _vectors(rows)
        self.stored = {(r["document_id"], r["text"]): i for i, r in enumerate(rows)}
        companion = sentence_collection(COLLECTION)
        sentence_rows = (list(milvus_schema.iterate(engine.vectors.client, engine.vectors.physical_name(companion),
                                                    "", ["id", "text", "vector", "metadata", "document_id"]))
                         if engine.vectors.has_collection(companion) else [])
        self.sentence_vectors, self.sentence_doc_of = _vectors(sentence_rows)
        self.fragment = self._fragments(rows, sentence_rows)

    @staticmethod
    def _fragments(chunk_rows: list[dict[str, Any]], sentence_rows: list[dict[str, Any]]) -> np.ndarray:
        """Which sentence rows are the overlap a chunk repeats from the previous chunk of its document."""
        chunks = {r["id"]: r for r in chunk_rows}
        by_doc: dict[str, list[str]] = {}
        for row in chunks.values():
            by_doc.setdefault(row["document_id"], []).append(row["text"])
        out = np.zeros(len(sentence_rows), dtype=bool)
        for i, row in enumerate(sentence_rows):
            parent = chunks.get(json.loads(row["metadata"]).get(PARENT_KEY, ""))
            if parent is None or not row["id"].endswith(f"{SENTENCE_ID_SEP}0"):
                continue
            head = parent["text"].split("\n", 1)[0].strip()
            out[i] = head == row["text"].strip() and any(
                head in text and not text.startswith(head) for text in by_doc[parent["document_id"]])
        return out

    def _with_chunks(self, chunks: list[Chunk], vectors: np.ndarray) -> Channels:
        """The same channels with BM25 and the dense channel over ``chunks`` (in memory)."""
        index = TantivyLexicalIndex()
        index.add(chunks)
        index.commit()
        other = copy.copy(self)
        other.searcher = index._index.searcher()  # noqa: SLF001
        other.vectors = vectors
        other.doc_of = np.array([str(c.metadata.get("record_id", c.document_id)) for c in chunks])
        return other

    def rechunked(self, documents: list[ParsedDocument], chars: int) -> Channels:
        """The same channels over ``documents`` chunked again at ``chars`` characters."""
        chunks = [c for doc in documents for c in chunk_document(doc, max_chars=chars, overlap=150)]
        known = [self.stored.get((c.document_id, c.text)) for c in chunks]
        fresh = [i for i, k in enumerate(known) if k is None]
        vectors = np.zeros((len(chunks), self.vectors.shape[1]), dtype=np.float32)
        for i, k in enumerate(known):
            if k is not None:
                vectors[i] = self.vectors[k]
        encoder = bundled_bge_small("passages")
        for start in range(0, len(fresh), 64):
            part = fresh[start:start + 64]
            vectors[part] = np.asarray(encoder.embed([embed_input(chunks[i]) for i in part]), dtype=np.float32)
        return self._with_chunks(chunks, vectors)

    def without_fragments(self) -> Channels:
        """The same channels without the overlap-fragment sentence rows."""
        other = copy.copy(self)
        other.sentence_vectors = self.sentence_vectors[~self.fragment]
        other.sentence_doc_of = self.sentence_doc_of[~self.fragment]
        return other

    def titled(self) -> Channels:
        """The same channels with BM25 over the chunks as ``embed_input`` formats them (in memory)."""
        hits = self.searcher.search(Query.all_query(), limit=self.searcher.num_docs).hits
        chunks = [payload_to_chunk(bytes(self.searcher.doc(a).get_first("payload") or b"")) for _, a in hits]
        other = self._with_chunks([replace(c, text=embed_input(c)) for c in chunks], self.vectors)
        other.doc_of = self.doc_of
        return other

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


def index_parser(doc: str | None) -> argparse.ArgumentParser:
    """``--beir`` and ``--data-dir`` (a biomed SciFact index) of a bench script; quiets pymilvus."""
    logging.getLogger("pymilvus").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--beir", type=Path, default=Path("../shared/data/beir/scifact"))
    parser.add_argument("--data-dir", type=Path, required=True)
    return parser


def claims_and_vectors(beir: Path) -> tuple[dict[str, Any], dict[str, str], np.ndarray, np.ndarray]:
    """Train and test of ``beir``, the text of every claim of both (train first), and the claims' bge-small
    vectors with and without the query instruction (rows in the order of the claims)."""
    splits = {split: load_beir(beir, split) for split in ("train", "test")}
    queries = {q: text for data in splits.values() for q, text in data.queries.items()}
    texts = list(queries.values())
    with_instruction = np.array(bundled_bge_small("i").encode_queries(texts), dtype=np.float32)
    plain = np.array(bundled_bge_small("n", query_instruction="").encode_queries(texts), dtype=np.float32)
    return splits, queries, with_instruction, plain


def index_args(doc: str | None) -> argparse.Namespace:
    """The parsed :func:`index_parser` arguments."""
    return index_parser(doc).parse_args()


def main() -> None:
    parser = index_parser(__doc__)
    parser.add_argument("--split", choices=("train", "both"), default="both",
                        help="train: print the train columns only (to decide before reading test)")
    parser.add_argument("--chunk-chars", default="",
                        help="comma-separated chunk sizes to re-chunk the corpus at (slow: embeds the new chunks)")
    args = parser.parse_args()
    splits, queries, with_instruction, plain = claims_and_vectors(args.beir)
    qrels = {split: data.qrels for split, data in splits.items()}
    wanted = list(queries)
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
        whole = channels.without_fragments()
        sentences_w = {q: whole.sentences(plain[i]) for i, q in enumerate(wanted)}
        rows.append((f"no fragments ({int(channels.fragment.sum())} rows) | fused", sentences_w,
                     {q: rrf([bm25[q], dense_i[q], sentences_w[q]], [LEXICAL_WEIGHT, 1.0, 0.5]) for q in wanted}))
        titled = channels.titled()
        bm25_t = {q: titled.bm25(queries[q]) for q in wanted}
        rows.append(("titled bm25 | fused with dense (instruction)", bm25_t,
                     {q: rrf([bm25_t[q], dense_i[q]], [LEXICAL_WEIGHT, 1.0]) for q in wanted}))
        rows.append(("titled bm25 | fused with dense + sentences 0.5", bm25_t,
                     {q: rrf([bm25_t[q], dense_i[q], sentences[q]], [LEXICAL_WEIGHT, 1.0, 0.5]) for q in wanted}))
        rows.append(("both vectors | fused with bm25 + sentences 0.5", dense_n,
                     {q: rrf([bm25[q], dense_i[q], dense_n[q], sentences[q]], [LEXICAL_WEIGHT, 0.5, 0.5, 0.5])
                      for q in wanted}))
        corpus = args.beir / "corpus.jsonl"
        documents = parse_beir(corpus, corpus.read_bytes(), KB_NAME) if args.chunk_chars else []
        for chars in (int(c) for c in args.chunk_chars.split(",") if c):
            other = channels.rechunked(documents, chars)
            bm25_c = {q: other.bm25(queries[q]) for q in wanted}
            dense_c = {q: other.dense(with_instruction[i]) for i, q in enumerate(wanted)}
            rows.append((f"chunk chars {chars} (dense) | fused with bm25", dense_c,
                         {q: rrf([bm25_c[q], dense_c[q]], [LEXICAL_WEIGHT, 1.0]) for q in wanted}))
            rows.append((f"chunk chars {chars} (bm25) | fused + sentences 0.5", bm25_c,
                         {q: rrf([bm25_c[q], dense_c[q], sentences[q]], [LEXICAL_WEIGHT, 1.0, 0.5]) for q in wanted}))
        for weight, slop in ((0.2, 0), (0.5, 0), (0.2, 2), (0.5, 2)):
            boosted = {q: channels.bm25(queries[q], weight, slop) for q in wanted}
            rows.append((f"bigram {weight},{slop} | fused with dense (instruction)", boosted,
                         {q: rrf([boosted[q], dense_i[q]], [LEXICAL_WEIGHT, 1.0]) for q in wanted}))
    shown = ("train",) if args.split == "train" else ("train", "test")
    default = next(fused for name, _, fused in rows if name.startswith("sentences 0.5"))
    reference = per_query(default, qrels["train"])
    print(f"{'variant':<52} " + " ".join(f"{s:>7} {'fused':>7}" for s in shown) + f" {'d fused':>8} {'se':>7}")
    for name, alone, fused in rows:
        cells = [ndcg(run, qrels[s]) for s in shown for run in (alone, fused)]
        diff = per_query(fused, qrels["train"]) - reference
        cells += [float(diff.mean()), float(diff.std(ddof=1) / np.sqrt(len(diff)))]
        print(f"{name:<52} " + " ".join(f"{c:>7.4f}" for c in cells[:-2])
              + f" {cells[-2]:>+8.4f} {cells[-1]:>7.4f}", flush=True)


if __name__ == "__main__":
    main()

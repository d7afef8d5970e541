"""Sentence splitters compared on SciFact train through the sentence channel alone.

Each document of a sub-corpus (every document judged for the chosen train claims, plus random
others up to ``--docs``) is split into sentence rows by each splitter, the rows are embedded as
the ingest embeds them (the document name in front, bundled bge-small), and a claim ranks the
documents by their best sentence's cosine. The script prints nDCG@10 per splitter and the paired
difference of each against the current one with its standard error (ddof 1). Embeddings are
cached by row text, so a sentence that two splitters cut alike is embedded once.

    .venv/bin/python bench/bench_sentence_splitter.py --beir ../shared/data/beir/scifact --claims 300
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pysbd
from ranx import Qrels, Run, evaluate

from eagle_rag.encoders import BUNDLED_BGE_SMALL, load_native_text_encoder
from eagle_rag.evaluation.beir import load_beir
from eagle_rag.ingest.sentences import split_sentences

_REGEX = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])|(?<=[。！？])")
_PYSBD = pysbd.Segmenter(language="en", clean=False)


def regex_split(text: str) -> list[str]:
    """The splitter before pysbd: a regular expression that dropped pieces under 16 characters."""
    return [p for p in (s.strip() for s in _REGEX.split(text)) if len(p) >= 16]


def pysbd_plain(text: str) -> list[str]:
    return [s.strip() for s in _PYSBD.segment(text) if s.strip()]


def syntok_split(text: str) -> list[str]:
    import syntok.segmenter as syntok_segmenter  # only for this comparison (not a project dependency)

    out = []
    for paragraph in syntok_segmenter.analyze(text):
        for sentence in paragraph:
            joined = "".join(t.spacing + t.value for t in sentence).strip()
            if joined:
                out.append(joined)
    return out


SPLITTERS: dict[str, Callable[[str], list[str]]] = {
    "regex (before)": regex_split,
    "pysbd": pysbd_plain,
    "syntok": syntok_split,
    "pysbd + abbreviations + no drop (shipped)": split_sentences,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", type=Path, default=Path("../shared/data/beir/scifact"))
    parser.add_argument("--claims", type=int, default=300, help="first N train claims")
    parser.add_argument("--docs", type=int, default=1500, help="sub-corpus size")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    data = load_beir(args.beir, split="train", limit_queries=args.claims)
    judged = {d for rel in data.qrels.values() for d in rel}
    corpus = {}
    with data.corpus_path.open(encoding="utf-8") as fh:
        for line in fh:
            obj = json.loads(line)
            corpus[str(obj["_id"])] = (str(obj.get("title") or ""), str(obj.get("text") or ""))
    others = sorted(set(corpus) - judged)
    random.Random(args.seed).shuffle(others)
    docs = sorted(judged & set(corpus)) + others[: max(0, args.docs - len(judged))]
    encoder = load_native_text_encoder("bge-small", BUNDLED_BGE_SMALL, 384)
    cache: dict[str, np.ndarray] = {}
    queries = list(data.queries)
    qvec = np.asarray(encoder.encode_queries([data.queries[q] for q in queries]))
    per_query: dict[str, np.ndarray] = {}
    for name, split in SPLITTERS.items():
        # as embed_input reads a sentence row: the document name in front unless the text has it
        rows = [(doc, f"{corpus[doc][0]}\n{s}" if corpus[doc][0] and corpus[doc][0] not in s[:300] else s)
                for doc in docs for s in split(corpus[doc][1])]
        todo = sorted({text for _, text in rows} - set(cache))
        for start in range(0, len(todo), 256):
            batch = todo[start:start + 256]
            cache.update(zip(batch, np.asarray(encoder.encode_passages(batch)), strict=True))
        matrix = np.stack([cache[text] for _, text in rows])
        position = {doc: i for i, doc in enumerate(docs)}
        owners = np.asarray([position[doc] for doc, _ in rows])
        sims = qvec @ matrix.T
        best = np.full((len(queries), len(docs)), -1.0)
        for column, owner in enumerate(owners):
            np.maximum(best[:, owner], sims[:, column], out=best[:, owner])
        run = {q: {docs[j]: float(best[i, j]) for j in np.argsort(-best[i])[:10]} for i, q in enumerate(queries)}
        scores = np.asarray(evaluate(Qrels(data.qrels), Run(run), "ndcg@10", return_mean=False,
                                     make_comparable=True))
        per_query[name] = scores
        print(f"{name:45s} rows {len(rows):6d}  nDCG@10 {scores.mean():.4f}", flush=True)
    base = per_query["regex (before)"]
    for name, scores in per_query.items():
        diff = scores - base
        se = diff.std(ddof=1) / np.sqrt(len(diff))
        print(f"{name:45s} difference to regex {diff.mean():+.4f} (standard error {se:.4f})")


if __name__ == "__main__":
    main()

"""How much of SciFact test can be answered by remembering train judgements, and why we do not.

    .venv/bin/python bench/bench_train_overlap.py --beir ../shared/data/beir/scifact --data-dir DIR

Prints how many test claims cite a document that some train claim also cites, then measures a
"judged neighbours" list on train by 5-fold cross-validation: for a held-out claim, the documents
judged relevant to the (up to 10) most similar claims of the other folds with cosine >= 0.8 (bge-small,
query instruction), ranked by that similarity and fused with BM25 and dense by weighted RRF (0.5 / 1.0
/ w). Folds are drawn two ways: at random (as the BEIR split was: held-out claims share cited
documents with the rest), and grouped so that claims citing the same document share a fold (a new
claim about a document nobody has judged). The gap between the two is what remembering the
judgements is worth, and it is not retrieval quality: the engine does not ship such a list.
"""

from __future__ import annotations

import numpy as np
from bench_first_stage import LEXICAL_WEIGHT, Channels, index_args, ndcg, rrf

from eagle_rag.encoders.onnx_text import bundled_bge_small
from eagle_rag.engine import Engine
from eagle_rag.evaluation.beir import load_beir
from eagle_rag.settings import load_settings

FOLDS = 5
NEIGHBOURS = 10
MIN_SIMILARITY = 0.8


def positives(judged: dict[str, int]) -> set[str]:
    return {d for d, r in judged.items() if r > 0}


def grouped_folds(claims: list[str], qrels: dict[str, dict[str, int]]) -> np.ndarray:
    """Fold of each claim such that claims linked by a shared cited document share a fold."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for q in claims:
        docs = sorted(positives(qrels[q]))
        for d in docs[1:]:
            parent[find(d)] = find(docs[0])
    groups: dict[str, list[int]] = {}
    for i, q in enumerate(claims):
        groups.setdefault(find(sorted(positives(qrels[q]))[0]), []).append(i)
    folds = np.zeros(len(claims), dtype=int)
    sizes = [0] * FOLDS
    for members in sorted(groups.values(), key=len, reverse=True):
        smallest = int(np.argmin(sizes))
        folds[members] = smallest
        sizes[smallest] += len(members)
    return folds


def neighbour_list(sims: np.ndarray, judged: list[dict[str, int]]) -> list[str]:
    scores: dict[str, float] = {}
    for j in np.argsort(-sims)[:NEIGHBOURS]:
        if sims[j] < MIN_SIMILARITY:
            break
        for d in positives(judged[j]):
            scores.setdefault(d, float(sims[j]))
    return sorted(scores, key=lambda d: -scores[d])


def main() -> None:
    args = index_args(__doc__)
    train, test = load_beir(args.beir, "train"), load_beir(args.beir, "test")
    cited = {d for judged in train.qrels.values() for d in positives(judged)}
    sharing = sum(1 for judged in test.qrels.values() if positives(judged) & cited)
    print(f"test claims citing a document that a train claim cites: {sharing} of {len(test.qrels)}")
    claims = [q for q in train.queries if q in train.qrels]
    vectors = np.array(bundled_bge_small("i").encode_queries([train.queries[q] for q in claims]), dtype=np.float32)
    settings = load_settings(overrides={"profile": "biomed", "data_dir": str(args.data_dir)})
    with Engine(settings) as engine:
        channels = Channels(engine)
        bm25 = [channels.bm25(train.queries[q]) for q in claims]
        dense = [channels.dense(v) for v in vectors]
    base = {q: rrf([bm25[i], dense[i]], [LEXICAL_WEIGHT, 1.0]) for i, q in enumerate(claims)}
    print(f"train hybrid (bm25 + dense), no judged neighbours: {ndcg(base, train.qrels):.4f}")
    for name, folds in (("random folds", np.arange(len(claims)) % FOLDS),
                        ("folds grouped by cited document", grouped_folds(claims, train.qrels))):
        for weight in (1.0, 2.0):
            runs: dict[str, list[str]] = {}
            for fold in range(FOLDS):
                memory = np.where(folds != fold)[0]
                judged = [train.qrels[claims[j]] for j in memory]
                for i in np.where(folds == fold)[0]:
                    extra = neighbour_list(vectors[memory] @ vectors[i], judged)
                    runs[claims[i]] = rrf([bm25[i], dense[i], extra], [LEXICAL_WEIGHT, 1.0, weight])
            print(f"{name}, judged-neighbour list weight {weight}: {ndcg(runs, train.qrels):.4f}")


if __name__ == "__main__":
    main()

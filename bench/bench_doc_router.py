"""Measure the document router on its labelled set and choose its threshold, margin and default.

    .venv/bin/python bench/bench_doc_router.py [--set eval/biomed/doc_router/documents.jsonl]
        [--corpus ../shared/data/beir/scifact/corpus.jsonl] [--corpus-scores F | --scores-out F]

Routes every document of the set once with the bundled bge-small standing in for the ``pubmedbert``
label (what a biomed install without checkpoints uses), then prints the accuracy per tier for the
previous defaults and the current ones, tunes ``confidence_threshold`` and ``ambiguous_default`` on
the tuning half by balanced accuracy and reports them on the test half
(:mod:`eagle_rag_biomed.eval.doc_router`). ``--corpus`` adds the abstracts of a BEIR corpus as
biomedical documents (each routed as one plain-text chunk: title, newline, text), split into halves
the same way; ``--scores-out`` keeps their scores (``eval/biomed/doc_router/scifact_scores.tsv`` is
that file for SciFact) and ``--corpus-scores`` reads them back instead of routing 5,183 abstracts
again. The figures are copied into eval/biomed/doc_router/README.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from eagle_rag.plugin_api.encoders import BUNDLED_BGE_SMALL, load_native_text_encoder
from eagle_rag_biomed.eval.doc_router import (
    LabelledDocument,
    accuracy_by_tier,
    balanced_accuracy,
    decide,
    load_beir_corpus,
    load_labelled_set,
    route_set,
    split_halves,
    tune,
)
from eagle_rag_biomed.ingest.doc_router import TextProfile
from eagle_rag_biomed.options import DocRouterOptions, parse_options

SET = Path(__file__).resolve().parents[1] / "eval" / "biomed" / "doc_router" / "documents.jsonl"
CORPUS_PREFIX = "corpus:"
PREVIOUS = {"confidence_threshold": 0.0, "llm_margin": 0.12, "ambiguous_default": "biomedical"}


def table(name: str, scored: list[tuple[LabelledDocument, float]], options: DocRouterOptions) -> None:
    outcomes = decide(scored, options)
    acc = accuracy_by_tier(outcomes)
    cells = "  ".join(f"{tier} {a.correct}/{a.documents} ({a.accuracy:.3f})" for tier, a in acc.items())
    print(f"{name:<34} t={options.confidence_threshold:+.3f} m={options.llm_margin:.3f} "
          f"default={options.ambiguous_default:<10}  {cells}  balanced {balanced_accuracy(outcomes):.4f}")


def read_scores(path: Path) -> dict[str, float]:
    """A scores file of ``--scores-out``: one ``id<TAB>score`` line per document."""
    rows = (line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return {doc_id: float(score) for doc_id, score in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=SET)
    parser.add_argument("--corpus", type=Path, default=None,
                        help="a BEIR corpus.jsonl of biomedical abstracts routed beside the set (e.g. SciFact)")
    parser.add_argument("--corpus-scores", type=Path, default=None,
                        help="read the corpus scores from this id<TAB>score file instead of routing the corpus")
    parser.add_argument("--scores-out", type=Path, default=None, help="write the corpus scores to this file")
    args = parser.parse_args()
    docs = load_labelled_set(args.set)
    current = parse_options({}).doc_semantic_router
    encoder = load_native_text_encoder("pubmedbert", BUNDLED_BGE_SMALL, 384)
    scored = [(doc, profile.signals["score"]) for doc, profile in route_set(docs, current, encoder)]
    by_id = {doc.id: score for doc, score in scored}
    corpus = load_beir_corpus(args.corpus, TextProfile.BIOMEDICAL, CORPUS_PREFIX) if args.corpus else []
    if corpus:
        if args.corpus_scores:
            stored = read_scores(args.corpus_scores)
            corpus_scores = {d.id: stored[d.id.removeprefix(CORPUS_PREFIX)] for d in corpus}
        else:
            corpus_scores = {doc.id: p.signals["score"] for doc, p in route_set(corpus, current, encoder)}
        if args.scores_out:
            args.scores_out.write_text("".join(f"{d.id.removeprefix(CORPUS_PREFIX)}\t{corpus_scores[d.id]:.5f}\n"
                                               for d in corpus), encoding="utf-8")
        by_id.update(corpus_scores)
    tune_half, test_half = split_halves(docs)
    corpus_tune, corpus_test = split_halves(corpus)
    tune_scored = [(d, by_id[d.id]) for d in [*tune_half, *corpus_tune]]
    test_scored = [(d, by_id[d.id]) for d in [*test_half, *corpus_test]]
    for doc, score in sorted(scored, key=lambda item: item[1]):
        print(f"  {doc.id:<8} {doc.label.value:<10} score {score:+.4f}")
    previous = current.model_copy(update=PREVIOUS)
    set_scored = [(d, by_id[d.id]) for d in test_half]
    corpus_scored = [(d, by_id[d.id]) for d in corpus_test]
    tuned = tune(tune_scored, current)
    for name, options in (("previous defaults", previous), ("current defaults", current), ("tuned", tuned)):
        table(f"{name}, set (all 60)", scored, options)
        table(f"{name}, set test half", set_scored, options)
        if corpus:
            table(f"{name}, corpus test half", corpus_scored, options)
            table(f"{name}, tuning halves", tune_scored, options)
            table(f"{name}, test halves", test_scored, options)


if __name__ == "__main__":
    main()

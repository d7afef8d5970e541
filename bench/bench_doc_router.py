"""Measure the document router on its labelled set and choose its threshold, margin and default.

    .venv/bin/python bench/bench_doc_router.py [--set eval/biomed/doc_router/documents.jsonl]

Routes every document of the set once with the bundled bge-small standing in for the ``pubmedbert``
label (what a biomed install without checkpoints uses), then prints the accuracy per tier for the
previous defaults and the current ones, tunes ``confidence_threshold``, ``llm_margin`` and
``ambiguous_default`` on the tuning half and reports them on the test half
(:mod:`eagle_rag_biomed.eval.doc_router`). The figures are copied into
eval/biomed/doc_router/README.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from eagle_rag.plugin_api import BUNDLED_BGE_SMALL, load_native_text_encoder
from eagle_rag_biomed.eval.doc_router import (
    LabelledDocument,
    accuracy_by_tier,
    decide,
    load_labelled_set,
    route_set,
    split_halves,
    tune,
)
from eagle_rag_biomed.options import DocRouterOptions, parse_options

SET = Path(__file__).resolve().parents[1] / "eval" / "biomed" / "doc_router" / "documents.jsonl"
PREVIOUS = {"confidence_threshold": 0.0, "llm_margin": 0.12, "ambiguous_default": "biomedical"}


def table(name: str, scored: list[tuple[LabelledDocument, float]], options: DocRouterOptions) -> None:
    acc = accuracy_by_tier(decide(scored, options))
    cells = "  ".join(f"{tier} {a.correct}/{a.documents} ({a.accuracy:.3f})" for tier, a in acc.items())
    print(f"{name:<34} t={options.confidence_threshold:+.3f} m={options.llm_margin:.3f} "
          f"default={options.ambiguous_default:<10}  {cells}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=SET)
    args = parser.parse_args()
    docs = load_labelled_set(args.set)
    current = parse_options({}).doc_semantic_router
    encoder = load_native_text_encoder("pubmedbert", BUNDLED_BGE_SMALL, 384)
    scored = [(doc, profile.signals["score"]) for doc, profile in route_set(docs, current, encoder)]
    by_id = {doc.id: score for doc, score in scored}
    tune_half, test_half = split_halves(docs)
    tune_scored = [(d, by_id[d.id]) for d in tune_half]
    test_scored = [(d, by_id[d.id]) for d in test_half]
    for doc, score in sorted(scored, key=lambda item: item[1]):
        print(f"  {doc.id:<8} {doc.label.value:<10} score {score:+.4f}")
    previous = current.model_copy(update=PREVIOUS)
    for name, part in (("previous defaults, all", scored), ("current defaults, all", scored),
                       ("current defaults, test half", test_scored)):
        table(name, part, previous if name.startswith("previous") else current)
    tuned = tune(tune_scored, current)
    table("tuned on the tuning half", tune_scored, tuned)
    table("tuned, test half", test_scored, tuned)
    table("tuned, all", scored, tuned)


if __name__ == "__main__":
    main()

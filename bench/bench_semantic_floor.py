"""Calibrate ``search.min_dense_similarity``: how close are semantic-only hits that matter?

    .venv/bin/python bench/bench_semantic_floor.py --data-dir DIR [--profile biomed] [--split train]

A semantic-only hit shares no term with the query; its only evidence is the cosine of the dense
channel. The floor drops such hits below a cosine, so a query about nothing in the corpus gets an
honest empty answer instead of the five least-distant passages. This script runs the BEIR queries
of ``--split`` in mode ``hybrid`` (top 100, floor off) on an index built by ``eagle-rag eval beir
--data-dir DIR``, and prints for each candidate floor how many judged-relevant hits of the top 10
it would drop, nDCG@10 with the floor applied (the hits below it removed, the list cut at 10
afterwards, as the service does), and the cosine of the best semantic-only hit for off-topic
queries written here (no term in common with a biomedical corpus).
"""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

import numpy as np
from ranx import Qrels, Run, evaluate

from eagle_rag.engine import Engine
from eagle_rag.evaluation.beir import KB_NAME, load_beir
from eagle_rag.service.searching import floor_keeps, trail_cosine
from eagle_rag.settings import load_settings
from eagle_rag.types import MatchKind, SearchHit, SearchMode, SearchRequest

FLOORS = (0.0, 0.5, 0.55, 0.6, 0.65, 0.7)
OFF_TOPIC = ("zxqv blorf wibble", "asdfgh qwerty", "the weather in Paris tomorrow", "football world cup final score",
             "how to bake sourdough bread", "cheap flights to Lisbon in May", "best electric guitar for beginners",
             "who won the chess olympiad", "JavaScript promise chaining tutorial", "lyrics of a summer pop song")


def kept(hits: tuple[SearchHit, ...], floor: float) -> list[SearchHit]:
    """The hits the service keeps under ``floor`` (its own rule, :func:`eagle_rag.service.searching.floor_keeps`)."""
    return [h for h in hits if floor_keeps(floor, trail_cosine(h.trail), lambda h=h: h.match)]


def main() -> None:
    logging.getLogger("pymilvus").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--beir", type=Path, default=Path("../shared/data/beir/scifact"))
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--profile", default="biomed")
    parser.add_argument("--split", default="train")
    args = parser.parse_args()
    data = load_beir(args.beir, args.split)
    settings = load_settings(overrides={"profile": args.profile, "data_dir": str(args.data_dir),
                                        "search": {"min_dense_similarity": 0.0}})
    results: dict[str, tuple[SearchHit, ...]] = {}
    with Engine(settings) as engine:
        for qid, text in data.queries.items():
            results[qid] = engine.search(SearchRequest(query=text, top_k=100, mode=SearchMode.HYBRID,
                                                       kb_names=(KB_NAME,), explain=True)).hits
        off_topic = [engine.search(SearchRequest(query=q, top_k=5, mode=SearchMode.HYBRID, kb_names=(KB_NAME,),
                                                 explain=True)).hits for q in OFF_TOPIC]
    doc = {h.id: str(h.metadata.get("record_id", h.document_id)) for hits in results.values() for h in hits}
    semantic = [c for hits in results.values() for h in hits[:10]
                if h.match is MatchKind.SEMANTIC and (c := trail_cosine(h.trail)) is not None]
    relevant_semantic = [c for q, hits in results.items() for h in hits[:10]
                         if h.match is MatchKind.SEMANTIC and (c := trail_cosine(h.trail)) is not None
                         and data.qrels.get(q, {}).get(doc[h.id], 0) > 0]
    best_off = [max((c for h in hits if h.match is MatchKind.SEMANTIC and (c := trail_cosine(h.trail)) is not None),
                    default=0.0) for hits in off_topic]
    print(f"{len(results)} queries ({args.split}); semantic-only hits in the top 10: {len(semantic)}, "
          f"of them judged relevant: {len(relevant_semantic)}")
    print(f"off-topic queries, best semantic-only cosine: max {max(best_off):.3f}, "
          f"median {float(np.median(best_off)):.3f}")
    print(f"{'floor':>6} {'relevant dropped':>17} {'nDCG@10':>8} {'off-topic answered':>19}")
    for floor in FLOORS:
        run: dict[str, dict[str, float]] = {}
        for qid, hits in results.items():
            ranked = list(dict.fromkeys(doc[h.id] for h in kept(hits, floor)))[:10]
            run[qid] = {d: float(10 - i) for i, d in enumerate(ranked)} or {"__none__": 0.0}
        score = float(evaluate(Qrels(data.qrels), Run(run), "ndcg@10", make_comparable=True))
        dropped = sum(c < floor for c in relevant_semantic)
        answered = sum(bool(kept(hits, floor)) for hits in off_topic)
        print(f"{floor:>6.2f} {dropped:>17} {score:>8.4f} {answered:>12} of {len(OFF_TOPIC)}", flush=True)


if __name__ == "__main__":
    main()

"""Measure the relevance probability (issue 38): collect judged hits, fit, report calibration.

    # 1. run the judged queries of a BEIR folder and keep the top-10 hits with their trails and labels
    python bench/bench_relevance.py collect --beir /work/idx/bioasq_sub --split dev \
        --query-set eval/biomed/bioasq_split.json --part tune --data-dir COPY --mode full --limit 150 \
        --out runs/bioasq_tune_full.jsonl
    # 2. fit a model per mode on the training files (writes a parameters file); a key MODE/KIND fits the
    #    model of one query kind on the hits of that kind's queries, and --base keeps another file's models
    python bench/bench_relevance.py fit --profile biomed --out PARAMS.json \
        --train full=runs/bioasq_tune_full.jsonl --train hybrid=runs/bioasq_tune_hybrid.jsonl
    python bench/bench_relevance.py fit --profile biomed --base PARAMS.json --out PARAMS2.json \
        --train hybrid/statement=runs/scifact_train_hybrid.jsonl
    # 3. ECE / Brier / confident top hits on the test files, and a reliability diagram per file
    python bench/bench_relevance.py report --params PARAMS.json --test full=runs/bioasq_test_full.jsonl \
        --png-dir bench/relevance

Unjudged hits count as not relevant (as in nDCG): the true probability is higher than the judged one.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from eagle_rag.engine import Engine
from eagle_rag.evaluation import beir, calibrate
from eagle_rag.retrieve import relevance
from eagle_rag.settings import effective_settings
from eagle_rag.types import SearchMode

TOP = 10
"""Fits and calibration figures read the top 10 hits of every query (a collect may keep more)."""


def _collect(args: argparse.Namespace) -> None:
    judged = beir.load_beir(args.beir, args.split)
    only = None
    if args.query_set:
        only = [q for q in beir.query_set(args.query_set, args.part) if q in judged.queries]
    data = beir.load_beir(args.beir, args.split, args.limit, args.offset, only)
    settings = effective_settings(overrides={"data_dir": str(args.data_dir)})[0]
    started = time.perf_counter()
    mode = SearchMode.from_str(args.mode)

    def progress(n: int) -> None:
        if n % 10 == 0 or n == len(data.queries):
            print(f"{args.mode}: {n}/{len(data.queries)} queries, {time.perf_counter() - started:.0f} s",
                  file=sys.stderr, flush=True)

    with Engine(settings) as engine:
        if args.run_json is None:
            hits = calibrate.collect(engine, data, mode, depth=args.depth, min_grade=args.min_grade,
                                     progress=progress)
        else:  # one pass: the pipeline's figures (as eval beir --json) and the hits
            hits = []
            result = beir.run_pipeline(engine, data, mode, progress=progress, explain=True,
                                       observe=lambda qid, response: hits.extend(calibrate.judged_hits(
                                           qid, response, data.qrels.get(qid, {}), args.depth, args.min_grade)))
            args.run_json.write_text(json.dumps(beir.results_json([result], settings.profile), indent=2))
            print(beir.format_table([result]))
    calibrate.save_hits(hits, args.out)
    print(f"{args.out}: {len(data.queries)} queries, {len(hits)} hits, "
          f"{sum(h.relevant for h in hits)} relevant")


def _pairs(values: list[str]) -> list[tuple[str, Path]]:
    return [(v.split("=", 1)[0], Path(v.split("=", 1)[1])) for v in values]


def _complete_queries(root: Path | None, split: str) -> set[str] | None:
    """The queries of a BEIR folder whose every relevant document is in its corpus (None: no folder given).

    A sub-corpus (/work/idx/bioasq_sub) holds every judged document of some queries only; on the others an
    absent relevant document would make the unjudged-as-irrelevant labels wrong, so they are left out."""
    if root is None:
        return None
    with (root / "corpus.jsonl").open(encoding="utf-8") as fh:
        ids = {json.loads(line)["_id"] for line in fh if line.strip()}
    qrels, _ = beir.read_judgements(root / "queries.jsonl", root / "qrels" / f"{split}.tsv")
    return {q for q, docs in qrels.items() if set(docs) <= ids}


def _load(paths: str, keep: set[str] | None, depth: int | None = TOP) -> list[calibrate.JudgedHit]:
    """The hits of the files ``paths`` (comma-separated) of the queries in ``keep`` (all when None), at
    positions up to ``depth`` (all when None)."""
    hits = [h for p in paths.split(",") for h in calibrate.load_hits(Path(p))]
    return [h for h in hits if (keep is None or h.query_id in keep) and (depth is None or h.position <= depth)]


def _fit(args: argparse.Namespace) -> None:
    models = dict(relevance.load_parameters(args.base).models) if args.base else {}
    keep = _complete_queries(args.complete_in, args.split)
    for key, path in _pairs(args.train):
        mode, _, kind = key.partition("/")
        hits = [h for h in _load(path.as_posix(), keep) if not kind or h.kind == relevance.QueryKind(kind)]
        models[key] = calibrate.fit_samples(hits, SearchMode.from_str(mode), args.fitted_on or str(path))
        print(f"{key}: {len({h.query_id for h in hits})} queries", json.dumps(models[key].to_dict()))
    relevance.RelevanceParameters(args.profile, models).save(args.out)


def _report(args: argparse.Namespace) -> None:
    params = relevance.load_parameters(args.params)
    keep = _complete_queries(args.complete_in, args.split)
    print(f"{'test set':<24} {'mode':<7} {'queries':>7} {'hits':>5} {'ECE':>7} {'Brier':>7} {'top>=.5':>8} "
          f"{'right':>6}")
    for label, path in _pairs(args.test):
        name, mode = label.split(":") if ":" in label else (Path(path.as_posix().split(",")[0]).stem, label)
        hits = _load(path.as_posix(), keep)
        r = calibrate.reliability(calibrate.annotating(params, mode), hits)
        kinds = sorted({h.kind.value for h in hits})
        print(f"{name:<24} {mode:<7} {len({h.query_id for h in hits}):>7} {r.hits:>5} {r.ece:>7.4f} "
              f"{r.brier:>7.4f} {r.confident_queries:>8} {r.confident_right:>6.3f}  kinds: {', '.join(kinds)}")
        if args.png_dir:
            _diagram(r, f"{name} ({mode})", args.png_dir / f"{name}_{mode}.png")


def _rank(args: argparse.Namespace) -> None:
    """nDCG@10 of every query with the collected hits in their order and re-sorted by the probability (the
    top ``--depth`` re-sorted, ties kept in order), paired per query: mean difference and its standard error."""
    import numpy as np
    from ranx import Qrels, Run, evaluate
    from scipy import stats

    params = relevance.load_parameters(args.params)
    data = beir.load_beir(args.beir, args.split)
    print(f"{'set':<28} {'mode':<7} {'queries':>7} {'as ranked':>9} {'by prob.':>9} {'diff':>8} {'SE':>7}")
    for label, path in _pairs(args.test):
        name, mode = label.split(":") if ":" in label else (Path(path.as_posix().split(",")[0]).stem, label)
        model = params.models[mode]
        by_query: dict[str, list[calibrate.JudgedHit]] = {}
        for h in _load(path.as_posix(), None, args.depth):
            by_query.setdefault(h.query_id, []).append(h)
        runs: dict[str, dict[str, dict[str, float]]] = {"ranked": {}, "prob": {}}
        for qid, hits in by_query.items():
            hits.sort(key=lambda h: h.position)
            probs = [model.probability(h.features()) for h in hits]
            resorted = [h for _, h in sorted(zip(probs, hits, strict=True), key=lambda t: (-t[0], t[1].position))]
            for key, order in (("ranked", hits), ("prob", resorted)):
                runs[key][qid] = {}
                for i, h in enumerate(order):
                    runs[key][qid].setdefault(h.document, float(len(order) - i))
        qrels = Qrels({q: data.qrels[q] for q in by_query if q in data.qrels})
        scores = {}
        for key, run in runs.items():
            scored = Run(run)
            evaluate(qrels, scored, "ndcg@10", make_comparable=True)
            scores[key] = dict(scored.scores["ndcg@10"])
        ids = sorted(scores["ranked"])
        a = np.array([scores["ranked"][q] for q in ids])
        b = np.array([scores["prob"].get(q, 0.0) for q in ids])
        print(f"{name:<28} {mode:<7} {len(ids):>7} {a.mean():>9.4f} {b.mean():>9.4f} {(b - a).mean():>+8.4f} "
              f"{float(stats.sem(b - a)):>7.4f}")


def _diagram(r: calibrate.Reliability, title: str, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(4, 4))
    ax.plot([0, 1], [0, 1], "k:", lw=1)
    ax.plot([b[0] for b in r.bins], [b[1] for b in r.bins], "o-")
    for mean, share, n in r.bins:
        ax.annotate(str(n), (mean, share), fontsize=7, xytext=(3, -9), textcoords="offset points")
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="relevance (predicted)", ylabel="share judged relevant",
           title=f"{title}\nECE {r.ece:.3f}, Brier {r.brier:.3f}")
    fig.tight_layout()
    fig.savefig(out, dpi=80)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(required=True)
    c = sub.add_parser("collect")
    c.add_argument("--beir", type=Path, required=True)
    c.add_argument("--split", default="test")
    c.add_argument("--query-set", type=Path)
    c.add_argument("--part", default="tune")
    c.add_argument("--data-dir", type=Path, required=True)
    c.add_argument("--mode", default="hybrid")
    c.add_argument("--limit", type=int)
    c.add_argument("--offset", type=int, default=0)
    c.add_argument("--min-grade", type=int, default=1)
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--depth", type=int, default=TOP, help="hits kept per query (fit and report read the top 10)")
    c.add_argument("--run-json", type=Path, help="also score the run (top 100) and write it here as eval beir "
                   "--json does, from the same searches")
    c.set_defaults(func=_collect)
    f = sub.add_parser("fit")
    f.add_argument("--profile", required=True)
    f.add_argument("--train", action="append", required=True, help="MODE[/KIND]=FILE[,FILE...] (KIND: "
                   f"{', '.join(relevance.QueryKind)}; only that kind's queries)")
    f.add_argument("--base", type=Path, help="a parameters file whose models are kept (those trained replace theirs)")
    f.add_argument("--fitted-on", default="")
    f.add_argument("--out", type=Path, required=True)
    f.add_argument("--complete-in", type=Path, help="BEIR folder: keep the queries all of whose relevant "
                   "documents its corpus holds")
    f.add_argument("--split", default="test")
    f.set_defaults(func=_fit)
    r = sub.add_parser("report")
    r.add_argument("--params", type=Path, required=True)
    r.add_argument("--test", action="append", required=True, help="[NAME:]MODE=FILE")
    r.add_argument("--png-dir", type=Path)
    r.add_argument("--complete-in", type=Path, help="as for fit")
    r.add_argument("--split", default="test")
    r.set_defaults(func=_report)
    k = sub.add_parser("rank", help="nDCG@10 as ranked against re-sorted by the probability (issue 38 item 4)")
    k.add_argument("--params", type=Path, required=True)
    k.add_argument("--test", action="append", required=True, help="[NAME:]MODE=FILE (collected with --depth)")
    k.add_argument("--beir", type=Path, required=True, help="the BEIR folder whose qrels score the runs")
    k.add_argument("--split", default="test")
    k.add_argument("--depth", type=int, default=30, help="re-sort the top N collected hits")
    k.set_defaults(func=_rank)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()

"""BioASQ dev: settings variants on one index, and paired comparisons per query and per question type.

``sweep`` opens the index of ``--data-dir`` (built by ``eagle-rag eval beir``) once per ``--config
NAME=JSON`` (settings overrides on top of the environment's profile, e.g. ``'{"router":
{"sentence_weight": 0}}'``), runs the queries of one part of ``eval/biomed/bioasq_split.json`` with
each ``--mode`` (``--across``: over an index written under other settings, on purpose) and writes
``OUT/NAME.json`` in the format of ``eval beir --json`` (every query's
nDCG@10, Recall@100 and ms). ``compare A.json B.json`` prints, for each pipeline both runs hold, the
mean of each, the mean paired difference (B - A) over the queries both ran, its standard error
(``scipy.stats.sem``) and a paired t-test, overall and per BioASQ question type (factoid, list, yesno,
summary: ``metadata.type`` of queries.jsonl)::

    EAGLE_RAG_PROFILE=biomed .venv/bin/python bench/bench_bioasq.py sweep --data-dir DIR --part tune \
        --limit 300 --mode hybrid --out runs/ --config base={} --config nosent='{"router":{"sentence_weight":0}}'
    .venv/bin/python bench/bench_bioasq.py compare runs/base.json runs/nosent.json [--metric ndcg@10]

``subcorpus OUT --part test:300 --part tune:150 --size 6000`` writes a BEIR folder (all the queries and
qrels, a part of the corpus) for an index that fits a session: the golden snippets of the first N
questions of each named part, then other snippets drawn with ``random.Random(--seed)`` (37) up to
``--size``, in corpus order. Figures over it are higher than over the whole corpus (fewer distractors).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path

import numpy as np
from scipy import stats

from eagle_rag.engine import Engine
from eagle_rag.evaluation.beir import ensure_index, load_beir, query_set, run_pipeline
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchMode

ROOT = Path(__file__).resolve().parents[1]
BIOASQ = ROOT.parent / "shared" / "data" / "beir" / "bioasq_dev"
QUERIES = BIOASQ / "queries.jsonl"
SPLIT = ROOT / "eval" / "biomed" / "bioasq_split.json"


def question_types(path: Path) -> dict[str, str]:
    """Query id -> BioASQ question type (empty when the file is missing)."""
    if not path.is_file():
        return {}
    out: dict[str, str] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                obj = json.loads(line)
                out[str(obj["_id"])] = str(obj.get("metadata", {}).get("type", ""))
    return out


def paired(a: dict[str, float], b: dict[str, float]) -> tuple[int, float, float, float, float, float]:
    """(n, mean A, mean B, mean B - A, SE of the difference, two-sided paired t-test p) over common ids."""
    ids = sorted(set(a) & set(b))
    x = np.array([a[q] for q in ids])
    y = np.array([b[q] for q in ids])
    if len(ids) < 2:
        return len(ids), float(x.mean()) if ids else 0.0, float(y.mean()) if ids else 0.0, 0.0, 0.0, 1.0
    d = y - x
    p = float(stats.ttest_rel(y, x).pvalue) if d.any() else 1.0
    return len(ids), float(x.mean()), float(y.mean()), float(d.mean()), float(stats.sem(d)), p


def sweep(args: argparse.Namespace) -> None:
    """Run every config on the chosen queries; write OUT/NAME.json per config."""
    data = load_beir(args.beir, "dev", args.limit, args.offset, query_set(args.split_file, args.part))
    args.out.mkdir(parents=True, exist_ok=True)
    for spec in args.config:
        name, _, raw = spec.partition("=")
        overrides = {**json.loads(raw or "{}"), "data_dir": str(args.data_dir)}
        settings = load_settings(overrides=overrides)
        results: dict[str, object] = {}
        with Engine(settings) as engine:
            if not args.across:
                ensure_index(engine, data)
            for mode in args.mode:
                r = run_pipeline(engine, data, SearchMode(mode))
                results[mode] = {**r.to_dict(), "profile": settings.profile, "config": overrides, "per_query": {
                    q: {"ndcg@10": v, "recall@100": r.per_query_recall.get(q, 0.0), "ms": r.per_query_ms.get(q, 0.0)}
                    for q, v in r.per_query_ndcg.items()}}
                d = r.to_dict()
                print(f"{name:<16} {mode:<7} n={d['queries']} nDCG@10 {d['ndcg@10']:.4f} R@100 {d['recall@100']:.4f} "
                      f"p50 {d['latency_ms']['p50']:.0f} ms", flush=True)
        (args.out / f"{name}.json").write_text(json.dumps(results, indent=1))


def subcorpus(args: argparse.Namespace) -> None:
    """Write OUT/corpus.jsonl (golden snippets of the named part prefixes + seeded others), queries, qrels."""
    split = json.loads(args.split_file.read_text(encoding="utf-8"))
    golden: dict[str, set[str]] = {}
    with (args.beir / "qrels" / "dev.tsv").open(encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            qid, doc, score = line.rstrip("\n").split("\t")
            if int(score) > 0:
                golden.setdefault(qid, set()).add(doc)
    keep: set[str] = set()
    for spec in args.part:
        name, _, count = spec.partition(":")
        for qid in split[name][: int(count) if count else None]:
            keep |= golden.get(qid, set())
    lines = (args.beir / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    ids = [json.loads(line)["_id"] for line in lines]
    others = sorted(set(ids) - keep)
    keep |= set(random.Random(args.seed).sample(others, max(0, min(len(others), args.size - len(keep)))))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "corpus.jsonl").write_text("".join(f"{line}\n" for line, i in zip(lines, ids, strict=True)
                                                   if i in keep), encoding="utf-8")
    shutil.copy(args.beir / "queries.jsonl", args.out / "queries.jsonl")
    shutil.copytree(args.beir / "qrels", args.out / "qrels", dirs_exist_ok=True)
    print(f"{len(keep)} snippets ({args.size} asked) in {args.out}")


def compare(args: argparse.Namespace) -> None:
    run_a, run_b = json.loads(args.a.read_text()), json.loads(args.b.read_text())
    types = question_types(args.queries)
    pipelines = args.pipeline or [p for p in run_a if p in run_b]
    print(f"A = {args.a}  B = {args.b}  metric {args.metric}")
    print(f"{'pipeline':<8} {'type':<8} {'n':>4} {'A':>8} {'B':>8} {'B-A':>8} {'SE':>7} {'p':>6}")
    for pipeline in pipelines:
        per_a = {q: v[args.metric] for q, v in run_a[pipeline]["per_query"].items()}
        per_b = {q: v[args.metric] for q, v in run_b[pipeline]["per_query"].items()}
        groups = [("all", None), *((t, t) for t in sorted(set(types.values())))]
        for name, kind in groups:
            ids = [q for q in per_a if kind is None or types.get(q) == kind]
            if not ids:
                continue
            n, ma, mb, diff, se, p = paired({q: per_a[q] for q in ids}, per_b)
            print(f"{pipeline:<8} {name:<8} {n:>4} {ma:>8.4f} {mb:>8.4f} {diff:>+8.4f} {se:>7.4f} {p:>6.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sw = sub.add_parser("sweep", help="run settings variants on one index")
    sw.add_argument("--data-dir", type=Path, required=True)
    sw.add_argument("--beir", type=Path, default=BIOASQ)
    sw.add_argument("--split-file", type=Path, default=SPLIT)
    sw.add_argument("--part", default="tune")
    sw.add_argument("--limit", type=int, default=None, help="first N queries of the part")
    sw.add_argument("--offset", type=int, default=0, help="skip the first N queries of the part")
    sw.add_argument("--mode", action="append", choices=[m.value for m in SearchMode], required=True)
    sw.add_argument("--config", action="append", required=True, help="NAME=JSON settings overrides")
    sw.add_argument("--out", type=Path, required=True)
    sw.add_argument("--across", action="store_true", help="search the index as it is, whatever settings wrote "
                    "it (an experiment: the query stages of one profile over an index another wrote)")
    cmp = sub.add_parser("compare", help="paired difference of two runs")
    cmp.add_argument("a", type=Path)
    cmp.add_argument("b", type=Path)
    cmp.add_argument("--metric", default="ndcg@10", choices=["ndcg@10", "recall@100", "ms"])
    cmp.add_argument("--pipeline", action="append", help="pipelines to compare (default: every common one)")
    cmp.add_argument("--queries", type=Path, default=QUERIES, help="queries.jsonl with metadata.type")
    sc = sub.add_parser("subcorpus", help="a seeded part of the corpus with the golden snippets of some questions")
    sc.add_argument("out", type=Path)
    sc.add_argument("--beir", type=Path, default=BIOASQ)
    sc.add_argument("--split-file", type=Path, default=SPLIT)
    sc.add_argument("--part", action="append", required=True, help="PART[:N]: the golden snippets of its first N")
    sc.add_argument("--size", type=int, required=True, help="snippets in all (golden ones first)")
    sc.add_argument("--seed", type=int, default=37)
    args = parser.parse_args()
    {"sweep": sweep, "compare": compare, "subcorpus": subcorpus}[args.command](args)


if __name__ == "__main__":
    main()

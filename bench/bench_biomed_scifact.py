"""The biomed pipeline on a BEIR set (SciFact): stage ablation, latency, and Tier-2 weight tuning.

    EAGLE_RAG_PROFILE=biomed .venv/bin/python bench/bench_biomed_scifact.py ablation \\
        --beir ../shared/data/beir/scifact --data-dir DIR [--split test] [--limit-queries N] [--json OUT]
    .venv/bin/python bench/bench_biomed_scifact.py tune --beir ... --data-dir DIR --split train --limit-queries 200

``ablation`` runs the cumulative configurations of :data:`ABLATION` (each a search mode plus the
``stages`` switches of the biomed plugin options; the dense-suffix row forces the suffix on, later rows
use its default, ``auto``) and prints nDCG@10, Recall@100, MRR@10 and the
latency per query (p50 / p95); ``--runs DIR`` keeps each row's ranked documents and latency per claim
(one JSON line per claim, written as it is answered) and ``score --runs FILE`` scores such a log, also
one stopped early, writing every claim's nDCG@10 next to it (``--against LOG`` adds the difference
from a second log, paired per claim, with its standard error). ``tune`` runs the full pipeline once
with every Tier-2 signal recorded
(cross-encoder and late interaction included; ``--json`` saves the recording, ``--score-cache`` memoises
the model scores for a later recording), then searches the weights offline on the recorded signals
(exact: the signals do not depend on the weights) for each pool size of ``--pools`` and both
normalisations (``tier2.normalise``: min-max of the scores, or their reciprocal rank), and prints the
best weights, a 5-fold cross-validated estimate and the figures per workflow. ``--recorded FILE``
re-searches a saved recording without running the pipeline. ``siblings --recorded REC --score-cache
CACHE`` scores every chunk of each pool document with both models and lets the best chunk stand for the
document (against the recorded chunk, at the default weights). ``sentences --recorded REC
--score-cache CACHE`` scores single sentences (name in front) of the first ``--sentence-pool`` pool
documents with the cross-encoder and adds the best one as a signal. Tune on the
train split only; evaluate once on test. The index is built by ``eagle-rag eval beir`` (re-used here).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import logging
import math
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from ranx import Qrels, Run, evaluate
from tantivy import Query

from eagle_rag.engine import Engine
from eagle_rag.evaluation.beir import KB_NAME, ensure_index, load_beir, percentile, query_set
from eagle_rag.ingest.dispatch import embed_input
from eagle_rag.ingest.sentences import sentence_chunks
from eagle_rag.settings import load_settings
from eagle_rag.stores.lexical import payload_to_chunk
from eagle_rag.types import NodeWithScore, SearchMode, SearchRequest
from eagle_rag_biomed.encoders.late_interaction import PASSAGE_TOKENS, get_scorer
from eagle_rag_biomed.hooks import query as retrieval_hooks
from eagle_rag_biomed.names import Collection
from eagle_rag_biomed.options import biomed_options
from eagle_rag_biomed.rerank import tier2 as rerank_merged
from eagle_rag_biomed.rerank.models import minmax, rank_normalised, rank_prior
from eagle_rag_biomed.rerank.signals import enrich_file_names, passage_text
from eagle_rag_biomed.rerank.weights import weights_for

OFF: dict[str, bool | str] = {"assemble": False, "dense_suffix": False, "tier1": False, "supplement": False,
                               "inject": False, "tier2": False, "cross_encoder": False, "late_interaction": False}
_T1 = {**OFF, "assemble": True, "dense_suffix": "auto", "tier1": True}
_SUP = {**_T1, "supplement": True, "inject": True}
_T2 = {**_SUP, "tier2": True}
ABLATION: list[tuple[str, SearchMode, dict[str, bool | str]]] = [
    ("hybrid", SearchMode.HYBRID, OFF),
    ("+ dense suffix", SearchMode.HYBRID, {**OFF, "assemble": True, "dense_suffix": True}),
    ("+ Tier-1", SearchMode.HYBRID, _T1),
    ("+ supplement", SearchMode.HYBRID, _SUP),
    ("+ Tier-2", SearchMode.HYBRID, _T2),
    ("+ cross-encoder", SearchMode.FULL, {**_T2, "cross_encoder": True}),
    ("+ late interaction", SearchMode.FULL, {**_T2, "cross_encoder": True, "late_interaction": True}),
]


def engine_for(data_dir: Path, options: dict[str, Any]) -> Engine:
    settings = load_settings(overrides={"profile": "biomed", "data_dir": str(data_dir),
                                        "plugins": {"options": {"biomed": options}}})
    return Engine(settings)


def run(engine: Engine, data: Any, mode: SearchMode, top_k: int = 100,
        log: Path | None = None) -> tuple[dict[str, float], list[float]]:
    """Every claim of ``data`` through ``engine``; with ``log``, one JSON line per claim as it is answered
    (``qid``, ranked ``docs``, ``ms``), so a run stopped early can still be scored (``score``)."""
    runs: dict[str, dict[str, float]] = {}
    latencies: list[float] = []
    with (log.open("w", encoding="utf-8") if log else contextlib.nullcontext()) as out:
        for qid, text in data.queries.items():
            started = time.perf_counter()
            response = engine.search(SearchRequest(query=text, top_k=top_k, mode=mode, kb_names=(KB_NAME,)))
            latencies.append((time.perf_counter() - started) * 1000)
            docs = list(dict.fromkeys(str(hit.metadata.get("record_id", hit.document_id)) for hit in response.hits))
            runs[qid] = {doc: float(top_k - rank) for rank, doc in enumerate(docs)} or {"__none__": 0.0}
            if out is not None:
                out.write(json.dumps({"qid": qid, "docs": docs, "ms": round(latencies[-1], 1)}) + "\n")
                out.flush()
    return scored(data.qrels, runs), latencies


def scored(qrels: dict[str, dict[str, int]], runs: dict[str, dict[str, float]]) -> dict[str, float]:
    """nDCG@10, Recall@100 and MRR@10 of ``runs`` over the claims it holds."""
    judged = {q: qrels[q] for q in runs}
    metrics = evaluate(Qrels(judged), Run(runs), ["ndcg@10", "recall@100", "mrr@10"], make_comparable=True)
    return {k: round(float(v), 4) for k, v in dict(metrics).items()}


def claim_scores(path: Path, data: Any) -> tuple[dict[str, float], list[float]]:
    """Each claim's nDCG@10 in a claim log (also one stopped early), and its latencies in ms, sorted."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    runs = {r["qid"]: {d: float(100 - i) for i, d in enumerate(r["docs"])} or {"__none__": 0.0} for r in lines}
    run = Run(runs)
    evaluate(Qrels({q: data.qrels[q] for q in runs}), run, "ndcg@10", return_mean=False, make_comparable=True)
    per_claim = run.scores["ndcg@10"]  # by claim id: ranx orders its returned array by sorted id
    return {q: float(per_claim[q]) for q in runs}, sorted(float(r["ms"]) for r in lines)


def score(args: argparse.Namespace, data: Any) -> None:
    """Score the claim log of ``--runs`` (also one stopped early) and write each claim's nDCG@10 next to it;
    with ``--against LOG``, the difference from that log over the claims both hold, paired per claim."""
    path = Path(args.runs)
    per_claim, latencies = claim_scores(path, data)
    mean = sum(per_claim.values()) / len(per_claim)
    print(f"{path}: {len(per_claim)} of {len(data.queries)} claims  nDCG@10 {mean:.4f}  "
          f"p50 {percentile(latencies, 50):.0f} ms  p95 {percentile(latencies, 95):.0f} ms")
    path.with_suffix(".ndcg.json").write_text(json.dumps(per_claim))
    if args.against:
        other, other_ms = claim_scores(Path(args.against), data)
        common = [q for q in per_claim if q in other]
        diffs = np.asarray([per_claim[q] - other[q] for q in common])
        se = float(diffs.std(ddof=1) / math.sqrt(len(diffs))) if len(diffs) > 1 else float("nan")
        print(f"against {args.against}: {len(common)} claims  {np.mean([other[q] for q in common]):.4f} -> "
              f"{np.mean([per_claim[q] for q in common]):.4f}  difference {diffs.mean():+.4f}  SE {se:.4f}  "
              f"up / down {int((diffs > 1e-9).sum())} / {int((diffs < -1e-9).sum())}  "
              f"p50 {percentile(other_ms, 50):.0f} -> {percentile(latencies, 50):.0f} ms")


def ablation(args: argparse.Namespace, data: Any) -> None:
    rows = []
    base = json.loads(args.options) if args.options else {}
    for name, mode, stages in ABLATION:
        if args.only and name not in args.only.split(","):
            continue
        log = Path(args.runs) / f"{args.split}-{name.strip('+ ').replace(' ', '-')}.jsonl" if args.runs else None
        with engine_for(args.data_dir, {**base, "stages": {**stages, **base.get("stages", {})}}) as engine:
            metrics, lat = run(engine, data, mode, log=log)
        lat.sort()
        row = {"config": name, "mode": mode.value, **metrics, "p50_ms": round(percentile(lat, 50), 1),
               "p95_ms": round(percentile(lat, 95), 1)}
        rows.append(row)
        print(f"{name:<20} {mode.value:<7} nDCG@10 {metrics['ndcg@10']:.4f}  R@100 {metrics['recall@100']:.4f}  "
              f"MRR@10 {metrics['mrr@10']:.4f}  p50 {row['p50_ms']:.0f} ms  p95 {row['p95_ms']:.0f} ms", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


@contextmanager
def recording() -> Iterator[list[dict[str, Any]]]:
    """Record, per Tier-2 call, the incoming ids, the pool's signals and the workflow."""
    records: list[dict[str, Any]] = []
    original_rerank, original_fuse = retrieval_hooks.post_rrf_rerank, rerank_merged.fuse_signals

    def fuse(nodes: Any, signals: Any, weights: Any) -> Any:
        records[-1]["pool"] = [str(n.node.metadata.get("record_id", n.node.document_id)) for n in nodes]
        records[-1]["signals"] = signals.__dict__
        return original_fuse(nodes, signals, weights)

    def rerank(ctx: Any, query: str, nodes: Any, intent: Any) -> Any:
        records.append({"query": query, "workflow": intent.workflow,
                        "ids": [str(n.node.metadata.get("record_id", n.node.document_id)) for n in nodes]})
        return original_rerank(ctx, query, nodes, intent)

    retrieval_hooks.post_rrf_rerank, rerank_merged.fuse_signals = rerank, fuse  # type: ignore[assignment]
    try:
        yield records
    finally:
        retrieval_hooks.post_rrf_rerank, rerank_merged.fuse_signals = original_rerank, original_fuse  # type: ignore[assignment]


def cache_key(kind: str, label: str, max_chars: int, with_name: bool, cut: int, query: str,
              node: NodeWithScore) -> str:
    """The score-cache key of one (model, query, passage). Keys written before the token cut existed
    mean the default cut; a passage that reads the same with its name (the text starts with it) shares
    the key of the passage without it."""
    suffix = f"|{cut}" if cut != PASSAGE_TOKENS else ""
    named = with_name and embed_input(node.node) != node.node.text
    return f"{kind}|{label}|{max_chars}|{named}{suffix}|{query}|{node.node.id}"


@contextmanager
def score_cache(path: str) -> Iterator[None]:
    """Memoise the Tier-2 model scores per (signal, label, query, chunk, cut) in ``path`` (JSON), if given.

    The scores depend on the query and the passage only, so a second recording with other stage
    switches or a larger pool re-uses them and runs the models only on new candidates.
    """
    if not path:
        yield
        return
    store: dict[str, float] = json.loads(Path(path).read_text()) if Path(path).exists() else {}
    originals = rerank_merged.cross_encoder_scores, rerank_merged.late_interaction_scores

    def cached(kind: str, fn: Any) -> Any:
        def wrapper(ctx: Any, label: str, query: str, nodes: Any, max_chars: int, with_name: bool = False,
                    *more: Any) -> Any:
            # ``more``: the late-interaction token cut
            keys = [cache_key(kind, label, max_chars, with_name, more[0] if more else PASSAGE_TOKENS, query, n)
                    for n in nodes]
            missing = [i for i, key in enumerate(keys) if key not in store]
            if missing:
                scores = fn(ctx, label, query, [nodes[i] for i in missing], max_chars, with_name, *more)
                if scores is None:
                    return None
                store.update({keys[i]: s for i, s in zip(missing, scores, strict=True)})
            return [store[key] for key in keys]
        return wrapper

    rerank_merged.cross_encoder_scores = cached("ce", originals[0])  # type: ignore[assignment]
    rerank_merged.late_interaction_scores = cached("li", originals[1])  # type: ignore[assignment]
    try:
        yield
    finally:
        rerank_merged.cross_encoder_scores, rerank_merged.late_interaction_scores = originals  # type: ignore[assignment]
        Path(path).write_text(json.dumps(store))


def _injected(prior: list[float]) -> list[bool]:
    """Which pool members were injected supplement hits (prior 0.0 anywhere but the last place)."""
    return [p == 0.0 and i < len(prior) - 1 for i, p in enumerate(prior)]


def fused_order(rec: dict[str, Any], w: dict[str, float], pool_size: int, normalise: str = "minmax",
                k: int = 60) -> list[str]:
    """The ranking the Tier-2 formula gives one recorded query with weights ``w``, over the first
    ``pool_size`` candidates of the recorded pool (a smaller pool is re-normalised exactly: min-max is
    affine, and the rank prior is recomputed)."""
    s, pool = rec["signals"], rec["pool"][:pool_size]
    n = len(pool)
    norm = (lambda v: rank_normalised(v, k)) if normalise == "rank" else minmax
    ce, li = norm(s["ce_norm"][:n]), norm(s["li_norm"][:n])
    injected = _injected(s["prior"])[:n]
    fused = iter(rank_prior(injected.count(False), k))
    prior = [0.0 if flag else next(fused) for flag in injected]
    extra = s.get("sce_norm", [0.0] * n)  # only the ``sentences`` variant records it
    scores = [w["ce"] * ce[i] + w["li"] * li[i] + w["prior"] * prior[i] + w["entity"] * s["entity"][i]
              + w["sec"] * s["section"][i] - w["xdrug"] * s["xdrug"][i] + w.get("sce", 0.0) * extra[i]
              for i in range(n)]
    order = sorted(range(n), key=lambda i: (-scores[i], i))
    return [pool[i] for i in order] + [d for d in rec["ids"] if d not in pool]


def ndcg10(ranked: list[str], rel: dict[str, int]) -> float:
    """nDCG@10 of one ranking (a document counts at its first place; linear gains, as ranx)."""
    seen: list[str] = []
    for doc in ranked:
        if doc not in seen:
            seen.append(doc)
        if len(seen) == 10:
            break
    dcg = sum(rel.get(doc, 0) / math.log2(r + 2) for r, doc in enumerate(seen))
    ideal = sorted((g for g in rel.values() if g > 0), reverse=True)[:10]
    idcg = sum(g / math.log2(r + 2) for r, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


GRID = {"ce": [0.0, 0.15, 0.3, 0.5, 0.75], "li": [0.0, 0.25, 0.5, 0.75, 1.0, 1.5],
        "prior": [0.25, 0.5, 1.0, 1.5, 2.0], "entity": [0.0, 0.1, 0.25], "sec": [0.0, 0.15],
        "xdrug": [0.0, 2.0]}


def search_weights(by_query: dict[str, dict[str, Any]], qrels: dict[str, dict[str, int]], pools: list[int],
                   folds: int = 5) -> None:
    """Grid-search the weights per (pool, normalise); print the best and a ``folds``-fold CV estimate
    (weights chosen on the other folds, scored on the held-out one), overall and per workflow."""
    qids = list(by_query)
    shuffled = qids[:]
    random.Random(0).shuffle(shuffled)
    fold_of = {q: i % folds for i, q in enumerate(shuffled)}
    incoming = np.mean([ndcg10(by_query[q]["ids"], qrels[q]) for q in qids])
    print(f"{len(qids)} queries, incoming order nDCG@10 {incoming:.4f}")
    grid = [dict(zip(GRID, values, strict=True)) for values in itertools.product(*GRID.values())]
    for pool_size, normalise in itertools.product(pools, ("minmax", "rank")):
        table = np.array([[ndcg10(fused_order(by_query[q], w, pool_size, normalise), qrels[q]) for q in qids]
                          for w in grid])
        means = table.mean(axis=1)
        best = int(means.argmax())
        held_out = np.zeros(len(qids))
        for f in range(folds):
            train = np.array([fold_of[q] != f for q in qids])
            pick = int(table[:, train].mean(axis=1).argmax())
            held_out[~train] = table[pick, ~train]
        print(f"pool {pool_size} {normalise:<6} best nDCG@10 {means[best]:.4f} {grid[best]}  "
              f"{folds}-fold CV {held_out.mean():.4f}", flush=True)
        per_workflow = np.zeros(len(qids))
        for workflow in sorted({r["workflow"] for r in by_query.values()}):
            cols = np.array([by_query[q]["workflow"] == workflow for q in qids])
            sub = table[:, cols].mean(axis=1)
            for f in range(folds):
                train = np.array([fold_of[q] != f for q in qids]) & cols
                test = np.array([fold_of[q] == f for q in qids]) & cols
                if test.any():
                    pick = int(table[:, train].mean(axis=1).argmax()) if train.any() else best
                    per_workflow[test] = table[pick, test]
            print(f"    {workflow:<12} n={int(cols.sum()):<4} at the overall best {sub[best]:.4f}  "
                  f"own best {sub.max():.4f} {grid[int(sub.argmax())]}")
        print(f"    weights per workflow: {folds}-fold CV {per_workflow.mean():.4f}", flush=True)


def tune(args: argparse.Namespace, data: Any) -> None:
    if args.recorded:
        by_query: dict[str, dict[str, Any]] = json.loads(Path(args.recorded).read_text())
    else:
        by_query = record(args, data)
    qrels = {q: {d: int(v) for d, v in data.qrels[q].items()} for q in by_query if q in data.qrels}
    search_weights({q: r for q, r in by_query.items() if q in qrels}, qrels,
                   [int(p) for p in args.pools.split(",")])


def record(args: argparse.Namespace, data: Any) -> dict[str, dict[str, Any]]:
    """Run the full pipeline on every query with all Tier-2 signals recorded; save and return them."""
    extra = json.loads(args.options) if args.options else {}
    options = {**extra, "stages": {"late_interaction": True, **extra.get("stages", {})},
               "retrieval_scoring": {"all": {"w_li": 0.001}}}
    with engine_for(args.data_dir, options) as engine, recording() as records, score_cache(args.score_cache):
        by_query: dict[str, dict[str, Any]] = {}
        for done, (qid, text) in enumerate(data.queries.items(), 1):
            engine.search(SearchRequest(query=text, top_k=100, mode=SearchMode.FULL, kb_names=(KB_NAME,)))
            if done % 50 == 0:
                print(f"recorded {done} of {len(data.queries)} queries", flush=True)
            if records and "signals" in records[-1]:
                by_query[qid] = records[-1]
    Path(args.json or "tier2_signals.json").write_text(json.dumps(by_query))
    return by_query


def _weights(workflow: str) -> dict[str, float]:
    """A profile's default Tier-2 weights under the keys of :func:`fused_order`."""
    w = weights_for(workflow)
    return {"ce": w.w_ce, "li": w.w_li, "prior": w.w_prior, "entity": w.w_entity, "sec": w.w_sec,
            "xdrug": w.w_xdrug_penalty}


def siblings(args: argparse.Namespace, data: Any) -> None:
    """Tier-2 models over every chunk of each pool document, the best chunk's score standing for the
    document, against the recorded chunk only, at the default weights. ``--recorded`` and the recording's
    ``--score-cache`` are required; the scores of the other chunks are added to the cache."""
    recorded: dict[str, dict[str, Any]] = json.loads(Path(args.recorded).read_text())
    by_query = {q: r for q, r in recorded.items() if q in data.qrels}
    store: dict[str, float] = json.loads(Path(args.score_cache).read_text())
    with engine_for(args.data_dir, {}) as engine:
        tier2 = biomed_options(engine.settings).tier2
        labels = {"ce": biomed_options(engine.settings).domain_rerank_encoder, "li": tier2.late_interaction_encoder}
        models = {"ce": engine.encoders.cross_encoder(labels["ce"]),
                  "li": get_scorer(labels["li"], tier2.late_interaction_tokens)}
        chunks_of = _chunks_by_record(engine)
        one, best = [], []
        for done, (qid, rec) in enumerate(by_query.items(), 1):
            query, weights = rec["query"], _weights(rec["workflow"])
            nodes = enrich_file_names([n for d in rec["pool"] for n in chunks_of.get(d, [])], engine.registry)
            variant = {**rec, "signals": dict(rec["signals"])}
            for kind, model in models.items():
                cut = tier2.late_interaction_tokens if kind == "li" else PASSAGE_TOKENS
                keys = [cache_key(kind, labels[kind], tier2.max_chars, tier2.with_name, cut, query, n) for n in nodes]
                missing = [i for i, key in enumerate(keys) if key not in store]
                if missing:
                    texts = [passage_text(nodes[i], tier2.max_chars, tier2.with_name) for i in missing]
                    store.update(zip([keys[i] for i in missing], model.score_pairs(query, texts), strict=True))
                per_record: dict[str, float] = {}
                for node, key in zip(nodes, keys, strict=True):
                    owner = _record_id(node)
                    per_record[owner] = max(float(store[key]), per_record.get(owner, -math.inf))
                if all(d in per_record for d in rec["pool"]):
                    variant["signals"][f"{kind}_norm"] = minmax([per_record[d] for d in rec["pool"]])
            one.append(ndcg10(fused_order(rec, weights, len(rec["pool"])), data.qrels[qid]))
            best.append(ndcg10(fused_order(variant, weights, len(rec["pool"])), data.qrels[qid]))
            if done % 100 == 0:
                print(f"scored {done} of {len(by_query)} queries", flush=True)
    Path(args.score_cache).write_text(json.dumps(store))
    diff = np.array(best) - np.array(one)
    se = diff.std() / len(diff) ** 0.5
    print(f"{len(one)} queries: recorded chunk {np.mean(one):.4f}, best chunk of the document {np.mean(best):.4f} "
          f"(up {int((diff > 0).sum())}, down {int((diff < 0).sum())}, standard error {se:.4f})")


def sentences(args: argparse.Namespace, data: Any) -> None:
    """The cross-encoder over single sentences: every sentence row of the first ``--sentence-pool`` pool
    documents (all their chunks; the text the ingest embeds for the row, so the name comes first), the
    best sentence standing for the document (the rest of the pool gets the lowest score), added to the
    default formula with weight ``w_sce`` or in place of the passage score. ``--recorded`` and its
    ``--score-cache`` are required; the sentence scores are added to the cache."""
    recorded: dict[str, dict[str, Any]] = json.loads(Path(args.recorded).read_text())
    by_query = {q: r for q, r in recorded.items() if q in data.qrels}
    store: dict[str, float] = json.loads(Path(args.score_cache).read_text())
    with engine_for(args.data_dir, {}) as engine:
        label = biomed_options(engine.settings).domain_rerank_encoder
        model = engine.encoders.cross_encoder(label)
        chunks_of = _chunks_by_record(engine)
        variants: dict[str, dict[str, Any]] = {}
        for done, (qid, rec) in enumerate(by_query.items(), 1):
            query, best = rec["query"], []
            for doc in rec["pool"][: args.sentence_pool]:
                nodes = enrich_file_names(chunks_of.get(doc, []), engine.registry)
                rows = sentence_chunks([n.node for n in nodes])  # what the ingest embeds per sentence
                texts = [(f"sce|{label}|{query}|{row.id}", embed_input(row)) for row in rows]
                missing = [(key, t) for key, t in texts if key not in store]
                if missing:
                    scores = model.score_pairs(query, [t for _key, t in missing])
                    store.update(zip([key for key, _t in missing], map(float, scores), strict=True))
                best.append(max((store[key] for key, _t in texts), default=-math.inf))
            low = min((b for b in best if b > -math.inf), default=0.0)
            padded = [b if b > -math.inf else low for b in best] + [low] * (len(rec["pool"]) - len(best))
            variants[qid] = {**rec, "signals": {**rec["signals"], "sce_norm": minmax(padded)}}
            if done % 50 == 0:
                print(f"scored {done} of {len(by_query)} queries", flush=True)
    Path(args.score_cache).write_text(json.dumps(store))
    base = np.array([ndcg10(fused_order(r, _weights(r["workflow"]), len(r["pool"])), data.qrels[q])
                     for q, r in by_query.items()])
    print(f"{len(base)} queries: default formula {base.mean():.4f}")
    for w_sce, replace_ce in itertools.product((0.25, 0.5, 1.0), (False, True)):
        scored = []
        for qid, rec in by_query.items():
            w = {**_weights(rec["workflow"]), "sce": w_sce, **({"ce": 0.0} if replace_ce else {})}
            scored.append(ndcg10(fused_order(variants[qid], w, len(rec["pool"])), data.qrels[qid]))
        diff = np.array(scored) - base
        print(f"w_sce {w_sce:<4} {'in place of' if replace_ce else 'beside':<10} the passage score "
              f"{np.mean(scored):.4f} (up {int((diff > 0).sum())}, down {int((diff < 0).sum())}, "
              f"standard error {diff.std() / len(diff) ** 0.5:.4f})")


def _record_id(node: NodeWithScore) -> str:
    return str(node.node.metadata.get("record_id", node.node.document_id))


def _chunks_by_record(engine: Engine) -> dict[str, list[NodeWithScore]]:
    """Every chunk of the biomed text collection, grouped by BEIR record id."""
    lexical = engine.lexical_for(Collection.TEXT_BIOMED)
    searcher = lexical._index.searcher()  # type: ignore[attr-defined]  # noqa: SLF001 - a bench reads the index
    out: dict[str, list[NodeWithScore]] = {}
    for _score, address in searcher.search(Query.all_query(), limit=max(1, lexical.count())).hits:
        chunk = payload_to_chunk(bytes(searcher.doc(address).get_first("payload") or b""))
        node = NodeWithScore(node=chunk, score=0.0, collection=Collection.TEXT_BIOMED)
        out.setdefault(_record_id(node), []).append(node)
    return out


def main() -> None:
    logging.getLogger("pymilvus").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["ablation", "tune", "siblings", "sentences", "score"])
    parser.add_argument("--beir", type=Path, default=Path("../shared/data/beir/scifact"))
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--split", default="test")
    parser.add_argument("--limit-queries", type=int, default=None)
    parser.add_argument("--query-offset", type=int, default=0, help="skip the first N judged claims (a slice)")
    parser.add_argument("--only", default="", help="comma-separated ablation rows")
    parser.add_argument("--options", default="", help="extra biomed options as JSON")
    parser.add_argument("--json", default="")
    parser.add_argument("--score-cache", default="", help="tune: JSON file memoising the Tier-2 model scores")
    parser.add_argument("--recorded", default="", help="tune: search the weights of a saved recording (no run)")
    parser.add_argument("--sentence-pool", type=int, default=10, help="sentences: pool documents scored")
    parser.add_argument("--pools", default="30", help="tune: comma-separated pool sizes to evaluate (<= recorded)")
    parser.add_argument("--against", default="", help="score: a second claim log, compared claim by claim")
    parser.add_argument("--runs", default="", help="ablation: folder for one claim log (JSON lines) per row; "
                                                   "score: the claim log to score")
    parser.add_argument("--query-set", type=Path, default=None, help="JSON file of {part: [query id, ...]} "
                        "(eval/biomed/bioasq_split.json): the queries of --part only")
    parser.add_argument("--part", default="tune")
    parser.add_argument("--across", action="store_true", help="search the index as it is, whatever settings "
                        "wrote it (an experiment: the biomed stages over an index another profile wrote)")
    args = parser.parse_args()
    only = query_set(args.query_set, args.part) if args.query_set else None
    data = load_beir(args.beir, args.split, args.limit_queries, args.query_offset, only)
    if args.command == "score":
        score(args, data)
        return
    if not args.across:
        with engine_for(args.data_dir, {}) as engine:
            ensure_index(engine, data)
    print(f"{args.beir} split={args.split} queries={len(data.queries)}", flush=True)
    {"ablation": ablation, "tune": tune, "siblings": siblings, "sentences": sentences}[args.command](args, data)


if __name__ == "__main__":
    main()

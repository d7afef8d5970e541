"""The smoke gates on the biomed gold set, with the real bundled encoders (one ingest per session).

Gates: Hit@5 >= 0.70, Recall@5 >= 0.50, MRR >= 0.55, term coverage >= 0.80 (overall), in mode full,
over every third query of each workflow (30 of the 85; the full pipeline costs about a second a
query on these machines, most of it the cross-encoder). The whole set is measured by
``eagle-rag eval biomed`` (bench/HISTORY.md, "Biomed gold set"), which also reports the targets
Hit@5 >= 0.95 and MRR >= 0.90.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eagle_rag.engine import Engine
from eagle_rag.ops.demo import sample_dir
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchMode, SearchRequest
from eagle_rag_biomed.eval.gold_set import GoldQuery, load_gold
from eagle_rag_biomed.eval.runner import GATES, GoldReport, corpus_texts, run_gold, sample_corpus_paths
from eagle_rag_biomed.hooks.cli import KB_NAME

pytestmark = [pytest.mark.integration, pytest.mark.slow]

GOLD = Path(__file__).resolve().parents[3] / "eval" / "biomed" / "gold.jsonl"


def _extra_plugins() -> list[tuple[str, object]]:
    """The query hooks, unless the plugin module already imports them."""
    from eagle_rag_biomed import plugin
    from eagle_rag_biomed.hooks import query as retrieval_hooks

    return [] if hasattr(plugin, "biomed_post_rrf_rerank") else [("biomed_query", retrieval_hooks)]


@pytest.fixture(scope="session")
def gold_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    logging.getLogger("pymilvus").setLevel(logging.ERROR)
    data = tmp_path_factory.mktemp("biomed-gold")
    settings = load_settings(environ={}, overrides={"profile": "biomed", "data_dir": str(data)})
    with Engine(settings, extra_plugins=_extra_plugins()) as engine:
        report = engine.ingest(sample_corpus_paths(sample_dir()), kb_name=KB_NAME)
        assert not report.failures, report.failures
        yield engine


def smoke_subset(gold: list[GoldQuery], step: int = 3) -> list[GoldQuery]:
    """Every ``step``-th query of each workflow, in file order (each workflow keeps its first query)."""
    seen: dict[str, int] = {}
    picked = []
    for query in gold:
        n = seen.get(query.workflow, 0)
        seen[query.workflow] = n + 1
        if n % step == 0:
            picked.append(query)
    return picked


def test_smoke_subset_takes_every_third_query_of_each_workflow() -> None:
    gold = load_gold(GOLD)
    subset = smoke_subset(gold)
    per_workflow = {w: sum(1 for g in gold if g.workflow == w) for w in {g.workflow for g in gold}}
    # ceil(n / 3) of each workflow: 13 chemical -> 5, 8 combination -> 3, 24 drug -> 8, 22 general -> 8, 18 -> 6
    assert {w: sum(1 for g in subset if g.workflow == w) for w in per_workflow} == {
        w: -(-n // 3) for w, n in per_workflow.items()}
    assert len(subset) == 30 and len(gold) == 85


@pytest.fixture(scope="session")
def gold_report(gold_engine: Any) -> GoldReport:
    texts = corpus_texts(gold_engine, sample_corpus_paths(sample_dir()), KB_NAME)
    return run_gold(gold_engine, smoke_subset(load_gold(GOLD)), SearchMode.FULL, kb_name=KB_NAME, texts=texts)


def test_smoke_gates(gold_report: GoldReport) -> None:
    overall = gold_report.overall
    below = {name: overall[name] for name, gate in GATES.items() if overall[name] < gate}
    assert not below, f"below the smoke gates {GATES}: {below}; failures: {gold_report.failures()}"


def test_every_workflow_is_scored_and_no_gold_gap(gold_report: GoldReport) -> None:
    assert set(gold_report.by_workflow) == {"chemical", "regulatory", "combination", "drug_entity", "general"}
    classes = {r.failure_class for r in gold_report.results}
    assert "gold_corpus_gap" not in classes and "gold_over_specified" not in classes


def test_audit_names_the_stages_and_the_models(gold_engine: Any) -> None:
    ctx_audit = gold_engine.audit
    response = gold_engine.search(SearchRequest("gefitinib dosage", top_k=5, mode=SearchMode.FULL,
                                                kb_names=(KB_NAME,)))
    assert response.hits and response.hits[0].document_id.startswith("label_gefitinib")
    recent = ctx_audit.ring.recent(200)
    categories = {d.category for d in recent}
    assert {"route_query", "retrieve_plan", "biomed_rerank_t1", "rerank_t2_domain", "biomed_rerank_t2"} <= categories
    t1 = next(d for d in reversed(recent) if d.category == "biomed_rerank_t1")
    assert "bge-small" in t1.data["model"]  # pubmedbert stands on the bundled bge-small here
    t2 = next(d for d in reversed(recent) if d.category == "biomed_rerank_t2" and d.data.get("cross_encoder"))
    assert "MiniLM" in t2.data["cross_encoder_model"]


def test_a_mode_written_as_a_string_reaches_the_plugin_hooks_as_the_enum(gold_engine: Any) -> None:
    # A Python caller may write mode="full": the biomed route hook reads mode.value, so before the
    # service normalised the request it failed (logged as hook_failure) and the query lost its route.
    started = time.time()
    response = gold_engine.search(SearchRequest("gefitinib dosage", top_k=5, mode="full",  # type: ignore[arg-type]
                                                kb_names=KB_NAME))  # type: ignore[arg-type]
    assert response.mode is SearchMode.FULL
    assert response.hits and response.hits[0].document_id.startswith("label_gefitinib")
    fresh = [d for d in gold_engine.audit.ring.recent(10_000) if d.ts >= started]
    assert not [d for d in fresh if d.category == "hook_failure"]
    assert any(d.category == "route_query" for d in fresh)


@pytest.mark.parametrize("mode", [SearchMode.HYBRID, SearchMode.FULL])
def test_a_query_naming_a_drug_keeps_to_the_filters(gold_engine: Any, mode: SearchMode) -> None:
    """The entity-anchored supplement finds the warfarin label by its name; its sections are drug-label
    sections from a Markdown file, so a filter they fail keeps them out like any other hit."""
    plain = gold_engine.search(SearchRequest("warfarin bleeding", top_k=5, mode=mode, kb_names=(KB_NAME,)))
    assert plain.hits and plain.hits[0].document_id.startswith("label_warfarin")
    for filters in ({"sections": ("nonsense",)}, {"doc_types": ("patent",)}, {"source_types": ("jsonl",)},
                    {"published_from": "2030"}):
        response = gold_engine.search(SearchRequest("warfarin bleeding", top_k=5, mode=mode, kb_names=(KB_NAME,),
                                                    **filters))  # type: ignore[arg-type]
        assert not [h.document_id for h in response.hits if h.document_id.startswith("label_warfarin")], filters
        assert response.dropped.get("filters", 0) >= 1, filters


def test_hits_name_no_path_of_the_server(gold_engine: Any) -> None:
    """Tier-2 copies each candidate's source from the registry into its metadata: the hit shows the
    file's name (the sample corpus lies outside the data folder and every ingest root)."""
    response = gold_engine.search(SearchRequest("warfarin bleeding", top_k=5, mode=SearchMode.FULL,
                                                kb_names=(KB_NAME,)))
    sources = [h.metadata["source_uri"] for h in response.hits if "source_uri" in h.metadata]
    assert "label_warfarin.md" in sources
    assert not [s for s in sources if str(s).startswith("/")]

"""The biomed Tier-2 receives its own pool (``tier2.pool``), not the core's ``router.rerank_pool``."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.engine import Engine
from eagle_rag.retrieve.orchestrator import rerank_pool_size
from eagle_rag.types import QueryRouteDecision, SearchRequest
from tests.biomed.helpers import biomed_settings

pytestmark = pytest.mark.integration

DOCS = 45


def test_pool_size_is_the_largest_of_setting_hint_and_top_k() -> None:
    plain = QueryRouteDecision(plans=())
    hinted = QueryRouteDecision(plans=(), retrieval_hints={"rerank_pool": 30})
    assert rerank_pool_size(20, plain, 5) == 20
    assert rerank_pool_size(20, hinted, 5) == 30
    assert rerank_pool_size(40, hinted, 5) == 40
    assert rerank_pool_size(20, hinted, 50) == 50


def _candidates(engine: Engine, query: str, mode: str = "hybrid") -> int:
    engine.search(SearchRequest(query, top_k=5, mode=mode, kb_names=("pool",)))  # type: ignore[arg-type]
    decision = next(d for d in reversed(engine.audit.ring.recent(500)) if d.category.startswith("rerank_t2_"))
    return int(decision.data["candidates"])


def test_tier2_scores_tier2_pool_candidates_when_router_rerank_pool_is_smaller(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(DOCS):
        (src / f"note{i:02d}.txt").write_text(f"Imatinib note {i}: imatinib trough levels in leukemia patients, "
                                               f"cohort {i}, measured in week {i % 7 + 1}.")
    settings = biomed_settings(tmp_path / "data", biomed={"collection_recall_top_k": 40, "tier2": {"pool": 30}})
    assert settings.router.rerank_pool == 20
    with Engine(settings) as engine:
        # a retrieval window under both pools, so the pool a stage is handed is the one it asks for
        engine.settings.search.retrieval_window = 5
        report = engine.ingest([src], kb_name="pool")
        assert report.documents == DOCS and not report.failures
        # 45 matching chunks reach the merge; Tier-2 is handed its 30, not the core's 20
        assert _candidates(engine, "imatinib trough levels") == 30
        # a mode without Tier-2 keeps the core's pool
        assert _candidates(engine, "imatinib trough levels", mode="bm25") == 20

"""The core route asks for a merged list as deep as the core cross-encoder's pool in mode full."""

from __future__ import annotations

from eagle_rag.context import HookContext
from eagle_rag.kernel import core_defaults
from eagle_rag.kernel.audit import PluginAudit
from eagle_rag.retrieve.orchestrator import rerank_pool_size
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchMode, SearchRequest
from tests.profiles import GENERAL


def test_the_core_route_asks_for_the_cross_encoder_pool_in_full_mode() -> None:
    # search.cross_encoder_pool 25 with router.rerank_pool 20: before, the orchestrator cut the merged
    # list at 20 and the core cross-encoder never saw candidates 21-25.
    settings = load_settings(environ=GENERAL, overrides={"search": {"cross_encoder_pool": 25}})
    ctx = HookContext("default", settings, PluginAudit())
    full = core_defaults.eagle_classify_query(ctx, SearchRequest("aspirin", mode=SearchMode.FULL), "aspirin")
    hybrid = core_defaults.eagle_classify_query(ctx, SearchRequest("aspirin", mode=SearchMode.HYBRID), "aspirin")
    assert rerank_pool_size(settings.router.rerank_pool, full, 5) == max(20, 25, 5) == 25
    assert rerank_pool_size(settings.router.rerank_pool, hybrid, 5) == max(20, 5) == 20

"""resolve_rerank_policy (domain / general / none) and its audit decisions through the RERANK_MERGED hook."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.types import SearchMode
from eagle_rag_biomed.hooks import query as retrieval_hooks
from eagle_rag_biomed.rerank.policy import RerankPolicy, resolve_rerank_policy
from tests.biomed.query_support import context, decisions, hit, request

pytestmark = pytest.mark.unit


class _Impl:
    def __init__(self, name: str) -> None:
        self.plugin_name = name


class _PM:
    def __init__(self, *names: str) -> None:
        impls = [_Impl(n) for n in names]

        class Caller:
            def get_hookimpls(self) -> list[_Impl]:
                return impls

        class Hook:
            eagle_rerank_merged = Caller()

        self.hook = Hook()


@pytest.mark.parametrize(("options", "pm", "expected"), [
    ({"rerank_policy": "none"}, _PM("core_defaults", "biomed"), RerankPolicy.NONE),
    ({"rerank_policy": "General"}, _PM("core_defaults"), RerankPolicy.GENERAL),
    ({"rerank_policy": "domain"}, _PM("core_defaults"), RerankPolicy.DOMAIN),
    ({"use_general_rerank": True}, _PM("core_defaults", "biomed"), RerankPolicy.GENERAL),
    ({}, _PM("core_defaults", "biomed"), RerankPolicy.DOMAIN),
    ({}, _PM("core_defaults"), RerankPolicy.GENERAL),
])
def test_policy_resolution(options: dict[str, object], pm: _PM, expected: RerankPolicy) -> None:
    assert resolve_rerank_policy(options, pm)[0] is expected


def test_unknown_policy_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="valid: domain, general, none"):
        resolve_rerank_policy({"rerank_policy": "fancy"})


def test_hook_logs_each_policy(tmp_path: Path) -> None:
    nodes = [hit("a"), hit("b")]
    ctx = context(tmp_path, options={"rerank_policy": "none"})
    assert retrieval_hooks.biomed_post_rrf_rerank(ctx, "q", nodes, 5, request()) == nodes
    assert decisions(ctx, "rerank_t2_passthrough")
    ctx = context(tmp_path, options={"rerank_policy": "general"})
    assert retrieval_hooks.biomed_post_rrf_rerank(ctx, "q", nodes, 5, request()) is None  # the core's reranker answers
    assert decisions(ctx, "rerank_t2_general")
    ctx = context(tmp_path, options={"rerank_policy": "domain"})
    out = retrieval_hooks.biomed_post_rrf_rerank(ctx, "q", nodes, 5, request())
    assert out is not None and out[0].trail[-1].stage == "rerank_t2"
    assert decisions(ctx, "rerank_t2_domain") and decisions(ctx, "biomed_rerank_t2")


def test_tier2_stage_off_or_plain_modes_pass_through(tmp_path: Path) -> None:
    nodes = [hit("a"), hit("b")]
    ctx = context(tmp_path, options={"rerank_policy": "domain", "stages": {"tier2": False}})
    assert retrieval_hooks.biomed_post_rrf_rerank(ctx, "q", nodes, 5, request()) == nodes
    assert "tier2 stage off" in decisions(ctx, "rerank_t2_passthrough")[-1].summary
    ctx = context(tmp_path, options={"rerank_policy": "domain"})
    assert retrieval_hooks.biomed_post_rrf_rerank(ctx, "q", nodes, 5, request(mode=SearchMode.BM25)) == nodes

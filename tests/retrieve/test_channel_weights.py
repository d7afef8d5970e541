"""Per-query RRF channel weights: Latin script, CJK script, and one-identifier queries."""

from __future__ import annotations

import pytest

from eagle_rag.context import HookContext
from eagle_rag.kernel.audit import PluginAudit
from eagle_rag.retrieve.fusion import merge_rrf
from eagle_rag.retrieve.orchestrator import channel_weights, is_identifier_query
from eagle_rag.settings import load_settings
from tests.conftest import node
from tests.profiles import GENERAL

pytestmark = pytest.mark.unit


def _ctx() -> HookContext:
    return HookContext("default", load_settings(environ=GENERAL), PluginAudit())


@pytest.mark.parametrize("query", ["CC(=O)Oc1ccccc1C(=O)O", "D-001234", "NCT01234567", "T790M", " PD-1 "])
def test_identifier_queries(query: str) -> None:
    assert is_identifier_query(query)
    assert channel_weights(_ctx(), query) == [1.0, 0.1]


@pytest.mark.parametrize("query", ["metformin", "EGFR T790M resistance", "10个月宝宝", "二甲双胍 不良反应", "a1", ""])
def test_other_queries(query: str) -> None:
    assert not is_identifier_query(query)


def test_weights_per_script() -> None:
    assert channel_weights(_ctx(), "EGFR T790M resistance") == [0.5, 1.0]
    assert channel_weights(_ctx(), "二甲双胍 不良反应") == [0.3, 1.0]


def test_exact_identifier_match_leads_a_noisy_dense_channel() -> None:
    # the demo's SMILES query: aspirin's record is lexical rank 1 but dense rank 40; dasatinib is
    # lexical rank 7 and dense rank 3 (seen on the sample corpus)
    lexical = [node("aspirin")] + [node(f"l{i}") for i in range(2, 7)] + [node("dasatinib")]
    dense = [node("d1"), node("d2"), node("dasatinib")] + [node(f"d{i}") for i in range(4, 40)] + [node("aspirin")]
    identifier = {n.node_id: n.score for n in merge_rrf([lexical, dense], k=60, weights=[1.0, 0.1])}
    assert identifier["aspirin"] == pytest.approx(1.0 / (60 + 1) + 0.1 / (60 + 40))  # 0.017393
    assert identifier["dasatinib"] == pytest.approx(1.0 / (60 + 7) + 0.1 / (60 + 3))  # 0.016513
    assert identifier["aspirin"] > identifier["dasatinib"]
    latin = {n.node_id: n.score for n in merge_rrf([lexical, dense], k=60, weights=[0.5, 1.0])}
    assert latin["aspirin"] == pytest.approx(0.5 / 61 + 1.0 / 100)  # 0.018197
    assert latin["dasatinib"] == pytest.approx(0.5 / 67 + 1.0 / 63)  # 0.023336: the prose weights lose it
    assert latin["aspirin"] < latin["dasatinib"]

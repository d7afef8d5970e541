"""Chinese through character bigrams: no dictionary, phrases need not be verbatim."""

from __future__ import annotations

import pytest

from eagle_rag_datasets import DatasetCatalog
from eagle_rag_datasets.search.units import parse_query
from tests.datasets.conftest import card, ids

pytestmark = pytest.mark.unit


def test_phrase_matches_a_card_holding_all_its_bigrams_apart():
    cat = DatasetCatalog.from_records([
        card("c/apart", "Split", "这是中医资料，也有问答部分"),
        card("c/half", "Half", "只有问答"),
    ])
    response = cat.search("中医问答", semantic=False)  # the lexical match kinds alone
    assert ids(response) == ["c/apart", "c/half"]
    assert [h.match for h in response.hits] == ["lexical", "partial"]
    assert response.hits[1].coverage == pytest.approx(0.5)


def test_verbatim_bigrams_out_of_order_still_match():
    cat = DatasetCatalog.from_records([card("c/x", "X", "对话医患记录")])  # 医患 and 对话, reversed
    assert ids(cat.search("医患对话")) == ["c/x"]


def test_generic_words_are_optional(mini):
    response = mini.search("中文医疗对话数据集")
    assert response.hits[0].id == "t/dialog-zh" and response.hits[0].match == "exact"
    assert "t/dialog-zh" in ids(mini.search("医疗对话"))


def test_single_character_query_matches_widely(mini):
    assert set(ids(mini.search("医", top_k=100))) == {"t/tcm-kg", "t/dialog-zh", "t/cmedqa", "t/chip2020"}


def test_unit_weights():
    query = parse_query("中医医案知识图谱")
    assert [u.weight for u in query.units] == [4.0]
    assert parse_query("TCM 问答").units[1].weight == 1.0


def test_real_catalog_chinese_queries(catalog):
    assert ids(catalog.search("中文症状库"))[0] == "zh/cb6b1c98cd"
    assert "zh/7122593918" in ids(catalog.search("医患对话", top_k=5))  # English card, via synonyms

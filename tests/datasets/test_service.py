"""Service functions (plain dicts), card-source resolution, and the plugin hooks."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from eagle_rag.context import Services
from eagle_rag_datasets import DatasetsService, InvalidQueryError, datasets_check_ids, datasets_search
from eagle_rag_datasets.catalog.catalog import DEFAULT_CARDS
from eagle_rag_datasets.errors import DatasetsError
from eagle_rag_datasets.plugin import eagle_register, eagle_warm_up
from eagle_rag_datasets.service import get_catalog, resolve_cards_path
from tests.datasets.conftest import MINI

pytestmark = pytest.mark.unit


def test_search_returns_plain_json(tmp_path):
    body = datasets_search("BC5CDR", 3, cards_path=MINI)
    assert json.loads(json.dumps(body)) == body
    assert body["hits"][0]["id"] == "t/bc5cdr" and body["hits"][0]["match"] == "exact"
    assert {"total", "exhaustive", "message", "exclusions", "counts", "catalog_version"} <= set(body)


def test_check_ids_returns_plain_json():
    body = datasets_check_ids(["t/bc5cdr", "zzz"], cards_path=MINI)
    assert body == {"known": ["t/bc5cdr"], "unknown": ["zzz"], "resolved": {}, "ambiguous": {},
                    "all_known": False, "catalog_size": 12}


def test_bad_input_raises_value_errors():
    with pytest.raises(InvalidQueryError):
        datasets_search("", cards_path=MINI)
    with pytest.raises(DatasetsError) as info:
        datasets_search("x", engine="nope", cards_path=MINI)
    assert info.value.to_dict()["error"]["code"] == "unknown_engine"


def test_card_source_order(tmp_path):
    assert resolve_cards_path(options={}) == DEFAULT_CARDS
    assert resolve_cards_path(options={"cards_path": str(MINI)}) == MINI
    assert resolve_cards_path(MINI, options={"cards_path": "/nope"}) == MINI
    with pytest.raises(InvalidQueryError, match="not found"):
        resolve_cards_path(tmp_path / "missing.jsonl")


def test_catalog_cache_reloads_an_edited_file(tmp_path):
    path = tmp_path / "cards.jsonl"
    path.write_text('{"id": "a", "name": "Alpha"}\n', encoding="utf-8")
    first = get_catalog(path)
    assert get_catalog(path) is first
    path.write_text('{"id": "a", "name": "Alpha"}\n{"id": "b", "name": "Beta"}\n', encoding="utf-8")
    assert get_catalog(path).size == 2


def _ctx(options):
    return SimpleNamespace(services=Services(), plugin_options=lambda name: dict(options))


def test_eagle_register_exposes_the_service():
    ctx = _ctx({"cards_path": str(MINI)})
    assert eagle_register(ctx=ctx, encoders=None) is None
    service = ctx.services.extension("datasets", DatasetsService)
    assert isinstance(service, DatasetsService) and service.catalog().size == 12
    assert service.search("cMedQA", 1)["hits"][0]["id"] == "t/cmedqa"
    assert service.check_ids(["t/medqa"])["all_known"] is True
    default = _ctx({})
    eagle_register(ctx=default, encoders=None)
    assert default.services.extension("datasets", DatasetsService).catalog().size == 386


def test_eagle_register_fails_early_on_a_missing_file(tmp_path):
    with pytest.raises(DatasetsError, match="cards_path"):
        eagle_register(ctx=_ctx({"cards_path": str(tmp_path / "none.jsonl")}), encoders=None)


def test_eagle_warm_up_loads_the_catalog_and_its_semantic_channel_before_the_first_search():
    ctx = _ctx({"cards_path": str(MINI)})
    assert eagle_warm_up(ctx=ctx) is None  # no service registered: nothing to load
    eagle_register(ctx=ctx, encoders=None)
    catalog = ctx.services.extension("datasets", DatasetsService).catalog()
    assert eagle_warm_up(ctx=ctx) == ["dataset catalog (12 cards)", "dataset catalog semantic channel"]
    index = catalog._semantic  # loaded by the warm-up, not by a search
    assert index is not None and index.english is not None and index.english.shape[0] == 12
    assert len(index._recent) == 0  # the probes' vectors are not kept as if someone had asked them

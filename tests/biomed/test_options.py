"""The one options model of the biomed plugin: defaults of both sides, and errors that name the key."""

from __future__ import annotations

import pytest

from eagle_rag.settings import load_settings
from eagle_rag_biomed.options import BiomedOptionsError, biomed_options, parse_options
from tests.profiles import GENERAL

pytestmark = pytest.mark.unit


def test_defaults_of_the_ingest_and_the_query_side() -> None:
    options = parse_options({})
    assert options.collection_recall_top_k == 20 and options.rerank_policy == "domain"
    assert options.doc_semantic_router.enabled and not options.doc_semantic_router.llm.enabled
    assert options.stages.tier1 and options.stages.dense_suffix == "auto"
    assert (options.tier1.pool, options.tier1.mode, options.tier1.with_name) == (20, "fuse", False)
    assert (options.tier2.pool, options.tier2.normalise, options.tier2.with_name) == (30, "minmax", True)
    assert options.tier2.late_interaction_tokens == 256


def test_stage_switches_accept_strings() -> None:
    assert parse_options({"stages": {"tier1": "false", "dense_suffix": "true"}}).stages.tier1 is False
    assert parse_options({"stages": {"dense_suffix": "true"}}).stages.dense_suffix is True


@pytest.mark.parametrize(("raw", "key"), [
    ({"colection_recall_top_k": 5}, "plugins.options.biomed.colection_recall_top_k"),
    ({"stages": {"tier3": True}}, "plugins.options.biomed.stages.tier3"),
    ({"tier2": {"pool": 0}}, "plugins.options.biomed.tier2.pool"),
    ({"tier1": {"mode": "sum"}}, "plugins.options.biomed.tier1.mode"),
])
def test_an_unknown_key_or_a_bad_value_names_the_key(raw: dict[str, object], key: str) -> None:
    with pytest.raises(BiomedOptionsError, match=key.replace(".", r"\.")):
        parse_options(raw)


def test_validated_once_per_settings_object() -> None:
    settings = load_settings(environ=GENERAL, overrides={"plugins": {"options": {"biomed": {"tier1": {"pool": 7}}}}})
    first = biomed_options(settings)
    assert first.tier1.pool == 7 and biomed_options(settings) is first

"""Settings layers: defaults, profile, YAML file, env; sources; errors."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eagle_rag.settings import SettingsError, effective_settings, flatten, load_settings
from eagle_rag.types import HybridMode

pytestmark = pytest.mark.unit


def test_defaults_of_the_seeds():
    s = load_settings(environ={})
    assert s.router.rrf_k == 60
    assert s.router.collection_recall_top_k == 20
    assert s.router.final_top_k == 5
    assert s.router.channel_top_k == 50
    assert s.router.rerank_pool == 20
    assert s.router.hybrid_mode is HybridMode.RRF
    assert s.router.parent_doc_retrieval is True


def test_a_plain_install_runs_the_biomed_profile_over_the_general_one():
    """No env, no file: the biomedical pipeline (issue 34), laid over the general profile's keys."""
    s, sources = effective_settings(environ={})
    assert s.profile == "biomed"
    assert s.plugins.enabled == ["biomed", "datasets"] and sources["plugins.enabled"] == "profile:biomed"
    assert s.plugins.default_namespace == "biomed"
    assert s.router.hybrid_text_collections == ["eagle_text_biomed", "eagle_text_medcpt"]
    assert s.ingest.sentence_collections == ["eagle_text_biomed"]


def test_the_general_profile_is_the_core_pipeline():
    s, sources = effective_settings(environ={"EAGLE_RAG_PROFILE": "general"})
    assert s.profile == "general" and sources["profile"] == "env:EAGLE_RAG_PROFILE"
    assert s.plugins.enabled == ["datasets"] and s.plugins.default_namespace == "default"
    assert sources["plugins.enabled"] == "profile:general"
    assert s.ingest.sentence_collections == [] and s.milvus.db_name == "default"


def test_the_old_name_of_the_general_profile_says_its_new_name():
    with pytest.raises(SettingsError, match="unknown profile 'default'; it is called 'general' now; "
                                            "known profiles: biomed, general"):
        load_settings(environ={"EAGLE_RAG_PROFILE": "default"})


def test_biomed_profile_overlays_general():
    s, sources = effective_settings(environ={"EAGLE_RAG_PROFILE": "biomed"})
    assert s.router.hybrid_text_collections == ["eagle_text_biomed", "eagle_text_medcpt"]
    assert s.milvus.db_name == "biomed"
    assert s.plugins.default_namespace == "biomed"
    assert sources["milvus.db_name"] == "profile:biomed"
    assert sources["profile"] == "env:EAGLE_RAG_PROFILE"


def test_yaml_then_env_precedence(tmp_path: Path):
    f = tmp_path / "s.yaml"
    f.write_text("router:\n  rrf_k: 30\n  hybrid_alpha: 0.7\n"
                 "plugins:\n  options:\n    biomed: {encoder_mode: deterministic}\n")
    env = {"EAGLE_RAG_SETTINGS_FILE": str(f), "EAGLE_RAG_ROUTER__RRF_K": "15",
           "EAGLE_RAG_ROUTER__HYBRID_TEXT_COLLECTIONS": "a, b"}
    s, sources = effective_settings(environ=env)
    assert s.router.rrf_k == 15 and sources["router.rrf_k"] == "env:EAGLE_RAG_ROUTER__RRF_K"
    assert s.router.hybrid_alpha == 0.7 and sources["router.hybrid_alpha"] == f"file:{f}"
    assert s.router.hybrid_text_collections == ["a", "b"]
    assert s.plugin_options("biomed") == {"encoder_mode": "deterministic"}
    assert s.plugin_options("nothing") == {}


def test_errors_are_clear(tmp_path: Path):
    with pytest.raises(SettingsError, match="unknown profile 'nope'"):
        load_settings(environ={"EAGLE_RAG_PROFILE": "nope"})
    with pytest.raises(SettingsError, match="router.rrf_k"):
        load_settings(environ={"EAGLE_RAG_ROUTER__RRF_K": "abc"})
    with pytest.raises(SettingsError, match="does not exist"):
        load_settings(environ={"EAGLE_RAG_SETTINGS_FILE": str(tmp_path / "missing.yaml")})
    bad = tmp_path / "bad.yaml"
    bad.write_text("- a list\n")
    with pytest.raises(SettingsError, match="mapping"):
        load_settings(environ={"EAGLE_RAG_SETTINGS_FILE": str(bad)})
    with pytest.raises(SettingsError, match="hybrid_alpha"):
        load_settings(environ={"EAGLE_RAG_ROUTER__HYBRID_ALPHA": "1.5"})


def test_flatten_lists_every_knob():
    flat = flatten(load_settings(environ={}))
    for key in ("router.rrf_k", "router.hybrid_alpha", "router.hybrid_text_collections",
                "router.collection_recall_top_k", "router.final_top_k", "milvus.uri", "milvus.db_name",
                "registry.url", "encoders.mode", "search.max_query_chars"):
        assert key in flat


@given(st.integers(min_value=1, max_value=10_000))
def test_env_integers_round_trip(k):
    assert load_settings(environ={"EAGLE_RAG_ROUTER__RRF_K": str(k)}).router.rrf_k == k


@given(st.text(max_size=20))
def test_loader_never_crashes_with_an_untyped_error(value):
    with contextlib.suppress(SettingsError):
        load_settings(environ={"EAGLE_RAG_ROUTER__HYBRID_ALPHA": value})


def test_a_misspelt_env_block_is_a_warning_naming_the_nearest_block(caplog):
    import logging

    with caplog.at_level(logging.WARNING, logger="eagle_rag.settings"):
        settings = load_settings(environ={"EAGLE_RAG_REGISTY__URL": "sqlite:///x.db", "EAGLE_RAG_STRICT_HOOKS": "1",
                                          "EAGLE_RAG_ZZZQQ__X": "1"})
    assert "EAGLE_RAG_REGISTY__URL is ignored: unknown settings block 'registy'; did you mean 'registry'?" \
        in caplog.text
    assert "EAGLE_RAG_ZZZQQ__X is ignored: unknown settings block 'zzzqq'; known: api, audit, encoders," in caplog.text
    assert "STRICT_HOOKS" not in caplog.text  # a plain variable of another part of the program is not a block
    assert settings.registry.url != "sqlite:///x.db"

"""EncoderRegistry: lazy instances, plan validation, collection flags, describe()."""

from __future__ import annotations

import threading

import pytest

from eagle_rag.encoders import (
    CollectionProfile,
    DeterministicCrossEncoder,
    DeterministicEncoder,
    EncoderRegistry,
    EncoderSpec,
    default_registry,
)
from eagle_rag.types import EncoderMode, Modality

pytestmark = pytest.mark.unit


def _registry(calls: list[str] | None = None) -> EncoderRegistry:
    calls = calls if calls is not None else []

    def text_factory() -> DeterministicEncoder:
        calls.append("text")
        return DeterministicEncoder(384, name="text384")

    reg = EncoderRegistry()
    reg.register_encoder(EncoderSpec("text384", Modality.TEXT, 384, text_factory, "a text encoder", "ref:a"))
    reg.register_encoder(EncoderSpec("text768", Modality.TEXT, 768, lambda: DeterministicEncoder(768, "text768")))
    reg.register_encoder(EncoderSpec("rerank", Modality.RERANK, 1, lambda: DeterministicCrossEncoder("rerank")))
    reg.register_collection(CollectionProfile("docs", 384, "text384"))
    reg.register_collection(
        CollectionProfile("labels", 768, "text768", hybrid_enabled=False, extra_output_fields=("drug", "section"))
    )
    return reg


def test_get_encoder_is_lazy_and_cached() -> None:
    calls: list[str] = []
    reg = _registry(calls)
    assert calls == []
    assert not reg.is_loaded("text384")
    first = reg.get_encoder("text384")
    second = reg.get_encoder("text384")
    assert first is second
    assert calls == ["text"]
    assert reg.is_loaded("text384")


def test_get_encoder_builds_once_under_concurrency() -> None:
    calls: list[str] = []
    reg = _registry(calls)
    results: list[object] = []
    threads = [threading.Thread(target=lambda: results.append(reg.get_encoder("text384"))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == ["text"]
    assert all(r is results[0] for r in results)


def test_lookups_and_listing() -> None:
    reg = _registry()
    assert reg.labels() == ["text384", "text768", "rerank"]
    assert [c.name for c in reg.collections()] == ["docs", "labels"]
    assert reg.spec("text384").model_ref == "ref:a"
    assert reg.collection("labels").dim == 768
    assert reg.hybrid_enabled_for_collection("docs") is True
    assert reg.hybrid_enabled_for_collection("labels") is False
    assert reg.extra_output_fields_for_collection("labels") == ("drug", "section")
    assert reg.extra_output_fields_for_collection("docs") == ()


def test_validate_plan_accepts_matching_dims_and_rerankers() -> None:
    reg = _registry()
    reg.validate_plan("docs", "text384")
    reg.validate_plan("labels", "text768")
    reg.validate_plan("docs", "rerank")  # RERANK is exempt from the dimension check


def test_validate_plan_rejects_dimension_mismatch() -> None:
    reg = _registry()
    with pytest.raises(ValueError, match=r"768-d.*'docs'.*384-d"):
        reg.validate_plan("docs", "text768")


def test_validate_plan_unknown_names_are_value_errors_listing_known_names() -> None:
    reg = _registry()
    with pytest.raises(ValueError) as exc:
        reg.validate_plan("nope", "text384")
    assert not isinstance(exc.value, KeyError)
    assert "docs" in str(exc.value) and "labels" in str(exc.value)
    with pytest.raises(ValueError) as exc2:
        reg.validate_plan("docs", "bert-huge")
    assert not isinstance(exc2.value, KeyError)
    assert "text384" in str(exc2.value) and "rerank" in str(exc2.value)
    with pytest.raises(ValueError, match="known encoder labels"):
        reg.get_encoder("bert-huge")
    with pytest.raises(ValueError, match="known collections"):
        reg.hybrid_enabled_for_collection("nope")


def test_register_collection_checks_known_default_encoder_dim() -> None:
    reg = _registry()
    with pytest.raises(ValueError, match="384-d"):
        reg.register_collection(CollectionProfile("bad", 128, "text384"))


def test_duplicate_registration_needs_replace_and_drops_cached_instance() -> None:
    reg = _registry()
    old = reg.get_encoder("text384")
    spec = EncoderSpec("text384", Modality.TEXT, 384, lambda: DeterministicEncoder(384, "new"))
    with pytest.raises(ValueError, match="already registered"):
        reg.register_encoder(spec)
    reg.register_encoder(spec, replace=True)
    assert reg.get_encoder("text384") is not old
    with pytest.raises(ValueError, match="already registered"):
        reg.register_collection(CollectionProfile("docs", 384, "text384"))


def test_profile_and_spec_validation() -> None:
    with pytest.raises(ValueError, match="metric"):
        CollectionProfile("c", 8, "x", metric="cosine-ish")
    assert CollectionProfile("c", 8, "x", metric="ip").metric == "IP"
    with pytest.raises(ValueError):
        CollectionProfile("c", 0, "x")
    with pytest.raises(ValueError):
        EncoderSpec("x", Modality.TEXT, 0, lambda: DeterministicEncoder(8))


def test_typed_getters_check_modality() -> None:
    reg = _registry()
    assert reg.text_encoder("text384").dim == 384
    assert reg.cross_encoder("rerank").score_pairs("a", ["a"])
    with pytest.raises(ValueError, match="reranker"):
        reg.text_encoder("rerank")
    with pytest.raises(ValueError, match="not rerank"):
        reg.cross_encoder("text384")


def test_describe_reports_what_each_label_resolves_to() -> None:
    reg = _registry()
    rows = {r["label"]: r for r in reg.describe()}
    assert rows["text384"]["loaded"] is False and rows["text384"]["resolved"] is None
    assert rows["text384"]["model_ref"] == "ref:a"
    reg.get_encoder("text384")
    rows = {r["label"]: r for r in reg.describe()}
    assert rows["text384"]["loaded"] is True
    assert rows["text384"]["encoder_class"] == "DeterministicEncoder"
    assert rows["text384"]["semantic"] is False
    assert "NOT semantic" in rows["text384"]["resolved"]
    assert all(r["loaded"] for r in reg.describe(load=True))


def test_default_registry_shape_without_loading_models() -> None:
    reg = default_registry(EncoderMode.DETERMINISTIC)
    assert reg.labels() == ["bge-small", "e5-multilingual", "minilm-rerank"]
    assert reg.spec("minilm-rerank").modality is Modality.RERANK
    assert {c.name: (c.dim, c.default_encoder, c.hybrid_enabled) for c in reg.collections()} == {
        "eagle_text": (384, "bge-small", True),
        "eagle_text_multilingual": (384, "e5-multilingual", True),
    }
    for collection in ("eagle_text", "eagle_text_multilingual"):
        for label in reg.labels():
            reg.validate_plan(collection, label)
    assert not any(r["loaded"] for r in reg.describe())
    enc = reg.get_encoder("bge-small")
    assert isinstance(enc, DeterministicEncoder) and enc.dim == 384
    assert isinstance(reg.get_encoder("minilm-rerank"), DeterministicCrossEncoder)

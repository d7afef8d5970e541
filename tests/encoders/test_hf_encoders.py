"""The transformers wrappers, on a tiny BERT built from a config (no hub)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from eagle_rag.encoders import (
    EncoderLoadError,
    EncoderMode,
    HFCrossEncoder,
    HFTextEncoder,
    fit_to_dim,
    resolve_cross_encoder,
    resolve_text_encoder,
)

WORDS = [
    *("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"),
    *("the", "a", "of", "in", "aspirin", "inhibits", "cox", "weather", "paris", "drug", "protein"),
    *("dose", "metformin", "glucose", "##s", "##ing"),
]
HIDDEN = 32


@pytest.mark.unit
def test_fit_to_dim_pads_truncates_and_normalises() -> None:
    m = np.array([[3.0, 4.0, 0.0, 12.0]], dtype=np.float32)
    padded = fit_to_dim(m, 6)
    assert padded.shape == (1, 6) and np.allclose(padded[0, 4:], 0.0)
    assert np.isclose(np.linalg.norm(padded), 1.0)
    cut = fit_to_dim(m, 2)
    assert np.allclose(cut, [[0.6, 0.8]])


@pytest.mark.unit
def test_importing_the_encoders_does_not_import_torch_or_transformers() -> None:
    code = (
        "import sys, eagle_rag.encoders as e; e.HFTextEncoder('some/model', 8); e.HFCrossEncoder('x/y'); "
        "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import torch

    root = tmp_path_factory.mktemp("tiny-bert")
    vocab = root / "vocab.txt"
    vocab.write_text("\n".join(WORDS) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizerFast(vocab_file=str(vocab))
    common = dict(
        vocab_size=len(WORDS),
        hidden_size=HIDDEN,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    torch.manual_seed(0)
    enc_dir, cross_dir, cross2_dir = root / "encoder", root / "cross", root / "cross2"
    transformers.BertModel(transformers.BertConfig(**common)).save_pretrained(enc_dir)
    tokenizer.save_pretrained(enc_dir)
    transformers.BertForSequenceClassification(transformers.BertConfig(num_labels=1, **common)).save_pretrained(
        cross_dir
    )
    tokenizer.save_pretrained(cross_dir)
    transformers.BertForSequenceClassification(transformers.BertConfig(num_labels=2, **common)).save_pretrained(
        cross2_dir
    )
    tokenizer.save_pretrained(cross2_dir)
    return {"encoder": enc_dir, "cross": cross_dir, "cross2": cross2_dir}


@pytest.mark.integration
@pytest.mark.parametrize("dim", [HIDDEN, 48, 16])
def test_dims_and_normalisation(tiny_bert: dict[str, Path], dim: int) -> None:
    enc = HFTextEncoder(str(tiny_bert["encoder"]), dim)
    vecs = np.array(enc.encode_passages(["aspirin inhibits cox", "the weather in paris", ""]))
    assert vecs.shape == (3, dim)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    if dim > HIDDEN:
        assert np.allclose(vecs[:, HIDDEN:], 0.0)
    assert enc.encode_queries([]) == []


@pytest.mark.integration
def test_mean_pooling_matches_a_manual_computation(tiny_bert: dict[str, Path]) -> None:
    import torch
    import transformers

    text = "metformin lowers glucose"
    tok = transformers.AutoTokenizer.from_pretrained(tiny_bert["encoder"])
    model = transformers.AutoModel.from_pretrained(tiny_bert["encoder"]).eval()
    with torch.inference_mode():
        expected = model(**tok([text], return_tensors="pt")).last_hidden_state.mean(dim=1)[0].numpy()
    expected = expected / np.linalg.norm(expected)
    got = np.array(HFTextEncoder(str(tiny_bert["encoder"]), HIDDEN).encode_passages([text])[0])
    assert np.abs(got - expected).max() < 1e-5


@pytest.mark.integration
def test_padding_a_batch_does_not_change_a_vector(tiny_bert: dict[str, Path]) -> None:
    enc = HFTextEncoder(str(tiny_bert["encoder"]), HIDDEN, batch_size=8)
    short = "aspirin"
    alone = np.array(enc.encode_passages([short])[0])
    long_mate = "the drug of the protein in the dose of the metformin glucose in paris weather " * 3
    batch = np.array(enc.encode_passages([long_mate, short]))
    assert np.abs(batch[1] - alone).max() < 1e-5


@pytest.mark.integration
def test_truncation_to_max_length(tiny_bert: dict[str, Path]) -> None:
    enc = HFTextEncoder(str(tiny_bert["encoder"]), HIDDEN, max_length=64)
    assert len(enc.encode_passages(["aspirin " * 500])[0]) == HIDDEN


@pytest.mark.integration
def test_prefixes(tiny_bert: dict[str, Path]) -> None:
    enc = HFTextEncoder(str(tiny_bert["encoder"]), HIDDEN, query_prefix="the ", passage_prefix="")
    q = np.array(enc.encode_queries(["aspirin"])[0])
    assert np.abs(q - np.array(enc.encode_passages(["the aspirin"])[0])).max() < 1e-5


@pytest.mark.integration
def test_cross_encoder_logits(tiny_bert: dict[str, Path]) -> None:
    import torch
    import transformers

    passages = ["aspirin inhibits cox", "the weather in paris", "dose"]
    for key, column in (("cross", 0), ("cross2", -1)):
        cross = HFCrossEncoder(str(tiny_bert[key]), batch_size=2)
        scores = cross.score_pairs("aspirin", passages)
        tok = transformers.AutoTokenizer.from_pretrained(tiny_bert[key])
        model = transformers.AutoModelForSequenceClassification.from_pretrained(tiny_bert[key]).eval()
        with torch.inference_mode():
            batch = tok(["aspirin"] * 3, passages, padding=True, return_tensors="pt")
            expected = model(**batch).logits[:, column].numpy()
        assert np.allclose(scores, expected, atol=1e-5)
        assert cross.score_pairs("aspirin", []) == []


@pytest.mark.integration
def test_factory_uses_transformers_for_local_dirs_without_onnx(tiny_bert: dict[str, Path]) -> None:
    enc = resolve_text_encoder("tiny", str(tiny_bert["encoder"]), 64, EncoderMode.REQUIRE_NATIVE, False)
    assert isinstance(enc, HFTextEncoder) and len(enc.encode_passages(["aspirin"])[0]) == 64
    cross = resolve_cross_encoder("tiny-rr", str(tiny_bert["cross"]), EncoderMode.REQUIRE_NATIVE, False)
    assert isinstance(cross, HFCrossEncoder)


@pytest.mark.integration
def test_unreachable_hub_id_is_a_clear_load_error(tiny_bert: dict[str, Path]) -> None:
    enc = HFTextEncoder("eagle-rag-tests/does-not-exist", 8, local_files_only=True)
    with pytest.raises(EncoderLoadError, match="does-not-exist"):
        enc.load()
    with pytest.raises(EncoderLoadError):
        HFCrossEncoder("eagle-rag-tests/does-not-exist", local_files_only=True).load()


@pytest.mark.integration
def test_local_dir_without_weights_is_a_clear_load_error(tmp_path: Path) -> None:
    (tmp_path / "readme.txt").write_text("no model here")
    with pytest.raises(EncoderLoadError):
        resolve_text_encoder("x", str(tmp_path), 8, EncoderMode.REQUIRE_NATIVE, False)

"""The hash encoders: deterministic, normalised, lexical only."""

from __future__ import annotations

import numpy as np
import pytest

from eagle_rag.encoders import DeterministicCrossEncoder, DeterministicEncoder
from eagle_rag.encoders.deterministic import hash_tokens
from eagle_rag.protocols import CrossEncoder, TextEncoder

pytestmark = pytest.mark.unit

GOLDEN_ASPIRIN_8 = [
    0.038996174637586395,
    0.5557000216522494,
    0.14288467934346308,
    -0.24350785298965488,
    0.23421051832767512,
    0.4982478740859,
    0.4303309256712773,
    0.34881866596424205,
]


def test_same_text_same_vector_across_instances() -> None:
    a = DeterministicEncoder(64).encode_passages(["Aspirin inhibits COX-1"])[0]
    b = DeterministicEncoder(64, name="other").encode_queries(["Aspirin inhibits COX-1"])[0]
    assert a == b


def test_golden_values_do_not_drift() -> None:
    """Stored vectors depend on this exact algorithm: changing it must be deliberate."""
    vec = DeterministicEncoder(8).encode_passages(["aspirin"])[0]
    assert np.allclose(vec, GOLDEN_ASPIRIN_8, atol=1e-9)


def test_vectors_are_unit_length_with_the_right_dim() -> None:
    enc = DeterministicEncoder(384)
    vecs = np.array(enc.encode_passages(["a b c", "", "   ", "阿司匹林", "x" * 10_000]))
    assert vecs.shape == (5, 384)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0)
    assert enc.encode_passages([]) == []


def test_shared_tokens_give_lexical_signal() -> None:
    enc = DeterministicEncoder(256)
    q, near, far = np.array(enc.encode_passages(["aspirin cyclooxygenase", "aspirin dose", "weather paris"]))
    assert q @ near > q @ far
    assert q @ near > 0.3


def test_cjk_tokens_are_characters_and_bigrams() -> None:
    assert hash_tokens("阿司匹林") == ["阿", "司", "匹", "林", "阿司", "司匹", "匹林"]
    assert hash_tokens("IL-6 and PD_1") == ["il", "6", "and", "pd", "1"]


def test_protocols_and_cross_encoder() -> None:
    enc = DeterministicEncoder(16)
    assert isinstance(enc, TextEncoder)
    cross = DeterministicCrossEncoder()
    assert isinstance(cross, CrossEncoder)
    scores = cross.score_pairs("aspirin dose", ["aspirin dose in adults", "weather in paris"])
    assert scores[0] > scores[1]
    assert scores == cross.score_pairs("aspirin dose", ["aspirin dose in adults", "weather in paris"])
    assert cross.score_pairs("q", []) == []
    with pytest.raises(ValueError):
        DeterministicEncoder(0)


def test_the_token_cache_is_bounded_to_a_few_mebibytes() -> None:
    """A long ingest with the hash encoder meets a new token in every record: the cache must not
    grow with it. 8,192 tokens x 384 dimensions x 8 bytes = 25,165,824 bytes (24 MiB)."""
    from eagle_rag.encoders import deterministic

    maxsize = deterministic._token_vector.cache_info().maxsize
    assert maxsize == deterministic.TOKEN_CACHE == 8192
    assert maxsize * 384 * 8 == 25_165_824
    deterministic._token_vector.cache_clear()
    encoder = deterministic.DeterministicEncoder(384)
    encoder.encode_passages([f"record number{i}" for i in range(9000)])
    assert deterministic._token_vector.cache_info().currsize == 8192

"""The bundled ONNX models: bge-small-en-v1.5 (INT8) and the MiniLM-L-12 cross-encoder (INT8)."""

from __future__ import annotations

import multiprocessing
import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

from eagle_rag.encoders import (
    OnnxCrossEncoder,
    OnnxTextEncoder,
    bundled_bge_small,
    bundled_minilm_reranker,
    default_bge_small_dir,
)
from eagle_rag.encoders.memo import PASSAGE_MEMO, VectorMemo
from eagle_rag.protocols import CrossEncoder, TextEncoder

pytestmark = pytest.mark.integration

TEXTS = [
    "aspirin inhibits cyclooxygenase",
    "COX inhibition by acetylsalicylic acid",
    "the weather in Paris",
    "Metformin lowers hepatic glucose production in patients with type 2 diabetes mellitus.",
    "PD-1 blockade with nivolumab improves survival in advanced melanoma.",
    "IL-6",
]


@pytest.fixture(autouse=True)
def empty_memo() -> None:
    """Each test starts with no remembered vectors, so that what it compares was computed."""
    PASSAGE_MEMO.clear()


@pytest.fixture(scope="module")
def bge() -> OnnxTextEncoder:
    return bundled_bge_small().load()


@pytest.fixture(scope="module")
def reranker() -> OnnxCrossEncoder:
    return bundled_minilm_reranker().load()


def test_protocols(bge: OnnxTextEncoder, reranker: OnnxCrossEncoder) -> None:
    assert isinstance(bge, TextEncoder) and bge.dim == 384
    assert isinstance(reranker, CrossEncoder)


def test_semantic_sanity(bge: OnnxTextEncoder) -> None:
    q = np.array(bge.encode_queries(["aspirin inhibits cyclooxygenase"])[0])
    p = np.array(bge.encode_passages(["COX inhibition by acetylsalicylic acid", "the weather in Paris"]))
    assert q @ p[0] > q @ p[1] + 0.1
    a, b, c = np.array(bge.encode_passages(TEXTS[:3]))
    assert a @ b > a @ c + 0.1


def test_unit_norms_and_dim(bge: OnnxTextEncoder) -> None:
    vecs = np.array(bge.encode_passages(TEXTS) + bge.encode_queries(TEXTS))
    assert vecs.shape == (2 * len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert bge.encode_passages([]) == [] and bge.encode_queries([]) == []


def test_batch_equals_single_and_order_is_restored(bge: OnnxTextEncoder) -> None:
    singles = np.array([bge.encode_passages([t])[0] for t in TEXTS])
    shuffled = TEXTS[:]
    random.Random(7).shuffle(shuffled)
    PASSAGE_MEMO.clear()
    batch = np.array(bge.encode_passages(shuffled))
    for text, vec in zip(shuffled, batch, strict=True):
        assert np.abs(vec - singles[TEXTS.index(text)]).max() < 1e-5


def test_padded_batches_restore_order_within_int8_tolerance() -> None:
    """With batch_invariant=False the INT8 dynamic quantization makes vectors batch-dependent."""
    enc = OnnxTextEncoder(default_bge_small_dir(), "bge-batched", batch_size=4, batch_invariant=False).load()
    singles = np.array([enc.encode_passages([t])[0] for t in TEXTS])
    batch = np.array(enc.encode_passages(TEXTS))
    cosines = (singles * batch).sum(axis=1)
    assert (cosines > 0.99).all()


def test_query_instruction_only_on_queries(bge: OnnxTextEncoder) -> None:
    q = np.array(bge.encode_queries(["aspirin"])[0])
    p = np.array(bge.encode_passages(["aspirin"])[0])
    with_instruction = np.array(bge.encode_passages([bge.query_instruction + "aspirin"])[0])
    assert np.abs(q - with_instruction).max() < 1e-5
    assert np.abs(q - p).max() > 1e-3


def test_long_text_is_truncated(bge: OnnxTextEncoder) -> None:
    long_text = "aspirin " * 3000
    vec = np.array(bge.encode_passages([long_text])[0])
    assert vec.shape == (384,) and abs(np.linalg.norm(vec) - 1.0) < 1e-5


def test_model_loads_once_per_process(bge: OnnxTextEncoder) -> None:
    other = bundled_bge_small(name="bge-again").load()
    assert other._model is bge._model


def test_thread_safe_concurrent_encoding() -> None:
    enc = bundled_bge_small(name="bge-threads")  # not loaded yet: first calls race on load()
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda t: enc.encode_passages([t])[0], TEXTS * 2))
    PASSAGE_MEMO.clear()
    expected = np.array(enc.encode_passages(TEXTS * 2))
    assert np.abs(np.array(results) - expected).max() < 1e-5


def counting_model_calls(encoder: OnnxTextEncoder, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Patch ``encoder`` so that every model call records how many texts it ran."""
    calls: list[int] = []
    infer = encoder._infer

    def counted(encodings: Any) -> np.ndarray:
        calls.append(len(encodings))
        return infer(encodings)

    monkeypatch.setattr(encoder, "_infer", counted)
    return calls


def test_a_text_embedded_before_is_served_from_the_memo_with_the_same_vector(
    bge: OnnxTextEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = counting_model_calls(bge, monkeypatch)
    first = np.array(bge.encode_passages(TEXTS[:3]))
    assert len(calls) == 3
    # two texts seen before (one twice in the call) and one new: the model runs once, for the new one
    again = np.array(bge.encode_passages([TEXTS[1], TEXTS[3], TEXTS[1], TEXTS[0]]))
    assert len(calls) == 4
    assert np.array_equal(again[0], first[1]) and np.array_equal(again[2], first[1])
    assert np.array_equal(again[3], first[0])
    # a served vector is the vector the model computes: recomputed from an empty memo, bit for bit
    PASSAGE_MEMO.clear()
    fresh = np.array(bge.encode_passages(TEXTS[:4]))
    assert np.array_equal(fresh[:3], first) and np.array_equal(fresh[3], again[1])
    assert len(calls) == 8


def test_another_label_over_the_same_model_shares_the_memo_and_queries_keep_their_instruction(
    bge: OnnxTextEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = bundled_bge_small(name="bge-other-label").load()
    calls = counting_model_calls(other, monkeypatch)
    passage = np.array(bge.encode_passages(["aspirin"])[0])
    assert np.array_equal(np.array(other.encode_passages(["aspirin"])[0]), passage) and calls == []
    query = np.array(other.encode_queries(["aspirin"])[0])  # instruction + text: another key, computed
    assert calls == [1] and np.abs(query - passage).max() > 1e-3


def test_a_batched_encoder_does_not_use_the_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Padded batches make a vector depend on its batch, so nothing is remembered or served."""
    enc = OnnxTextEncoder(default_bge_small_dir(), "bge-batched-memo", batch_size=4, batch_invariant=False).load()
    calls = counting_model_calls(enc, monkeypatch)
    enc.encode_passages(TEXTS[:2])
    enc.encode_passages(TEXTS[:2])
    assert calls == [2, 2] and len(PASSAGE_MEMO) == 0


def test_the_memo_keeps_the_most_recently_used_entries() -> None:
    memo = VectorMemo(entries=3)
    for i in range(4):
        memo.put(bytes([i]), np.full(2, float(i)))
    assert memo.get(bytes([0])) is None  # the oldest of four went when the fourth came
    assert memo.get(bytes([1])) is not None  # 1 is now the most recently used
    memo.put(bytes([4]), np.zeros(2))  # so 2 goes
    assert [memo.get(bytes([i])) is not None for i in range(5)] == [False, True, False, True, True]
    assert len(memo) == 3 and memo.hits == 4 and memo.misses == 3
    row = memo.get(bytes([1]))
    assert row is not None and not row.flags.writeable and row.dtype == np.float64  # kept as given
    with pytest.raises(ValueError):
        VectorMemo(entries=0)


def test_cross_encoder_ranks_relevant_first(reranker: OnnxCrossEncoder) -> None:
    query = "Which enzyme does aspirin inhibit?"
    passages = [
        "The weather in Paris is mild in spring.",
        "Aspirin irreversibly inhibits cyclooxygenase (COX-1 and COX-2) by acetylating a serine residue.",
        "Football is popular in Brazil.",
    ]
    scores = reranker.score_pairs(query, passages)
    assert len(scores) == 3 and all(isinstance(s, float) for s in scores)
    assert scores[1] > scores[0] and scores[1] > scores[2]
    assert scores[1] > 0 > scores[0]
    assert reranker.score_pairs(query, []) == []


def test_cross_encoder_scores_do_not_depend_on_the_other_pairs(reranker: OnnxCrossEncoder) -> None:
    query = "metformin mechanism"
    together = reranker.score_pairs(query, TEXTS)
    alone = [reranker.score_pairs(query, [t])[0] for t in TEXTS]
    assert np.allclose(together, alone, atol=1e-5)


def test_cross_encoder_passage_truncation() -> None:
    short = OnnxCrossEncoder(default_bge_small_dir().parent / "reranker_en", "rr-short", max_passage_tokens=16)
    query = "Which enzyme does aspirin inhibit?"
    relevant = "Aspirin inhibits cyclooxygenase. " + "Unrelated filler about football and weather. " * 60
    irrelevant = "Football is popular in Brazil. " * 60
    scores = short.score_pairs(query, [relevant, irrelevant])
    assert scores[0] > scores[1]
    pairs = short.encode_pairs(query, [relevant])
    assert len(pairs[0].ids) <= len(short.encode_pairs(query, [""])[0].ids) + 16
    assert max(len(p.ids) for p in bundled_minilm_reranker().encode_pairs("q " * 2000, [relevant])) <= 512


def _encode_in_child(queue: Any) -> None:
    PASSAGE_MEMO.clear()  # the child computes its vectors: the fork copied the parent's memo
    queue.put(bundled_bge_small(name="bge-child").encode_passages(TEXTS[:3]))


def test_encoding_still_works_in_a_forked_child(bge: OnnxTextEncoder) -> None:
    """Thread pools and sessions are per process, so a fork after use must not hang."""
    parent = np.array(bge.encode_passages(TEXTS[:3]))
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_encode_in_child, args=(queue,))
    proc.start()
    child = np.array(queue.get(timeout=60))
    proc.join(timeout=10)
    assert proc.exitcode == 0
    assert np.abs(parent - child).max() < 1e-5

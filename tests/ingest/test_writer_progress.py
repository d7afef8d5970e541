"""The embedding count of an ingest moves with the work: each batch of chunks is counted once its chunk
vectors, sentence rows and token vectors are embedded (the biomed demo stood at ``embedding 183/234
chunks`` for 140 s while the sentence rows of 183 chunks were embedded after all their chunk vectors)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eagle_rag.engine import Engine
from eagle_rag.ingest import writer
from eagle_rag.ops.demo import sample_dir
from eagle_rag.settings import load_settings
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration


def test_each_counted_batch_has_its_sentence_rows_embedded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    events: list[tuple[str, int]] = []
    sentence_rows = writer.embed_sentence_rows

    def logged(ctx: Any, pm: Any, encoder: str, chunks: Any) -> Any:
        events.append(("sentences", len(chunks)))
        return sentence_rows(ctx, pm, encoder, chunks)

    monkeypatch.setattr(writer, "embed_sentence_rows", logged)
    settings = load_settings(environ=GENERAL, overrides={
        "data_dir": str(tmp_path / "data"), "encoders": {"mode": "deterministic", "batch_size": 8},
        "plugins": {"enabled": []}, "ingest": {"sentence_collections": ["eagle_text"]}})
    with Engine(settings) as engine:
        report = engine.ingest([sample_dir() / "labels"], kb_name="k",
                               stage_progress=lambda stage, done, total: events.append((stage, done)))
    assert report.documents == 19 and not report.failures
    embedding = [(kind, n) for kind, n in events if kind in ("sentences", "embedding")]
    assert len(embedding) >= 6
    # the sentence rows of 8 chunks, then the count of those 8: no sentence work after the last count
    counted = 0
    for (kind, n), (next_kind, next_n) in zip(embedding[::2], embedding[1::2], strict=True):
        assert kind == "sentences" and next_kind == "embedding" and next_n == counted + n <= counted + 8, embedding
        counted = next_n
    assert counted == report.chunks

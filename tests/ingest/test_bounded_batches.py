"""Ingest of many files holds at most one batch of prepared documents (chunked, enriched, classified)
in memory: each batch is written before the next is prepared, and nothing prepared outlives its batch.
Real stores, the deterministic encoder (this is about bookkeeping)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from eagle_rag.engine import Engine
from eagle_rag.ingest import orchestrator
from eagle_rag.ingest.writer import Prepared
from eagle_rag.settings import load_settings
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration
BATCH = 8


def _live_prepared() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is Prepared)


def test_ingest_of_n_files_holds_at_most_one_batch_of_prepared_documents(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(orchestrator, "DOCS_PER_BATCH", BATCH)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    files = 5 * BATCH + 3
    for i in range(files):
        (corpus / f"note{i:03d}.txt").write_text(f"Note {i}: kinase inhibitor cohort number {i}.", encoding="utf-8")
    settings = load_settings(environ=GENERAL, overrides={"data_dir": str(tmp_path / "data"), "plugins": {"enabled": []},
                                                        "encoders": {"mode": "deterministic"}})
    baseline = _live_prepared()  # objects other tests of the session may still hold
    with Engine(settings) as eng:
        write = eng.ingestor.writer.write
        seen: list[tuple[int, int, int]] = []  # (documents in the batch, live Prepared, documents written before)
        written = 0

        def spy(ctx, items, done, total, progress):
            nonlocal written
            seen.append((len(items), _live_prepared() - baseline, written))
            written += len(items)
            return write(ctx, items, done, total, progress)

        monkeypatch.setattr(eng.ingestor.writer, "write", spy)
        ticks: list[int] = []
        report = eng.ingest([corpus], kb_name="kb", progress=lambda done, total: ticks.append(done))
        assert report.documents == files and report.failures == []
        assert [n for n, _, _ in seen] == [BATCH] * 5 + [3]  # written batch by batch, as they are read
        assert all(live == n for n, live, _ in seen)  # only the batch being written is prepared
        assert [before for _, _, before in seen] == [BATCH * i for i in range(6)]
        assert ticks[0] == 1  # progress from the first document, not after all of them
        assert _live_prepared() == baseline

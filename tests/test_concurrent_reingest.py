"""Searches keep answering while a document is re-ingested, and see it whole in one version.

A writer thread re-ingests one document, switching between two versions; searcher threads query it
all the while. Every answer must hold all six chunks of exactly one version: never nothing, never
a mix, never a half-written new version.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from eagle_rag.engine import Engine
from eagle_rag.ingest.chunker import chunk_version
from eagle_rag.settings import load_settings
from eagle_rag.types import DocumentStatus, SearchMode, SearchRequest, document_key
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration

SECTIONS = 6
ROUNDS = 6


def _version(tag: str) -> str:
    body = "\n\n".join(f"## Part {i}\nzebrafish {tag}{i} fin regeneration study {tag}" for i in range(SECTIONS))
    return f"# Zebrafish notes\n\n{body}\n"


@pytest.fixture
def engine(tmp_path: Path):
    settings = load_settings(environ=GENERAL, overrides={
        "data_dir": str(tmp_path / "data"), "encoders": {"mode": "deterministic"}, "plugins": {"enabled": []},
        "router": {"parent_doc_retrieval": False, "collection_recall_top_k": 40, "rerank_pool": 40}})
    with Engine(settings) as eng:
        yield eng


def test_reingest_is_atomic_for_concurrent_searches(engine: Engine, tmp_path: Path) -> None:
    doc = tmp_path / "zebrafish.md"
    doc.write_text(_version("alpha"), encoding="utf-8")
    assert engine.ingest([doc], kb_name="z").documents == 1
    doc_id = engine.search(SearchRequest(query="zebrafish", top_k=1)).hits[0].document_id
    stop = threading.Event()
    seen: list[tuple[str, int]] = []
    errors: list[str] = []

    def search(mode: SearchMode) -> None:
        while not stop.is_set():
            try:
                hits = engine.search(SearchRequest(query="zebrafish fin", top_k=20, mode=mode,
                                                   document_ids=(doc_id,))).hits
            except Exception as exc:  # noqa: BLE001 - recorded and asserted below
                errors.append(f"{mode.value}: {type(exc).__name__}: {exc}")
                continue
            tags = {("alpha" if "alpha" in h.text else "beta") for h in hits}
            versions = {chunk_version(h.id) for h in hits}
            if len(hits) != SECTIONS or len(tags) != 1 or len(versions) != 1:
                errors.append(f"{mode.value}: {len(hits)} hits, tags {sorted(tags)}, "
                              f"versions {sorted(map(str, versions))}")
            seen.append((tags.pop() if len(tags) == 1 else "mixed", len(hits)))

    searchers = [threading.Thread(target=search, args=(m,)) for m in (SearchMode.BM25, SearchMode.HYBRID)]
    for thread in searchers:
        thread.start()
    try:
        for round_ in range(ROUNDS):
            doc.write_text(_version("beta" if round_ % 2 == 0 else "alpha"), encoding="utf-8")
            report = engine.ingest([doc], kb_name="z")
            assert report.documents == 1 and report.replaced == 1 and not report.failures
            time.sleep(0.05)
    finally:
        stop.set()
        for thread in searchers:
            thread.join(30)
    assert not errors, errors[:5]
    assert len(seen) >= ROUNDS  # searches kept answering during the re-ingests
    assert {tag for tag, _ in seen} == {"alpha", "beta"}
    # afterwards exactly one version is stored: the old chunks are gone from both stores
    key = document_key("z", doc_id)  # the stores name a document by kb and id
    record = engine.registry.get(key)
    assert record is not None and record.status is DocumentStatus.COMPLETE and record.chunk_count == SECTIONS
    vector_ids = engine.vectors.chunk_ids_for_document("eagle_text", key)
    assert vector_ids == engine.lexical_for("eagle_text").chunk_ids_for_document(key)
    assert len(vector_ids) == SECTIONS and {chunk_version(i) for i in vector_ids} == {record.content_hash[:12]}


def test_failed_reingest_keeps_the_old_version(engine: Engine, tmp_path: Path, monkeypatch) -> None:
    doc = tmp_path / "zebrafish.md"
    doc.write_text(_version("alpha"), encoding="utf-8")
    engine.ingest([doc], kb_name="z")
    doc.write_text(_version("beta"), encoding="utf-8")
    real_upsert = engine.vectors.upsert

    def broken(collection, chunks, vectors):  # the lexical write never happens
        real_upsert(collection, chunks, vectors)
        raise RuntimeError("disk full")

    monkeypatch.setattr(engine.vectors, "upsert", broken)
    report = engine.ingest([doc], kb_name="z")
    assert report.documents == 0 and "previous version is kept" in report.failures[0].error
    monkeypatch.undo()
    hits = engine.search(SearchRequest(query="zebrafish", top_k=20, mode=SearchMode.DENSE)).hits
    assert len(hits) == SECTIONS and all("alpha" in h.text for h in hits)
    doc_id = document_key("z", hits[0].document_id)
    assert len(engine.vectors.chunk_ids_for_document("eagle_text", doc_id)) == SECTIONS  # new chunks removed
    assert engine.registry.get(doc_id).status is DocumentStatus.COMPLETE  # type: ignore[union-attr]
    again = engine.ingest([doc], kb_name="z")
    assert again.documents == 1 and again.replaced == 1
    hits = engine.search(SearchRequest(query="zebrafish", top_k=20, mode=SearchMode.BM25)).hits
    assert len(hits) == SECTIONS and all("beta" in h.text for h in hits)

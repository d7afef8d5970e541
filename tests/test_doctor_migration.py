"""An index written before document identity was (kb, id) keeps working and is migrated, on real stores
(Milvus Lite, tantivy, SQLite, the deterministic encoder): its documents are found by search and by id,
an ingest of the same id into the same kb replaces the legacy document, ``doctor`` counts the legacy
documents, and ``doctor --repair`` moves them to kb-scoped keys without embedding again (same vectors,
sentence rows, lexical rows and token vectors), after which ``doctor`` finds the stores consistent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from eagle_rag import service
from eagle_rag.engine import Engine
from eagle_rag.ingest import orchestrator
from eagle_rag.ingest.sentences import sentence_collection
from eagle_rag.ops import doctor
from eagle_rag.protocols import StoreFilter
from eagle_rag.settings import load_settings
from eagle_rag.stores.token_vectors import TokenVectors
from eagle_rag.types import ParsedDocument, SearchMode, SearchRequest, document_key
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration
COLLECTION = "eagle_text"
RECORDS = {"abs-008": "Imatinib 400 mg daily is the usual adult dose. Take it with food and water.",
           "abs-009": "Warfarin needs regular INR monitoring. Bleeding is the main risk of overdose.",
           "abs-010": "Metformin lowers hepatic glucose output. Lactic acidosis is rare but serious."}


def write(path: Path, records: dict[str, str]) -> Path:
    path.write_text("\n".join(json.dumps({"id": i, "title": f"Record {i}", "text": t})
                              for i, t in records.items()) + "\n")
    return path


def unscoped(doc: ParsedDocument) -> ParsedDocument:
    """The identity before this change: the document's own id is its storage key."""
    return doc


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    settings = load_settings(environ=GENERAL, overrides={
        "data_dir": str(tmp_path / "data"), "encoders": {"mode": "deterministic"}, "plugins": {"enabled": []},
        "ingest": {"sentence_collections": [COLLECTION]}})
    with Engine(settings) as eng:
        with monkeypatch.context() as legacy_writer:
            legacy_writer.setattr(orchestrator, "keyed", unscoped)
            report = eng.ingest([write(tmp_path / "old.jsonl", RECORDS)], kb_name="demo")
        assert report.documents == 3 and eng.registry.get("abs-009") is not None  # written the old way
        refs = [(c, d) for c, d in eng.vectors.chunk_refs(COLLECTION) if d == "abs-009"]
        eng.tokens.put([TokenVectors(c, d, "colbert", np.ones((3, 4), dtype=np.float32)) for c, d in refs])
        yield eng


def rows(engine: Engine, document: str) -> dict[str, int]:
    flt = StoreFilter(document_ids=(document,))
    return {"vectors": engine.vectors.count(COLLECTION, flt), "lexical": engine.lexical_for(COLLECTION).count(flt),
            "sentences": engine.vectors.count(sentence_collection(COLLECTION), flt),
            "tokens": len(engine.tokens.chunk_refs([document]))}


def rows_with_vectors(engine: Engine, document: str) -> list[tuple[str, str, list[float]]]:
    """(collection, text, vector) of every chunk and sentence row of one document."""
    out = []
    for collection in (COLLECTION, sentence_collection(COLLECTION)):
        ids = sorted(engine.vectors.chunk_ids_for_document(collection, document))
        out += sorted((collection, chunk.text, vector) for chunk, vector in engine.vectors.get_rows(collection, ids))
    return out


def hits(engine: Engine, query: str, mode: SearchMode) -> list[tuple[str, str, str, float]]:
    response = engine.search(SearchRequest(query, top_k=5, kb_names=("demo",), mode=mode))
    return [(h.document_id, h.kb_name, h.text, h.score) for h in response.hits]


def test_a_legacy_index_is_served_replaced_by_id_and_migrated(engine: Engine, tmp_path: Path) -> None:
    assert [h[:2] for h in hits(engine, "warfarin INR", SearchMode.BM25)][:1] == [("abs-009", "demo")]
    assert service.get_document(engine, "abs-009")["kb_name"] == "demo"
    assert service.get_document(engine, "abs-009", "demo")["id"] == "abs-009"
    scoped = engine.search(SearchRequest("warfarin", kb_names=("demo",), document_ids=("abs-009",),
                                         mode=SearchMode.BM25))
    assert {h.document_id for h in scoped.hits} == {"abs-009"}
    found = doctor.check(engine)
    assert [(f.kind, f.document_id) for f in found.findings] == [("legacy", "3 documents")]

    again = engine.ingest([write(tmp_path / "new.jsonl", {"abs-008": "Imatinib 600 mg for advanced disease."})],
                          kb_name="demo")
    assert (again.replaced, again.added) == (1, 0)
    assert engine.registry.get("abs-008") is None and rows(engine, "abs-008")["vectors"] == 0
    assert engine.registry.get(document_key("demo", "abs-008")) is not None
    assert [f.document_id for f in doctor.check(engine).findings] == ["2 documents"]

    before = {doc: rows(engine, doc) for doc in ("abs-009", "abs-010")}
    assert before["abs-009"]["tokens"] == before["abs-009"]["vectors"] > 0 and before["abs-009"]["sentences"] >= 2
    served = {mode: hits(engine, "warfarin INR monitoring", mode) for mode in (SearchMode.BM25, SearchMode.DENSE)}
    record = engine.registry.get("abs-010")
    vectors = rows_with_vectors(engine, "abs-009")

    report = doctor.repair(engine, doctor.check(engine))
    assert any("moved 2 documents" in a for a in report.actions), report.actions
    after = doctor.check(engine)
    assert after.findings == [] and after.ok, after.to_dict()
    for doc, counts in before.items():
        assert rows(engine, doc) == dict.fromkeys(counts, 0)
        assert rows(engine, document_key("demo", doc)) == counts
    moved = engine.registry.get(document_key("demo", "abs-010"))
    assert record is not None and moved is not None
    assert (moved.content_hash, moved.created_at, moved.kb_name) == (record.content_hash, record.created_at, "demo")
    assert rows_with_vectors(engine, document_key("demo", "abs-009")) == vectors  # copied, not embedded again
    assert hits(engine, "warfarin INR monitoring", SearchMode.DENSE) == served[SearchMode.DENSE]
    bm25 = hits(engine, "warfarin INR monitoring", SearchMode.BM25)  # scores move: tantivy counts deleted rows
    assert [h[:3] for h in bm25] == [h[:3] for h in served[SearchMode.BM25]]
    assert service.get_document(engine, "abs-009")["id"] == "abs-009"
    unchanged = engine.ingest([write(tmp_path / "same.jsonl", {"abs-010": RECORDS["abs-010"]})], kb_name="demo")
    assert unchanged.skipped_unchanged == 1 and unchanged.documents == 0

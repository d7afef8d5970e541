"""Document identity is (kb, id) on real stores (Milvus Lite, tantivy, SQLite, the deterministic
encoder): the same record id in two kbs is two documents, an ingest into one kb never touches the
other's, a delete in one leaves the other, and ids given to the search filter are scoped by kb."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from eagle_rag import service
from eagle_rag.engine import Engine
from eagle_rag.errors import AmbiguousDocument, NotFound
from eagle_rag.ingest.sentences import sentence_collection
from eagle_rag.protocols import StoreFilter
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchMode, SearchRequest, document_key
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration
COLLECTION = "eagle_text"


def corpus(path: Path, title: str, text: str) -> Path:
    rows = [{"id": "abs-008", "title": title, "text": text},
            {"id": "abs-009", "title": "Other record", "text": "an unrelated note on statin cohorts. It has two "
                                                               "sentences for the sentence rows."}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("kb-identity")
    settings = load_settings(environ=GENERAL, overrides={
        "data_dir": str(root / "data"), "encoders": {"mode": "deterministic"}, "plugins": {"enabled": []},
        "ingest": {"sentence_collections": [COLLECTION]}})
    with Engine(settings) as eng:
        demo = eng.ingest([corpus(root / "demo.jsonl", "Imatinib dosing",
                                  "Imatinib 400 mg daily is the usual dose. Food reduces irritation.")], kb_name="demo")
        assert (demo.documents, demo.added, demo.replaced) == (2, 2, 0)
        evil = eng.ingest([corpus(root / "evil.jsonl", "Hijacked", "hijacked text about kinase inhibitors. "
                                                                    "Nothing of the demo kb.")], kb_name="evil")
        assert (evil.documents, evil.added, evil.replaced) == (2, 2, 0), evil.to_dict()
        yield eng


def counts(engine: Engine, kb: str, document_id: str) -> dict[str, int]:
    """Rows of one document in each store: registry, vectors, lexical, sentence rows."""
    key = document_key(kb, document_id)
    flt = StoreFilter(kb_names=(kb,), document_ids=(key,))
    return {"registry": int(engine.registry.get(key) is not None),
            "vectors": engine.vectors.count(COLLECTION, flt),
            "lexical": engine.lexical_for(COLLECTION).count(flt),
            "sentences": engine.vectors.count(sentence_collection(COLLECTION), flt)}


def test_same_id_in_two_kbs_is_two_documents(engine: Engine) -> None:
    for kb in ("demo", "evil"):
        found = counts(engine, kb, "abs-008")
        assert found["registry"] == 1 and found["vectors"] == found["lexical"] >= 1 and found["sentences"] >= 2, found
    demo = service.get_document(engine, "abs-008", "demo")
    evil = service.get_document(engine, "abs-008", "evil")
    assert (demo["id"], demo["kb_name"], demo["name"]) == ("abs-008", "demo", "Imatinib dosing")
    assert (evil["id"], evil["kb_name"], evil["name"]) == ("abs-008", "evil", "Hijacked")
    with pytest.raises(AmbiguousDocument) as info:
        service.get_document(engine, "abs-008")
    assert "evil" not in info.value.message and "demo" not in info.value.message


def test_search_keeps_public_ids_and_scopes_the_id_filter(engine: Engine) -> None:
    hits = engine.search(SearchRequest("imatinib dose", top_k=5, kb_names=("demo",), mode=SearchMode.BM25)).hits
    assert hits and {(h.document_id, h.kb_name) for h in hits} == {("abs-008", "demo")}
    scoped = engine.search(SearchRequest("hijacked kinase", top_k=5, kb_names=("evil",), document_ids=("abs-008",),
                                         mode=SearchMode.BM25)).hits
    assert scoped and {(h.document_id, h.kb_name) for h in scoped} == {("abs-008", "evil")}
    both = engine.search(SearchRequest("imatinib hijacked", top_k=10, document_ids=("abs-008",),
                                       mode=SearchMode.BM25)).hits
    assert {(h.document_id, h.kb_name) for h in both} == {("abs-008", "demo"), ("abs-008", "evil")}
    assert len({h.id for h in both}) == len(both)  # chunk ids differ per kb
    longest = SearchRequest("imatinib", kb_names=("demo",), document_ids=("x" * 256,), mode=SearchMode.HYBRID)
    assert engine.search(longest).hits == ()  # the longest id a request may name still fits its kb's key


def test_reingest_into_one_kb_replaces_only_its_own(engine: Engine, tmp_path: Path) -> None:
    before = counts(engine, "demo", "abs-008")
    report = engine.ingest([corpus(tmp_path / "evil2.jsonl", "Hijacked again", "changed hijack text")],
                           kb_name="evil")
    assert (report.replaced, report.added) == (1, 0) and report.skipped_unchanged == 1
    assert counts(engine, "demo", "abs-008") == before
    assert service.get_document(engine, "abs-008", "demo")["name"] == "Imatinib dosing"
    assert service.get_document(engine, "abs-008", "evil")["name"] == "Hijacked again"


def test_delete_in_one_kb_leaves_the_other(engine: Engine) -> None:
    before = counts(engine, "demo", "abs-009")
    record = service.find_document(engine, "abs-009", "evil")
    assert engine.ingestor.delete_document(engine.request_context(), record.id)
    assert counts(engine, "evil", "abs-009") == {"registry": 0, "vectors": 0, "lexical": 0, "sentences": 0}
    assert counts(engine, "demo", "abs-009") == before
    assert service.get_document(engine, "abs-009")["kb_name"] == "demo"  # now unique: the alias answers
    with pytest.raises(NotFound):
        service.get_document(engine, "abs-009", "evil")

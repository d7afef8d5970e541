"""End to end on real stores (Milvus Lite, tantivy, SQLite) and the real bundled models."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from eagle_rag.engine import Engine
from eagle_rag.errors import InvalidRequest, NotFound
from eagle_rag.settings import load_settings
from eagle_rag.types import DocumentStatus, MatchKind, SearchMode, SearchRequest, TotalRelation, document_key
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration

DOCS = {
    "imatinib.md": "# Imatinib label\n\n## Dosage and Administration\nImatinib 400 mg once daily with a meal "
                   "for chronic myeloid leukemia.\n\n## Warnings\nFluid retention and edema occur.\n",
    "warfarin.md": "# Warfarin label\n\n## Boxed Warning\nWarfarin can cause major or fatal bleeding. Monitor INR.\n",
    "gapdh.txt": "GAPDH siRNA knockdown at 20 nM with catalogue number D-001234 for 48 hours.",
    "notes.jsonl": '{"id": "n1", "title": "Statins", "text": "Atorvastatin lowers LDL cholesterol.", '
                   '"tags": ["lipids"]}\n'
                   '{"id": "n2", "title": "Aspirin", "text": "Aspirin irreversibly inhibits COX-1.", "tags": ["cv"]}\n',
    "zh.md": "# 二甲双胍\n\n## 不良反应\n常见胃肠道反应，如恶心、腹泻。\n",
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    for name, text in DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def engine(tmp_path_factory, corpus):
    settings = load_settings(environ=GENERAL, overrides={"data_dir": str(tmp_path_factory.mktemp("data")),
                                                        "plugins": {"enabled": []}})
    with Engine(settings) as eng:
        report = eng.ingest([corpus], kb_name="test")
        assert report.failures == [] and report.documents == 6
        yield eng


def ids(response):
    return [h.document_id for h in response.hits]


def test_hybrid_finds_the_right_section(engine):
    response = engine.search(SearchRequest(query="imatinib dose for CML", top_k=3, explain=True))
    top = response.hits[0]
    assert top.path == "Imatinib label > Dosage and Administration"
    stages = [e.stage for e in top.trail]
    assert "dense" in stages and "hybrid_rrf" in stages


def test_catalogue_number_found_lexically(engine):
    response = engine.search(SearchRequest(query="D-001234", top_k=3, mode=SearchMode.BM25))
    assert response.hits[0].text.startswith("GAPDH") and response.hits[0].match is MatchKind.EXACT
    assert response.total == 1 and response.exhaustive


def test_python_callers_may_write_modes_and_filters_as_plain_strings_and_lists(engine):
    # SearchRequest(mode="bm25", kb_names="test") reads as the enum and a one-value tuple: the same
    # hits as the typed request, and the response carries the enum (plugins call mode.value).
    typed = engine.search(SearchRequest(query="D-001234", top_k=3, mode=SearchMode.BM25, kb_names=("test",)))
    plain = engine.search(SearchRequest(query="D-001234", top_k=3, mode=" BM25 ",  # type: ignore[arg-type]
                                        kb_names="test"))  # type: ignore[arg-type]
    listed = engine.search(SearchRequest(query="D-001234", top_k=3, mode="bm25",  # type: ignore[arg-type]
                                         kb_names=["test"], tags=[]))  # type: ignore[arg-type]
    assert ids(plain) == ids(listed) == ids(typed) and len(ids(typed)) == 1
    assert plain.mode is SearchMode.BM25 and listed.mode is SearchMode.BM25


def test_chinese_query_goes_to_the_multilingual_collection(engine):
    response = engine.search(SearchRequest(query="二甲双胍 不良反应", top_k=2))
    assert response.hits[0].collection == "eagle_text_multilingual"
    assert "不良反应" in response.hits[0].path
    assert response.route["plans"] == ["eagle_text_multilingual"]


def test_mixed_query_searches_both_collections(engine):
    response = engine.search(SearchRequest(query="metformin 二甲双胍", top_k=5))
    assert response.route["plans"] == ["eagle_text", "eagle_text_multilingual"]


def test_tag_and_document_filters(engine):
    response = engine.search(SearchRequest(query="cholesterol", top_k=5, tags=("lipids",)))
    assert ids(response) == ["n1"]
    none = engine.search(SearchRequest(query="cholesterol", top_k=5, tags=("no-such-tag",)))
    # the tag filter removes the one document the query matches (n1), not all six of the kb
    assert none.hits == () and none.empty_reason == "no document carries the requested tags"
    assert none.excluded_by_filter == {"tags": 1}
    scoped = engine.search(SearchRequest(query="aspirin bleeding", top_k=5, document_ids=("n2",)))
    assert set(ids(scoped)) == {"n2"}  # the warfarin label, which names bleeding, is outside the scope
    # n2 shares no term with "bleeding" and its cosine is under the floor: nothing in scope matches
    assert engine.search(SearchRequest(query="bleeding", top_k=5, document_ids=("n2",))).hits == ()


def test_an_empty_answer_blames_a_filter_only_when_it_removed_what_the_query_matches(engine):
    # nothing in the corpus is about this: the kb and tag filters are not the reason
    for filters in ({"kb_names": ("test",)}, {"tags": ("lipids",)}, {"tags": ("no-such-tag",)},
                    {"document_ids": ("n1",), "kb_names": ("test",)}):
        response = engine.search(SearchRequest(query="quantum chromodynamics lattice", top_k=5,
                                               **filters))  # type: ignore[arg-type]
        assert response.hits == () and response.excluded_by_filter == {}, filters
        assert response.empty_reason == "no indexed text matched the query", filters
    # the query matches n1 (cholesterol); a document filter that leaves only n2 removed it
    scoped = engine.search(SearchRequest(query="LDL cholesterol", top_k=5, document_ids=("n2",)))
    assert scoped.hits == () and scoped.excluded_by_filter == {"document_ids": 1}
    assert scoped.empty_reason == "no document within the filters matched the query"


def test_injection_strings_in_filters_never_widen_results(engine):
    for hostile in ['" or 1==1 or "', "n1\" || document_id != \"", "n1\\", "ｎ１", "n1' OR '1'='1"]:
        response = engine.search(SearchRequest(query="aspirin", top_k=5, document_ids=(hostile,)))
        assert response.hits == ()


@pytest.mark.parametrize("request_, error", [
    (SearchRequest(query=""), InvalidRequest),
    (SearchRequest(query="   \n"), InvalidRequest),
    (SearchRequest(query="x" * 5000), InvalidRequest),
    (SearchRequest(query="aspirin", top_k=0), InvalidRequest),
    (SearchRequest(query="aspirin", top_k=101), InvalidRequest),
    (SearchRequest(query="aspirin", kb_names=("bad name!",)), InvalidRequest),
    (SearchRequest(query="aspirin", kb_names=("nosuchkb",)), NotFound),
    (SearchRequest(query="aspirin", mode="nope"), InvalidRequest),  # type: ignore[arg-type]
    (SearchRequest(query="aspirin", mode=3), InvalidRequest),  # type: ignore[arg-type]
    (SearchRequest(query="aspirin", kb_names=5), InvalidRequest),  # type: ignore[arg-type]
    (SearchRequest(query="aspirin", top_k="3"), InvalidRequest),  # type: ignore[arg-type]
    (SearchRequest(query="aspirin", top_k=True), InvalidRequest),
])
def test_bad_input_is_a_clear_error(engine, request_, error):
    with pytest.raises(error) as info:
        engine.search(request_)
    body = info.value.to_dict()["error"]
    assert body["code"] in {"invalid_request", "not_found"} and body["message"]


def test_reingest_is_idempotent_and_changes_replace(engine, corpus, tmp_path):
    again = engine.ingest([corpus], kb_name="test")
    assert again.skipped_unchanged == 6 and again.documents == 0
    doc = tmp_path / "aspirin.md"
    doc.write_text("# Aspirin\n\n## Use\nLow-dose aspirin for secondary prevention.\n", encoding="utf-8")
    first = engine.ingest([doc], kb_name="test")
    assert first.documents == 1
    doc_id = engine.search(SearchRequest(query="secondary prevention aspirin", top_k=1)).hits[0].document_id
    key = document_key("test", doc_id)  # the stores name a document by kb and id
    doc.write_text("# Aspirin\n\n## Use\nAspirin reduces colorectal adenoma recurrence.\n", encoding="utf-8")
    second = engine.ingest([doc], kb_name="test")
    assert second.replaced == 1
    hits = engine.search(SearchRequest(query="aspirin", top_k=20, document_ids=(doc_id,))).hits
    assert len(hits) == 1 and "colorectal" in hits[0].text
    assert engine.lexical_for("eagle_text").chunk_ids_for_document(key) == {hits[0].id}
    assert engine.vectors.chunk_ids_for_document("eagle_text", key) == {hits[0].id}
    assert engine.ingestor.delete_document(engine.request_context(), key)
    assert engine.registry.get(key) is None
    assert engine.vectors.chunk_ids_for_document("eagle_text", key) == set()


def test_bad_files_are_reported_and_skipped(engine, tmp_path):
    (tmp_path / "good.txt").write_text("Trastuzumab targets HER2.", encoding="utf-8")
    (tmp_path / "bad.jsonl").write_text('{"id": "x", "text": "ok"}\n{broken', encoding="utf-8")
    (tmp_path / "binary.txt").write_bytes(b"\xff\xfe\xfa")
    (tmp_path / "unknown.xyz").write_text("?", encoding="utf-8")
    locked = tmp_path / "locked.txt"
    locked.write_text("secret", encoding="utf-8")
    locked.chmod(0)
    report = engine.ingest([tmp_path, tmp_path / "missing.txt"], kb_name="test", skip_missing=True)
    errors = {Path(f.path).name: f.error for f in report.failures}
    assert report.documents == (3 if os.geteuid() == 0 else 2)  # root can read the locked file
    [cut] = report.record_failures  # the good record of bad.jsonl is kept, its cut-off last line reported
    assert (Path(cut.file).name, cut.line) == ("bad.jsonl", 2) and "cut off" in cut.reason
    assert "bad.jsonl" not in errors and "UTF-8" in errors["binary.txt"]
    assert "unsupported file type" in errors["unknown.xyz"] and "no such file" in errors["missing.txt"]
    if os.geteuid() != 0:  # root can read anything
        assert "cannot read" in errors["locked.txt"]
    assert engine.registry.get(document_key("test", "x")).status is DocumentStatus.COMPLETE


def test_a_missing_path_is_refused_before_anything_is_read(engine, tmp_path):
    (tmp_path / "good.txt").write_text("Trastuzumab targets HER2.", encoding="utf-8")
    with pytest.raises(InvalidRequest, match="no such file or folder") as raised:
        engine.ingest([tmp_path / "good.txt", tmp_path / "missing.txt"], kb_name="refused")
    assert raised.value.details["missing"] == [str(tmp_path / "missing.txt")]
    assert engine.registry.list(kb_name="refused") == []  # good.txt was not ingested either


def test_oversized_file_refused(tmp_path):
    settings = load_settings(environ=GENERAL, overrides={"data_dir": str(tmp_path / "d"), "plugins": {"enabled": []},
                                                        "ingest": {"max_file_bytes": 10}})
    (tmp_path / "big.txt").write_text("x" * 100, encoding="utf-8")
    with Engine(settings) as eng:
        report = eng.ingest([tmp_path / "big.txt"])
        assert "over the limit" in report.failures[0].error
        empty = eng.search(SearchRequest(query="anything"))
        assert empty.hits == () and "empty" in (empty.empty_reason or "")


def test_pending_documents_are_invisible(engine):
    hits = engine.search(SearchRequest(query="warfarin bleeding", top_k=1)).hits
    doc_id, key = hits[0].document_id, document_key(hits[0].kb_name, hits[0].document_id)
    engine.registry.set_status(key, DocumentStatus.PENDING)
    try:
        assert doc_id not in ids(engine.search(SearchRequest(query="warfarin bleeding", top_k=5)))
    finally:
        engine.registry.set_status(key, DocumentStatus.COMPLETE)


def test_a_query_about_nothing_in_the_corpus_gets_an_honest_empty_answer(engine, monkeypatch):
    # Without the floor, the dense channel always returns its least-distant chunks: here semantic-only
    # hits (no term in common) whose cosine under bge-small stays below its calibrated floor, 0.65.
    from eagle_rag.encoders.onnx_text import BGE_SMALL_SEMANTIC_FLOOR
    from eagle_rag.service.searching import trail_cosine

    assert BGE_SMALL_SEMANTIC_FLOOR == 0.65
    request = SearchRequest(query="zxqv blorf wibble", top_k=5, explain=True)
    honest = engine.search(request)
    assert honest.hits == () and honest.empty_reason == "no indexed text matched the query"
    assert honest.total == 0 and honest.total_relation is TotalRelation.EQ and honest.exhaustive

    monkeypatch.setattr(engine.settings.search, "min_dense_similarity", 0.0)  # 0 = floor off
    unfloored = engine.search(request)
    assert unfloored.hits and all(h.match is MatchKind.SEMANTIC for h in unfloored.hits)
    cosines = [trail_cosine(h.trail) for h in unfloored.hits]
    assert max(cosines) < BGE_SMALL_SEMANTIC_FLOOR

    monkeypatch.setattr(engine.settings.search, "min_dense_similarity", max(cosines))  # a set floor wins
    kept = engine.search(request)
    assert len(kept.hits) == sum(c >= max(cosines) for c in cosines) >= 1


def test_pages_are_slices_of_one_ranking_whatever_top_k(engine, monkeypatch):
    """Shallow lists (a channel depth of 2, a rerank pool of 1) stand in for a large corpus: each search
    still ranks search.retrieval_window candidates, so pages of 1 add up to the top 4, and total does
    not move with top_k (before, a top 1 ranked a pool of one and said "at least 1")."""
    monkeypatch.setattr(engine.settings.router, "channel_top_k", 2)
    monkeypatch.setattr(engine.settings.router, "rerank_pool", 1)
    query = "imatinib warfarin atorvastatin aspirin GAPDH"
    top = engine.search(SearchRequest(query=query, top_k=4, mode=SearchMode.BM25))
    pages = [engine.search(SearchRequest(query=query, top_k=1, offset=i, mode=SearchMode.BM25)) for i in range(4)]
    assert [h.id for p in pages for h in p.hits] == [h.id for h in top.hits] and len(top.hits) == 4
    assert {p.total for p in pages} == {top.total} and top.total >= 4


def test_candidates_cut_off_that_the_floor_would_drop_leave_the_answer_complete(engine, monkeypatch):
    """With a rerank pool and a retrieval window of 3, the merged list's other candidates fall off its
    end. For a query about nothing in the corpus they share no term with it and sit further from it than
    the three the floor dropped, so the empty answer is complete (``eq``); a candidate cut off that
    shares a term with the query could be a match, so there the answer says ``gte``."""
    monkeypatch.setattr(engine.settings.router, "rerank_pool", 3)
    monkeypatch.setattr(engine.settings.search, "retrieval_window", 3)
    nothing = engine.search(SearchRequest(query="zxqv blorf wibble", top_k=3))
    assert nothing.hits == () and nothing.dropped == {"semantic_floor": 3}
    assert nothing.total_relation is TotalRelation.EQ and nothing.exhaustive
    monkeypatch.setattr(engine.settings.router, "rerank_pool", 1)
    monkeypatch.setattr(engine.settings.search, "retrieval_window", 1)
    some = engine.search(SearchRequest(query="warfarin imatinib", top_k=1))  # the other label is cut off
    assert len(some.hits) == 1 and some.total_relation is TotalRelation.GTE and not some.exhaustive


@pytest.mark.parametrize("query, document", [
    ("anticoagulant haemorrhage danger", "warfarin"),  # cosine 0.75 on these documents
    ("leukaemia tablet amount", "imatinib"),           # 0.71
])
def test_the_floor_keeps_paraphrases_that_share_no_term(engine, query, document):
    # No term in common with the document (a semantic-only hit), but a cosine over the floor: kept.
    from eagle_rag.encoders.onnx_text import BGE_SMALL_SEMANTIC_FLOOR
    from eagle_rag.service.searching import trail_cosine

    response = engine.search(SearchRequest(query=query, top_k=3, explain=True))
    top = response.hits[0]
    assert document in top.document_id and top.match is MatchKind.SEMANTIC
    assert (trail_cosine(top.trail) or 0.0) >= BGE_SMALL_SEMANTIC_FLOOR


def test_only_a_calibrated_encoder_carries_a_floor():
    from eagle_rag.encoders.deterministic import DeterministicEncoder
    from eagle_rag.encoders.onnx_text import bundled_bge_small

    assert bundled_bge_small().semantic_floor == 0.65
    assert getattr(DeterministicEncoder(8), "semantic_floor", 0.0) == 0.0


def test_the_floor_judges_only_semantic_only_hits_that_the_dense_channels_found(engine):
    from eagle_rag.service.searching import _above_semantic_floor
    from eagle_rag.types import Chunk, NodeWithScore, StageScore

    engine.search(SearchRequest(query="warfarin", top_k=1))  # the collection's encoder is loaded

    def node(name: str, text: str, *trail: tuple[str, float]) -> NodeWithScore:
        return NodeWithScore(Chunk(id=name, text=text, document_id=name), 1.0, "eagle_text",
                             tuple(StageScore(stage, 1, score) for stage, score in trail))

    nodes = [
        node("low", "unrelated words", ("dense", 0.5), ("hybrid_rrf", 0.01)),  # 0.5 < 0.65: dropped
        node("sentence", "unrelated words", ("dense", 0.5), ("sentence", 0.7)),  # best cosine 0.7: kept
        node("shared", "a zebrafish note", ("dense", 0.2)),  # shares "zebrafish" with the query: kept
        node("other", "unrelated words", ("supplement", 0.1)),  # found by another channel: kept
    ]
    assert [n.node_id for n in _above_semantic_floor(engine, "zebrafish fins", nodes)] == ["sentence", "shared",
                                                                                           "other"]

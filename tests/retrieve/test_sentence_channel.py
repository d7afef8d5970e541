"""Sentence rows and the sentence channel: splitting, ids, the three-list RRF, and end to end on
Milvus Lite, tantivy, SQLite and the bundled bge-small (ingest, search, replace, delete)."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.context import HookContext
from eagle_rag.engine import Engine
from eagle_rag.ingest.sentences import (
    PARENT_KEY,
    parent_chunk_id,
    sentence_chunks,
    sentence_collection,
    split_sentences,
)
from eagle_rag.kernel.audit import PluginAudit
from eagle_rag.retrieve.fusion import merge_rrf
from eagle_rag.retrieve.orchestrator import sentence_weight
from eagle_rag.settings import load_settings
from eagle_rag.types import Chunk, SearchRequest, document_key
from tests.conftest import node
from tests.profiles import GENERAL


def test_split_sentences_exact():
    assert split_sentences("Imatinib inhibits BCR-ABL in CML cells. Levels rose 2.5 fold, e.g. in mice.") == [
        "Imatinib inhibits BCR-ABL in CML cells.", "Levels rose 2.5 fold, e.g. in mice."]
    # a piece under 16 characters is joined to the next one, never dropped
    assert split_sentences("(A) Short. In 40 patients the response was durable!") == [
        "(A) Short. In 40 patients the response was durable!"]
    assert split_sentences("甲状腺功能减退症的常见症状包括乏力。二甲双胍的常见不良反应是胃肠道反应。") == [
        "甲状腺功能减退症的常见症状包括乏力。", "二甲双胍的常见不良反应是胃肠道反应。"]
    assert split_sentences("") == []


def test_sentence_rows_carry_their_chunk():
    chunk = Chunk(id="doc1-abc", text="First claim is stated here. Second claim follows it.", document_id="doc1",
                  kb_name="kb", path="Title", metadata={"tags": ["x"], "document_name": "Title"})
    rows = sentence_chunks([chunk])
    assert [r.id for r in rows] == ["doc1-abc~s0", "doc1-abc~s1"]
    assert [r.text for r in rows] == ["First claim is stated here.", "Second claim follows it."]
    assert all(r.document_id == "doc1" and r.kb_name == "kb" and r.path == "Title" for r in rows)
    assert all(r.metadata[PARENT_KEY] == "doc1-abc" and r.metadata["tags"] == ["x"] for r in rows)
    assert [parent_chunk_id(r.id) for r in rows] == ["doc1-abc", "doc1-abc"]
    assert parent_chunk_id("doc1-abc") == "doc1-abc"
    assert parent_chunk_id("odd~sx") == "odd~sx"
    assert sentence_collection("eagle_text_biomed") == "eagle_text_biomed__sentences"


def test_three_channel_rrf_arithmetic():
    # lexical weight 0.5, dense 1.0, sentence 0.5, k = 60
    lexical = [node("a"), node("b")]
    dense = [node("b"), node("a")]
    sentences = [node("c"), node("a")]
    fused = merge_rrf([lexical, dense, sentences], k=60, weights=[0.5, 1.0, 0.5], stage="hybrid_rrf")
    scores = {n.node.id: n.score for n in fused}
    assert scores["a"] == pytest.approx(0.5 / 61 + 1.0 / 62 + 0.5 / 62)  # 0.032322
    assert scores["b"] == pytest.approx(0.5 / 62 + 1.0 / 61)  # 0.024457
    assert scores["c"] == pytest.approx(0.5 / 61)  # 0.008197
    assert [n.node.id for n in fused] == ["a", "b", "c"]


def test_sentence_weight_by_query():
    ctx = HookContext("default", load_settings(environ=GENERAL), PluginAudit())
    assert sentence_weight(ctx, "imatinib resistance in CML") == 0.5
    assert sentence_weight(ctx, "二甲双胍 不良反应") == 0.0  # CJK
    assert sentence_weight(ctx, "CC(=O)Oc1ccccc1C(=O)O") == 0.0  # one identifier


# ------------------------------------------------------------------ end to end on real stores

LONG = ("Statin therapy in adults. Atorvastatin lowers LDL cholesterol in adults with hyperlipidemia. "
        "Muscle pain was reported by a minority of patients. "
        "Coronary artery calcium scores did not change during the first year of treatment.")
OTHER = "Aspirin irreversibly inhibits COX-1 in platelets. It lowers the risk of a second heart attack."


@pytest.fixture
def engine(tmp_path: Path):
    settings = load_settings(environ=GENERAL, overrides={
        "data_dir": str(tmp_path / "data"), "plugins": {"enabled": []},
        "ingest": {"sentence_collections": ["eagle_text"]}})
    with Engine(settings) as eng:
        yield eng


def _write(root: Path, texts: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def _sentence_rows(eng: Engine) -> dict[str, str]:
    return dict(eng.vectors.chunk_refs(sentence_collection("eagle_text")))


@pytest.mark.integration
def test_sentence_rows_follow_ingest_replace_and_delete(engine, tmp_path):
    corpus = _write(tmp_path / "corpus", {"statins.txt": LONG, "aspirin.txt": OTHER})
    report = engine.ingest([corpus], kb_name="kb")
    assert report.failures == [] and report.documents == 2
    rows = _sentence_rows(engine)
    assert len(rows) == 4 + 2  # four sentences of the statin text, two of the aspirin one
    chunks = dict(engine.vectors.chunk_refs("eagle_text"))
    assert {parent_chunk_id(r) for r in rows} == set(chunks)

    response = engine.search(SearchRequest(query="coronary calcium did not change in the first year", top_k=2,
                                           explain=True))
    top = response.hits[0]
    assert top.text.startswith("Statin therapy")  # the whole chunk comes back, not the sentence
    sentence_stage = [e for e in top.trail if e.stage == "sentence"]
    assert sentence_stage and sentence_stage[0].rank == 1
    fused = [e for e in top.trail if e.stage == "hybrid_rrf"][0]
    assert set(fused.detail) == {"rank_0", "rank_1", "rank_2"}  # lexical, dense and sentence lists

    # a changed document: its old sentence rows go with its old chunks
    _write(corpus, {"statins.txt": "Atorvastatin lowers LDL cholesterol in adults with hyperlipidemia."})
    engine.ingest([corpus], kb_name="kb")
    rows = _sentence_rows(engine)
    assert len(rows) == 1 + 2
    assert {parent_chunk_id(r) for r in rows} == set(dict(engine.vectors.chunk_refs("eagle_text")))

    # a deleted document leaves no sentence row behind
    statin_doc = next(document_key(h.kb_name, h.document_id)
                      for h in engine.search(SearchRequest(query="atorvastatin LDL", top_k=1)).hits)
    assert statin_doc in set(rows.values())
    assert engine.ingestor.delete_document(engine.request_context(), statin_doc)
    assert set(_sentence_rows(engine).values()) == set(rows.values()) - {statin_doc}
    assert len(_sentence_rows(engine)) == 2


@pytest.mark.integration
def test_sentence_channel_honours_the_request_filter(engine, tmp_path, monkeypatch):
    # the aspirin text shares no term with the query and sits under the semantic floor: switch the
    # floor off, so that what is left to check is the filter
    monkeypatch.setattr(engine.settings.search, "min_dense_similarity", 0.0)
    engine.ingest([_write(tmp_path / "a", {"statins.txt": LONG})], kb_name="lipids")
    engine.ingest([_write(tmp_path / "b", {"aspirin.txt": OTHER})], kb_name="platelets")
    response = engine.search(SearchRequest(query="coronary calcium did not change in the first year", top_k=5,
                                           kb_names=("platelets",), explain=True))
    assert response.hits and all(h.text.startswith("Aspirin") for h in response.hits)


@pytest.mark.integration
def test_doctor_backfills_sentence_rows_of_an_index_built_without_them(tmp_path):
    from eagle_rag.ops import doctor

    data = str(tmp_path / "data")
    corpus = _write(tmp_path / "corpus", {"statins.txt": LONG, "aspirin.txt": OTHER, "title.txt": "Statins"})
    plain = load_settings(environ=GENERAL, overrides={"data_dir": data, "plugins": {"enabled": []}})
    with Engine(plain) as eng:
        assert eng.ingest([corpus], kb_name="kb").documents == 3
        assert doctor.check(eng).findings == []
    with_rows = load_settings(environ=GENERAL, overrides={"data_dir": data, "plugins": {"enabled": []},
                                                          "ingest": {"sentence_collections": ["eagle_text"]}})
    with Engine(with_rows) as eng:
        report = doctor.check(eng)
        # every chunk with text gets sentence rows, the one-word "Statins" too (no text is dropped)
        assert report.counts() == {"sentences": 3}
        doctor.repair(eng, report)
        assert len(_sentence_rows(eng)) == 4 + 2 + 1
        assert report.actions == ["wrote 7 sentence rows of 3 chunks to eagle_text__sentences"]
        assert doctor.check(eng).findings == []
        hits = eng.search(SearchRequest(query="coronary calcium did not change in the first year", top_k=1,
                                        explain=True)).hits
        assert any(e.stage == "sentence" for e in hits[0].trail)

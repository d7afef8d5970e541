"""The Milvus BM25 backend beyond the shared suite: term encoding, index parameters, the engine on
``lexical.backend: milvus``, and server-side ``hybrid_search`` with RRFRanker(60)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.profiles import GENERAL

from eagle_rag.analysis import analyze
from eagle_rag.engine import Engine
from eagle_rag.ops import doctor
from eagle_rag.settings import load_settings
from eagle_rag.stores.milvus import MilvusVectorStore
from eagle_rag.stores.milvus_lexical import (
    BM25_PARAMS,
    MilvusLexicalIndex,
    check_bm25_index,
    create_bm25_collection,
    encode_term,
    encode_terms,
    hybrid_search,
)
from eagle_rag.types import Chunk, SearchMode, SearchRequest

pytestmark = pytest.mark.integration


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_encoded_terms_are_single_distinct_tokens(text: str) -> None:
    terms = list(dict.fromkeys(analyze(text)))
    tokens = [encode_term(t) for t in terms]
    assert len(set(tokens)) == len(tokens)  # injective
    for token in tokens:  # one token for Lite's \w+ tokenizer and a whitespace tokenizer alike
        assert re.fullmatch(r"\w+", token, re.ASCII) and token == token.lower()
    assert encode_terms(terms).split() == tokens


def test_known_encodings_and_the_length_cap() -> None:
    assert encode_term("melanoma") == "melanoma" and encode_term("pd1") == "pd1"
    assert encode_term("pd-1") == "_" + b"pd-1".hex() and encode_term("肺癌") == "_" + "肺癌".encode().hex()
    assert encode_terms(["abc", "defg", "hi"], max_bytes=8) == "abc defg"


@pytest.fixture
def lexical(milvus_lite_store: MilvusVectorStore, collection_name: str) -> Iterator[MilvusLexicalIndex]:
    index = MilvusLexicalIndex(milvus_lite_store, collection_name)
    yield index
    index.drop()


def test_index_parameters_are_the_ones_asked_for(lexical: MilvusLexicalIndex) -> None:
    assert not lexical.exists() and lexical.count() == 0 and lexical.search("x", 5) == []
    lexical.add([Chunk(id="c1", text="melanoma", document_id="d1")])
    lexical.commit()
    desc = check_bm25_index(lexical.client, lexical.name)
    params = desc.get("params", desc)
    assert {k: float(params[k]) for k in BM25_PARAMS} == {"bm25_k1": 1.2, "bm25_b": 0.75}
    assert desc["index_type"] == "SPARSE_INVERTED_INDEX" and desc["metric_type"] == "BM25"


def test_engine_on_the_milvus_backend(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# Imatinib\n\n## Dose\nImatinib 400 mg daily for CML.\n", encoding="utf-8")
    (tmp_path / "docs" / "b.md").write_text("# Warfarin\n\n## Warning\nPD-1 unrelated; warfarin bleeds.\n",
                                            encoding="utf-8")
    settings_ = load_settings(environ={**GENERAL, "EAGLE_RAG_LEXICAL__BACKEND": "milvus"}, overrides={
        "data_dir": str(tmp_path / "data"), "encoders": {"mode": "deterministic"}, "plugins": {"enabled": []}})
    with Engine(settings_) as engine:
        assert isinstance(engine.lexical_for("eagle_text"), MilvusLexicalIndex)
        assert not engine.has_lexical_index("eagle_text")
        assert engine.ingest([tmp_path / "docs"], kb_name="k").documents == 2
        assert engine.has_lexical_index("eagle_text") and not (tmp_path / "data" / "lexical").exists()
        hits = engine.search(SearchRequest(query="PD-1", top_k=3, mode=SearchMode.BM25)).hits
        assert [h.path for h in hits] == ["Warfarin > Warning"]
        assert engine.search(SearchRequest(query="imatinib dose", top_k=1)).hits[0].path == "Imatinib > Dose"
        (tmp_path / "docs" / "a.md").write_text("# Imatinib\n\n## Dose\nImatinib 600 mg in blast crisis.\n",
                                                encoding="utf-8")
        assert engine.ingest([tmp_path / "docs"], kb_name="k").replaced == 1
        assert engine.search(SearchRequest(query="blast crisis", top_k=1, mode=SearchMode.BM25)).hits
        assert doctor.check(engine).findings == []
    with Engine(settings_) as engine:  # reopened: the BM25 collection starts released on Milvus Lite
        assert engine.search(SearchRequest(query="blast crisis", top_k=1, mode=SearchMode.BM25)).hits


def test_hybrid_search_fuses_with_rrf_60(milvus_lite_store: MilvusVectorStore, collection_name: str) -> None:
    client, name = milvus_lite_store.client, f"{collection_name}_hybrid"
    create_bm25_collection(client, name, dim=2)
    try:
        rows = [("a", "melanoma immunotherapy", [1.0, 0.0]), ("b", "melanoma", [0.0, 1.0]),
                ("c", "diabetes metformin", [0.8, 0.6])]
        client.insert(name, [{"id": i, "terms": encode_terms(analyze(t)), "vector": v, "text": t, "document_id": i,
                              "kb_name": "k", "path": "", "chunk_type": "text", "source_type": "text",
                              "source_chunk_id": i, "ordinal": 0, "metadata": "{}"} for i, t, v in rows])
        hits = hybrid_search(client, name, [1.0, 0.0], encode_terms(analyze("immunotherapy")), top_k=3)
        # dense ranks a=1, c=2, b=3; BM25 matches only a (rank 1): RRF with k=60, ranks from 1
        assert [h.id for h in hits] == ["a", "c", "b"]
        assert hits[0].score == pytest.approx(1 / 61 + 1 / 61, rel=1e-4)
        assert hits[1].score == pytest.approx(1 / 62, rel=1e-4) and hits[0].chunk.text == "melanoma immunotherapy"
    finally:
        client.drop_collection(name)

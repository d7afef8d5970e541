"""The biomed profile's speed paths on a real engine: the ingest stores ColBERT token vectors that Tier-2
reads back instead of encoding the passages again, and ``Engine.warm_up`` loads every model the first
query needs (deterministic dense encoders; the bundled ColBERT and ontology are real)."""

from __future__ import annotations

import numpy as np
import pytest

from eagle_rag.engine import Engine
from eagle_rag.types import SearchMode, SearchRequest
from eagle_rag_biomed.encoders.late_interaction import LateInteractionScorer, get_scorer, maxsim
from eagle_rag_biomed.options import biomed_options
from eagle_rag_biomed.rerank.signals import chunk_passage
from tests.biomed.helpers import biomed_settings

pytestmark = pytest.mark.integration

DOCS = {
    "imatinib.txt": "Imatinib 400 mg daily is the standard dose in chronic-phase chronic myeloid leukemia.",
    "warfarin.txt": "Warfarin can cause major or fatal bleeding; monitor the INR regularly in every patient.",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("corpus")
    for name, text in DOCS.items():
        (corpus / name).write_text(text, encoding="utf-8")
    tokens = {"token_vector_collections": ["eagle_text_biomed", "eagle_text"]}  # the profile's, off in the helper
    with Engine(biomed_settings(tmp_path_factory.mktemp("data"), ingest=tokens)) as eng:
        report = eng.ingest([corpus], kb_name="kb")
        assert report.failures == [] and report.documents == 2
        yield eng


def test_ingest_stores_the_token_vectors_tier2_reads(engine: Engine) -> None:
    opts = biomed_options(engine.settings).tier2
    scorer = get_scorer(opts.late_interaction_encoder, opts.late_interaction_tokens)
    chunks = [c for name in ("eagle_text_biomed", "eagle_text") if engine.vectors.has_collection(name)
              for c in engine.vectors.get_chunks(name, [i for i, _ in engine.vectors.chunk_refs(name)])]
    assert len(chunks) == 2
    rows = engine.tokens.get([c.id for c in chunks])
    query = "imatinib dose in chronic myeloid leukemia"
    q = scorer.encode_query(query)
    passages = [chunk_passage(chunk, opts.max_chars, opts.with_name) for chunk in chunks]
    # encoded together, as the ingest encoded the two chunks of one collection: the INT8 model quantizes
    # a batch's activations with one scale, so a passage encoded alone differs by a few tenths of a percent
    batch = scorer.encode_passages(passages)
    for chunk, passage, fresh in zip(chunks, passages, batch, strict=True):
        row = rows[chunk.id]
        assert row.key == scorer.passage_key(passage) and row.vectors.shape[1] == 384
        assert row.vectors.shape == fresh.shape  # punctuation left out in both
        assert maxsim(q, row.vectors) == pytest.approx(maxsim(q, fresh), rel=2e-3)  # float16 storage


def test_full_search_encodes_only_passages_without_stored_vectors(engine: Engine, monkeypatch) -> None:
    encoded: list[str] = []
    original = LateInteractionScorer.encode_passages

    def spy(self: LateInteractionScorer, passages):
        encoded.extend(passages)
        return original(self, passages)

    monkeypatch.setattr(LateInteractionScorer, "encode_passages", spy)
    request = SearchRequest(query="imatinib dose in chronic myeloid leukemia", top_k=2, mode=SearchMode.FULL,
                            explain=True)
    first = engine.search(request)
    assert first.hits and first.hits[0].text.startswith("Imatinib") and encoded == []
    # a row computed from another text (e.g. other tier2 options) is not used: the passage is encoded
    chunk_id = first.hits[0].id
    row = engine.tokens.get([chunk_id])[chunk_id]
    engine.tokens.put([type(row)(row.chunk_id, row.document_id, "another key", row.vectors)])
    again = engine.search(request)
    assert len(encoded) == 1 and encoded[0].endswith(DOCS["imatinib.txt"])
    assert [h.id for h in again.hits] == [h.id for h in first.hits]
    assert again.hits[0].score == pytest.approx(first.hits[0].score, rel=1e-3)


def test_warm_up_loads_what_the_first_query_needs(engine: Engine) -> None:
    report = engine.warm_up()
    opts = biomed_options(engine.settings)
    assert {"ontology matcher", f"cross-encoder {opts.domain_rerank_encoder}",
            f"late interaction {opts.tier2.late_interaction_encoder}"} <= set(report.loaded)
    assert engine.encoders.is_loaded(opts.domain_rerank_encoder)
    loaded = {label for label in engine.encoders.labels() if engine.encoders.is_loaded(label)}
    engine.search(SearchRequest(query="warfarin bleeding risk", top_k=2, mode=SearchMode.FULL))
    assert {label for label in engine.encoders.labels() if engine.encoders.is_loaded(label)} == loaded
    assert set(report.timings_ms) == {"stores", "pipeline", "encoders", "plugins"}
    assert np.isfinite(report.seconds)


def test_tier1_reads_the_vectors_the_collection_holds(engine: Engine, monkeypatch) -> None:
    encoder = engine.encoders.text_encoder("pubmedbert")
    encoded: list[str] = []
    original = encoder.encode_passages

    def spy(texts):
        encoded.extend(texts)
        return original(texts)

    queries: list[str] = []
    original_queries = encoder.encode_queries

    def spy_queries(texts):
        queries.extend(texts)
        return original_queries(texts)

    monkeypatch.setattr(encoder, "encode_passages", spy)
    monkeypatch.setattr(encoder, "encode_queries", spy_queries)
    query = "imatinib dose in chronic myeloid leukemia"
    response = engine.search(SearchRequest(query=query, top_k=2, mode=SearchMode.HYBRID))
    assert response.hits and response.hits[0].text.startswith("Imatinib")
    tier1 = [d for d in engine.audit.ring.recent(200) if d.category == "biomed_rerank_t1"][-1]
    # every hit of eagle_text_biomed had its stored vector: no passage was embedded at query time
    assert tier1.data["kept"] >= 1 and tier1.data["stored_vectors"] == tier1.data["kept"]
    assert set(encoded) <= {query}  # the sentence channel embeds the query as a passage
    assert queries == [query]  # Tier-1 takes the dense channel's query vector instead of embedding it again

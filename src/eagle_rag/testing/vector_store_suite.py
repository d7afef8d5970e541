"""The shared :class:`~eagle_rag.protocols.VectorStore` suite.

Subclass :class:`VectorStoreSuite` and override two fixtures: ``store`` (a connected store) and
``collection`` (the name of a fresh, empty collection of dimension :data:`DIM` with the COSINE
metric, created in that store and dropped afterwards).
"""

from __future__ import annotations

import math
import random
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from eagle_rag.protocols import StoreFilter, Vector, VectorStore
from eagle_rag.stores.filters import InvalidFilterError
from eagle_rag.testing.fixtures import missing_fixture
from eagle_rag.types import Chunk

DIM = 8
"""The dimension of the suite's vectors; the ``collection`` fixture creates collections of it."""


def unit_vector(seed: int) -> Vector:
    """A pseudo-random L2-normalised vector of :data:`DIM` floats, the same for the same seed."""
    rng = random.Random(seed)
    v = [rng.uniform(-1, 1) for _ in range(DIM)]
    norm = math.sqrt(sum(x * x for x in v))
    return [x / norm for x in v]


def make_chunk(i: int, doc: str = "doc-a", kb: str = "kb1", chunk_type: str = "text") -> Chunk:
    """Chunk ``i``: a 32-hex-digit id, every field set, nested non-ASCII metadata."""
    return Chunk(
        id=f"{i:032x}", text=f"chunk {i} text", document_id=doc, kb_name=kb, path=f"H1 > S{i}",
        chunk_type=chunk_type, source_type="pubmed", source_chunk_id=f"src-{i}", ordinal=i,
        metadata={"i": i, "title": "Ünïcode 中文", "nested": {"a": [1, 2.5, None, True]}},
    )


def make_corpus() -> tuple[list[Chunk], list[Vector]]:
    """Twelve chunks and their vectors: doc-a (kb1, 0-5), doc-b (kb2, tables, 6-9), doc-c (kb2, 10-11)."""
    chunks = [make_chunk(i, doc="doc-a", kb="kb1") for i in range(6)]
    chunks += [make_chunk(i, doc="doc-b", kb="kb2", chunk_type="table") for i in range(6, 10)]
    chunks += [make_chunk(i, doc="doc-c", kb="kb2") for i in range(10, 12)]
    return chunks, [unit_vector(i) for i in range(12)]


class VectorStoreSuite:
    """Every :class:`VectorStore` passes these tests. Override the ``store`` and ``collection`` fixtures."""

    @pytest.fixture
    def store(self) -> VectorStore:
        """A connected VectorStore. Abstract: a subclass overrides it."""
        missing_fixture(self, VectorStoreSuite, "store", "a connected VectorStore")

    @pytest.fixture
    def collection(self) -> str:
        """A fresh, empty collection in ``store`` (dim :data:`DIM`, COSINE). Abstract: a subclass overrides it."""
        missing_fixture(self, VectorStoreSuite, "collection",
                        f"the name of a fresh, empty collection of dim {DIM} (COSINE) in `store`")

    def test_implements_protocol(self, store: VectorStore) -> None:
        assert isinstance(store, VectorStore)

    def test_ensure_collection_rejects_mismatch(self, store: VectorStore, collection: str) -> None:
        assert store.has_collection(collection)
        with pytest.raises(ValueError, match="dim 8"):
            store.ensure_collection(collection, DIM + 1)
        with pytest.raises(ValueError, match="metric"):
            store.ensure_collection(collection, DIM, metric="L2")
        with pytest.raises(ValueError, match="invalid collection name"):
            store.ensure_collection("bad-name; drop", DIM)
        with pytest.raises(ValueError, match="clashes"):
            store.ensure_collection(collection, DIM, extra_fields=["text"])

    def test_upsert_search_scores_are_cosine(self, store: VectorStore, collection: str) -> None:
        chunks, vectors = make_corpus()
        assert store.upsert(collection, chunks, vectors) == 12
        query = unit_vector(3)
        hits = store.search(collection, query, top_k=5)
        assert len(hits) == 5
        assert hits[0].id == chunks[3].id and hits[0].score == pytest.approx(1.0, abs=1e-5)
        matrix = np.array(vectors)
        expected = matrix @ np.array(query)
        best = np.argsort(-expected)[:5]
        assert [h.id for h in hits] == [chunks[i].id for i in best]
        for hit, i in zip(hits, best, strict=True):
            assert hit.score == pytest.approx(float(expected[i]), abs=1e-4)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)

    def test_chunk_round_trip_is_exact(self, store: VectorStore, collection: str) -> None:
        chunks, vectors = make_corpus()
        store.upsert(collection, chunks, vectors)
        for i in (0, 7, 11):
            hit = store.search(collection, vectors[i], top_k=1)[0]
            assert hit.chunk == chunks[i]

    def test_upsert_replaces_by_id(self, store: VectorStore, collection: str) -> None:
        chunks, vectors = make_corpus()
        store.upsert(collection, chunks, vectors)
        changed = Chunk(id=chunks[0].id, text="replaced", document_id="doc-a", kb_name="kb1")
        duplicate = Chunk(id=chunks[1].id, text="first", document_id="doc-a", kb_name="kb1")
        last = Chunk(id=chunks[1].id, text="last wins", document_id="doc-a", kb_name="kb1")
        assert store.upsert(collection, [changed, duplicate, last],
                            [unit_vector(0), unit_vector(1), unit_vector(1)]) == 2
        assert store.count(collection) == 12
        top = store.search(collection, unit_vector(0), top_k=1)[0]
        assert top.chunk.text == "replaced" and top.chunk.metadata == {}
        assert store.search(collection, unit_vector(1), top_k=1)[0].chunk.text == "last wins"

    def test_filters_and_counts(self, store: VectorStore, collection: str) -> None:
        chunks, vectors = make_corpus()
        store.upsert(collection, chunks, vectors)
        assert store.count(collection) == 12
        assert store.count(collection, StoreFilter(kb_names=("kb1",))) == 6
        assert store.count(collection, StoreFilter(kb_names=("kb1", "kb2"))) == 12
        assert store.count(collection, StoreFilter(kb_names=("nope",))) == 0
        assert store.count(collection, StoreFilter(kb_names=("kb2",), chunk_types=("table",))) == 4
        assert store.count(collection, StoreFilter(document_ids=("doc-b", "doc-c"))) == 6
        # has_rows answers "any?" as count > 0 does, for every filter above
        assert store.has_rows(collection) and store.has_rows(collection, StoreFilter(kb_names=("kb1",)))
        assert store.has_rows(collection, StoreFilter(kb_names=("kb2",), chunk_types=("table",)))
        assert not store.has_rows(collection, StoreFilter(kb_names=("nope",)))
        assert not store.has_rows(collection, StoreFilter(document_ids=("doc-z",)))
        flt = StoreFilter(kb_names=("kb2",), document_ids=("doc-c",))
        hits = store.search(collection, unit_vector(0), top_k=12, flt=flt)
        assert {h.id for h in hits} == {chunks[10].id, chunks[11].id}
        hits = store.search(collection, unit_vector(0), top_k=3, flt=StoreFilter(chunk_types=("table",)))
        assert len(hits) == 3 and all(h.chunk.chunk_type == "table" for h in hits)
        with pytest.raises(InvalidFilterError):
            store.search(collection, unit_vector(0), top_k=3, flt=StoreFilter(kb_names=('" or 1==1 or "',)))
        hostile = StoreFilter(document_ids=('doc-a" or document_id != "',))
        assert store.count(collection, hostile) == 0
        assert not store.has_rows(collection, hostile)
        assert store.search(collection, unit_vector(0), top_k=12, flt=hostile) == []

    def test_delete_document_and_chunk_ids(self, store: VectorStore, collection: str) -> None:
        chunks, vectors = make_corpus()
        store.upsert(collection, chunks, vectors)
        assert store.chunk_ids_for_document(collection, "doc-b") == {c.id for c in chunks[6:10]}
        assert store.chunk_ids_for_document(collection, 'doc-b" or 1==1 or "') == set()
        assert store.delete_document(collection, "doc-b") == 4
        assert store.chunk_ids_for_document(collection, "doc-b") == set()
        assert store.count(collection) == 8
        assert store.delete_document(collection, "doc-b") == 0
        assert all(h.chunk.document_id != "doc-b" for h in store.search(collection, unit_vector(7), 12))

    def test_delete_chunks_and_chunk_refs(self, store: VectorStore, collection: str) -> None:
        chunks, vectors = make_corpus()
        store.upsert(collection, chunks, vectors)
        assert sorted(store.chunk_refs(collection)) == sorted((c.id, c.document_id) for c in chunks)
        only_c = sorted(store.chunk_refs(collection, StoreFilter(document_ids=("doc-c",))))
        assert only_c == sorted((c.id, "doc-c") for c in chunks[10:])
        assert store.delete_chunks(collection, [chunks[0].id, chunks[10].id, chunks[0].id]) == 2
        assert store.count(collection) == 10
        assert store.chunk_ids_for_document(collection, "doc-c") == {chunks[11].id}
        assert store.delete_chunks(collection, []) == 0

    def test_invalid_input_raises_clearly(self, store: VectorStore, collection: str) -> None:
        """Bad vectors and filters raise ValueError; an unknown collection raises LookupError."""
        good = make_chunk(1)
        with pytest.raises(ValueError, match="dim 3"):
            store.upsert(collection, [good], [[1.0, 0.0, 0.0]])
        with pytest.raises(ValueError, match="1 chunks but 2 vectors"):
            store.upsert(collection, [good], [unit_vector(1), unit_vector(2)])
        with pytest.raises(ValueError, match="NaN"):
            store.upsert(collection, [good], [[math.nan] * DIM])
        with pytest.raises(InvalidFilterError):
            store.upsert(collection, [Chunk(id="k", text="t", document_id="d", kb_name="a b")], [unit_vector(1)])
        with pytest.raises(ValueError, match="dim 2"):
            store.search(collection, [1.0, 0.0], top_k=1)
        assert store.search(collection, unit_vector(1), top_k=0) == []
        assert store.count(collection) == 0
        with pytest.raises(LookupError):
            store.search("no_such_collection", unit_vector(1), top_k=1)

    def test_concurrent_use_from_threads(self, store: VectorStore, collection: str) -> None:
        def work(t: int) -> int:
            chunks = [make_chunk(t * 100 + i, doc=f"doc-{t}") for i in range(10)]
            store.upsert(collection, chunks, [unit_vector(t * 100 + i) for i in range(10)])
            return len(store.search(collection, unit_vector(t), top_k=5))

        with ThreadPoolExecutor(max_workers=4) as pool:
            assert list(pool.map(work, range(8))) == [5] * 8
        assert store.count(collection) == 80
        assert store.count(collection, StoreFilter(document_ids=("doc-3",))) == 10

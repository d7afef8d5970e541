"""The shared VectorStore suite; every implementation runs it (today: Milvus Lite)."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from eagle_rag.protocols import StoreFilter, VectorStore
from eagle_rag.stores.filters import InvalidFilterError
from eagle_rag.stores.milvus import CollectionNotFoundError, MilvusVectorStore
from eagle_rag.types import Chunk

pytestmark = pytest.mark.integration
DIM = 8


@pytest.fixture(params=["milvus_lite"])
def store(request: pytest.FixtureRequest) -> VectorStore:
    """Every VectorStore implementation, connected and ready."""
    if request.param == "milvus_lite":
        return request.getfixturevalue("milvus_lite_store")  # type: ignore[no-any-return]
    raise AssertionError(request.param)


@pytest.fixture
def collection(store: VectorStore, collection_name: str) -> Iterator[str]:
    store.ensure_collection(collection_name, DIM)
    yield collection_name
    if isinstance(store, MilvusVectorStore):
        store.drop_collection(collection_name)


def _vec(seed: int) -> list[float]:
    rng = random.Random(seed)
    v = [rng.uniform(-1, 1) for _ in range(DIM)]
    norm = math.sqrt(sum(x * x for x in v))
    return [x / norm for x in v]


def _chunk(i: int, doc: str = "doc-a", kb: str = "kb1", chunk_type: str = "text") -> Chunk:
    return Chunk(
        id=f"{i:032x}", text=f"chunk {i} text", document_id=doc, kb_name=kb, path=f"H1 > S{i}",
        chunk_type=chunk_type, source_type="pubmed", source_chunk_id=f"src-{i}", ordinal=i,
        metadata={"i": i, "title": "Ünïcode 中文", "nested": {"a": [1, 2.5, None, True]}},
    )


def _corpus() -> tuple[list[Chunk], list[list[float]]]:
    chunks = [_chunk(i, doc="doc-a", kb="kb1") for i in range(6)]
    chunks += [_chunk(i, doc="doc-b", kb="kb2", chunk_type="table") for i in range(6, 10)]
    chunks += [_chunk(i, doc="doc-c", kb="kb2") for i in range(10, 12)]
    return chunks, [_vec(i) for i in range(12)]


def test_implements_protocol(store: VectorStore) -> None:
    assert isinstance(store, VectorStore)


def test_constructor_is_lazy_and_checks_uri(tmp_path: Path) -> None:
    store = MilvusVectorStore(tmp_path / "not-yet" / "lazy.db")
    assert store._client is None and not (tmp_path / "not-yet").exists()
    assert store.is_lite
    assert not MilvusVectorStore("http://localhost:19530").is_lite
    with pytest.raises(ValueError, match="ending in '.db'"):
        MilvusVectorStore(tmp_path / "milvus")


def test_collection_schema_and_indexes(store: MilvusVectorStore, collection: str) -> None:
    assert store.has_collection(collection)
    assert store.physical_name(collection) == f"{collection}__v1"
    store.ensure_collection(collection, DIM)  # idempotent
    client = store.client
    vector_index = client.describe_index(collection, "vector")
    assert vector_index["index_type"] == "HNSW"
    assert vector_index["metric_type"] == "COSINE"
    assert vector_index["params"] == {"M": 16, "efConstruction": 256}
    for field in ("document_id", "kb_name", "chunk_type", "source_type"):
        assert client.describe_index(collection, field)["index_type"] == "INVERTED"
    desc = client.describe_collection(collection)
    fields = {f["name"]: f for f in desc["fields"]}
    assert fields["id"]["is_primary"] and fields["id"]["params"]["max_length"] == 64
    assert fields["text"]["params"]["max_length"] == 65535
    assert fields["path"]["params"]["max_length"] == 2048
    assert desc["enable_dynamic_field"] is True


def test_ensure_collection_rejects_mismatch(store: VectorStore, collection: str) -> None:
    with pytest.raises(ValueError, match="dim 8"):
        store.ensure_collection(collection, DIM + 1)
    with pytest.raises(ValueError, match="metric"):
        store.ensure_collection(collection, DIM, metric="L2")
    with pytest.raises(ValueError, match="invalid collection name"):
        store.ensure_collection("bad-name; drop", DIM)
    with pytest.raises(ValueError, match="clashes"):
        store.ensure_collection(collection, DIM, extra_fields=["text"])


def test_upsert_search_scores_are_cosine(store: VectorStore, collection: str) -> None:
    chunks, vectors = _corpus()
    assert store.upsert(collection, chunks, vectors) == 12
    query = _vec(3)
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


def test_chunk_round_trip_is_exact(store: VectorStore, collection: str) -> None:
    chunks, vectors = _corpus()
    store.upsert(collection, chunks, vectors)
    for i in (0, 7, 11):
        hit = store.search(collection, vectors[i], top_k=1)[0]
        assert hit.chunk == chunks[i]


def test_upsert_replaces_by_id(store: VectorStore, collection: str) -> None:
    chunks, vectors = _corpus()
    store.upsert(collection, chunks, vectors)
    changed = Chunk(id=chunks[0].id, text="replaced", document_id="doc-a", kb_name="kb1")
    duplicate = Chunk(id=chunks[1].id, text="first", document_id="doc-a", kb_name="kb1")
    last = Chunk(id=chunks[1].id, text="last wins", document_id="doc-a", kb_name="kb1")
    assert store.upsert(collection, [changed, duplicate, last], [_vec(0), _vec(1), _vec(1)]) == 2
    assert store.count(collection) == 12
    top = store.search(collection, _vec(0), top_k=1)[0]
    assert top.chunk.text == "replaced" and top.chunk.metadata == {}
    assert store.search(collection, _vec(1), top_k=1)[0].chunk.text == "last wins"


def test_filters_and_counts(store: VectorStore, collection: str) -> None:
    chunks, vectors = _corpus()
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
    hits = store.search(collection, _vec(0), top_k=12, flt=flt)
    assert {h.id for h in hits} == {chunks[10].id, chunks[11].id}
    hits = store.search(collection, _vec(0), top_k=3, flt=StoreFilter(chunk_types=("table",)))
    assert len(hits) == 3 and all(h.chunk.chunk_type == "table" for h in hits)
    with pytest.raises(InvalidFilterError):
        store.search(collection, _vec(0), top_k=3, flt=StoreFilter(kb_names=('" or 1==1 or "',)))
    hostile = StoreFilter(document_ids=('doc-a" or document_id != "',))
    assert store.count(collection, hostile) == 0
    assert not store.has_rows(collection, hostile)
    assert store.search(collection, _vec(0), top_k=12, flt=hostile) == []


def test_delete_document_and_chunk_ids(store: VectorStore, collection: str) -> None:
    chunks, vectors = _corpus()
    store.upsert(collection, chunks, vectors)
    assert store.chunk_ids_for_document(collection, "doc-b") == {c.id for c in chunks[6:10]}
    assert store.chunk_ids_for_document(collection, 'doc-b" or 1==1 or "') == set()
    assert store.delete_document(collection, "doc-b") == 4
    assert store.chunk_ids_for_document(collection, "doc-b") == set()
    assert store.count(collection) == 8
    assert store.delete_document(collection, "doc-b") == 0
    assert all(h.chunk.document_id != "doc-b" for h in store.search(collection, _vec(7), 12))


def test_delete_chunks_and_chunk_refs(store: VectorStore, collection: str) -> None:
    chunks, vectors = _corpus()
    store.upsert(collection, chunks, vectors)
    assert sorted(store.chunk_refs(collection)) == sorted((c.id, c.document_id) for c in chunks)
    only_c = sorted(store.chunk_refs(collection, StoreFilter(document_ids=("doc-c",))))
    assert only_c == sorted((c.id, "doc-c") for c in chunks[10:])
    assert store.delete_chunks(collection, [chunks[0].id, chunks[10].id, chunks[0].id]) == 2
    assert store.count(collection) == 10
    assert store.chunk_ids_for_document(collection, "doc-c") == {chunks[11].id}
    assert store.delete_chunks(collection, []) == 0


def test_long_text_and_path_are_truncated_by_utf8_bytes(store: VectorStore, collection: str) -> None:
    text = "é" * 40000 + "🧬" * 10  # 80040 bytes
    path = "a" * 2047 + "🧬"  # the emoji straddles the 2048-byte limit
    chunk = Chunk(id="long", text=text, document_id="d", kb_name="kb1", path=path)
    store.upsert(collection, [chunk], [_vec(1)])
    got = store.search(collection, _vec(1), top_k=1)[0].chunk
    assert len(got.text.encode("utf-8")) == 65534 and text.startswith(got.text)
    assert got.path == "a" * 2047


def test_invalid_input_raises_clearly(store: VectorStore, collection: str) -> None:
    good = _chunk(1)
    with pytest.raises(ValueError, match="longer than 64 bytes"):
        store.upsert(collection, [Chunk(id="x" * 65, text="t", document_id="d")], [_vec(1)])
    with pytest.raises(ValueError, match="dim 3"):
        store.upsert(collection, [good], [[1.0, 0.0, 0.0]])
    with pytest.raises(ValueError, match="1 chunks but 2 vectors"):
        store.upsert(collection, [good], [_vec(1), _vec(2)])
    with pytest.raises(ValueError, match="NaN"):
        store.upsert(collection, [good], [[math.nan] * DIM])
    with pytest.raises(InvalidFilterError):
        store.upsert(collection, [Chunk(id="k", text="t", document_id="d", kb_name="a b")],
                     [_vec(1)])
    with pytest.raises(ValueError, match="dim 2"):
        store.search(collection, [1.0, 0.0], top_k=1)
    with pytest.raises(ValueError, match="16384"):
        store.search(collection, _vec(1), top_k=20000)
    assert store.search(collection, _vec(1), top_k=0) == []
    assert store.count(collection) == 0
    with pytest.raises(CollectionNotFoundError):
        store.search("no_such_collection", _vec(1), top_k=1)


@pytest.mark.parametrize(("metric", "sign"), [("L2", -1.0), ("IP", 1.0)])
def test_other_metrics_score_higher_is_better(
    store: MilvusVectorStore, collection_name: str, metric: str, sign: float
) -> None:
    store.ensure_collection(collection_name, DIM, metric=metric)
    try:
        vectors = [[2.0 * x for x in _vec(i)] for i in range(4)]
        store.upsert(collection_name, [_chunk(i) for i in range(4)], vectors)
        hits = store.search(collection_name, vectors[2], top_k=4)
        assert hits[0].id == _chunk(2).id
        q = np.array(vectors[2])
        for hit in hits:
            v = np.array(vectors[int(hit.id, 16)])
            expected = float(q @ v) if metric == "IP" else -float(((q - v) ** 2).sum())
            assert hit.score == pytest.approx(expected, abs=1e-3)
        assert hits[0].score == pytest.approx(sign * 0.0 if metric == "L2" else 4.0, abs=1e-3)
    finally:
        store.drop_collection(collection_name)


def test_migration_adds_field_on_lite_by_copy(store: MilvusVectorStore, collection: str) -> None:
    chunks = [
        Chunk(id=f"m{i}", text=f"t{i}", document_id="doc", kb_name="kb1", ordinal=i,
              metadata={"gene": "BRCA1" if i % 2 else "TP53", "score": i / 3})
        for i in range(30)
    ]
    store.upsert(collection, chunks, [_vec(i) for i in range(30)])
    store.client.insert(store.physical_name(collection),
                        [{"id": "dyn", "vector": _vec(99), "text": "x", "document_id": "doc2",
                          "path": "", "chunk_type": "text", "source_type": "text",
                          "source_chunk_id": "", "lab": "dynamic value"}])
    store.ensure_collection(collection, DIM, extra_fields=["gene"])
    assert store.physical_name(collection) == f"{collection}__v2"
    assert not store.client.has_collection(f"{collection}__v1")
    assert store.count(collection) == 31
    assert store.client.describe_index(collection, "vector")["params"]["efConstruction"] == 256
    brca = store.client.query(collection, filter='gene == "BRCA1"', output_fields=["id"])
    assert {r["id"] for r in brca} == {f"m{i}" for i in range(1, 30, 2)}
    for i in (0, 7):
        assert store.search(collection, _vec(i), top_k=1)[0].chunk == chunks[i]
    dyn = store.client.query(collection, filter='id == "dyn"', output_fields=["lab", "gene"])
    assert dyn[0]["lab"] == "dynamic value" and dyn[0]["gene"] is None
    new = Chunk(id="new", text="n", document_id="doc", kb_name="kb1", metadata={"gene": "EGFR"})
    store.upsert(collection, [new], [_vec(50)])
    assert store.client.query(collection, filter='gene == "EGFR"', output_fields=["id"])[0]["id"] == "new"
    store.ensure_collection(collection, DIM, extra_fields=["gene", "organism"])
    assert store.physical_name(collection) == f"{collection}__v3"
    assert store.count(collection) == 32
    assert store.count(collection, StoreFilter(document_ids=("doc",))) == 31


def test_migration_of_a_plain_collection(store: MilvusVectorStore, collection_name: str) -> None:
    from eagle_rag.stores import milvus_schema

    milvus_schema.create_physical(store.client, collection_name, DIM, "COSINE", ())
    store.upsert(collection_name, [_chunk(1)], [_vec(1)])
    store.ensure_collection(collection_name, DIM, extra_fields=["title"])
    try:
        assert store.physical_name(collection_name) == f"{collection_name}__v2"
        assert store.client.describe_alias(collection_name)["collection_name"] == (
            f"{collection_name}__v2"
        )
        got = store.client.query(collection_name, filter='title == "Ünïcode 中文"',
                                 output_fields=["id"])
        assert [r["id"] for r in got] == [_chunk(1).id]  # backfilled from the metadata JSON
        assert store.count(collection_name) == 1
        assert store.search(collection_name, _vec(1), 1)[0].chunk == _chunk(1)
    finally:
        store.drop_collection(collection_name)


def test_reconnect_loads_released_collection(milvus_lite_path: Path, collection: str,
                                             store: MilvusVectorStore) -> None:
    store.upsert(collection, [_chunk(1)], [_vec(1)])
    store.client.release_collection(store.physical_name(collection))
    other = MilvusVectorStore(milvus_lite_path)
    try:
        assert other.count(collection) == 1
        assert other.search(collection, _vec(1), 1)[0].chunk == _chunk(1)
    finally:
        other.close()


def test_db_name_is_ignored_on_lite(milvus_lite_path: Path, store: MilvusVectorStore,
                                    collection: str) -> None:
    store.upsert(collection, [_chunk(1)], [_vec(1)])
    other = MilvusVectorStore(milvus_lite_path, db_name="biomed")
    try:
        assert other.has_collection(collection) and other.count(collection) == 1
        assert "biomed" not in other.client.list_databases()
    finally:
        other.close()


def test_concurrent_use_from_threads(store: VectorStore, collection: str) -> None:
    def work(t: int) -> int:
        chunks = [_chunk(t * 100 + i, doc=f"doc-{t}") for i in range(10)]
        store.upsert(collection, chunks, [_vec(t * 100 + i) for i in range(10)])
        return len(store.search(collection, _vec(t), top_k=5))

    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(work, range(8))) == [5] * 8
    assert store.count(collection) == 80
    assert store.count(collection, StoreFilter(document_ids=("doc-3",))) == 10

"""The VectorStore suite on Milvus Lite, then what is particular to :class:`MilvusVectorStore`:
lazy construction, schema and index parameters, field limits, other metrics, schema migration."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from eagle_rag.protocols import StoreFilter
from eagle_rag.stores.milvus import CollectionNotFoundError, MilvusVectorStore
from eagle_rag.testing import VectorStoreSuite
from eagle_rag.testing.vector_store_suite import DIM
from eagle_rag.testing.vector_store_suite import make_chunk as _chunk
from eagle_rag.testing.vector_store_suite import unit_vector as _vec
from eagle_rag.types import Chunk

pytestmark = pytest.mark.integration


def _fresh_collection(store: MilvusVectorStore, name: str) -> Iterator[str]:
    store.ensure_collection(name, DIM)
    yield name
    store.drop_collection(name)


@pytest.fixture
def store(milvus_lite_store: MilvusVectorStore) -> MilvusVectorStore:
    return milvus_lite_store


@pytest.fixture
def collection(store: MilvusVectorStore, collection_name: str) -> Iterator[str]:
    yield from _fresh_collection(store, collection_name)


class TestMilvusLiteVectorStore(VectorStoreSuite):
    @pytest.fixture
    def store(self, milvus_lite_store: MilvusVectorStore) -> MilvusVectorStore:
        return milvus_lite_store

    @pytest.fixture
    def collection(self, store: MilvusVectorStore, collection_name: str) -> Iterator[str]:
        yield from _fresh_collection(store, collection_name)


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


def test_long_text_and_path_are_truncated_by_utf8_bytes(store: MilvusVectorStore, collection: str) -> None:
    text = "é" * 40000 + "🧬" * 10  # 80040 bytes
    path = "a" * 2047 + "🧬"  # the emoji straddles the 2048-byte limit
    chunk = Chunk(id="long", text=text, document_id="d", kb_name="kb1", path=path)
    store.upsert(collection, [chunk], [_vec(1)])
    got = store.search(collection, _vec(1), top_k=1)[0].chunk
    assert len(got.text.encode("utf-8")) == 65534 and text.startswith(got.text)
    assert got.path == "a" * 2047


def test_milvus_limits_raise_clearly(store: MilvusVectorStore, collection: str) -> None:
    """The 64-byte id and the top_k cap of Milvus; an unknown collection is CollectionNotFoundError."""
    with pytest.raises(ValueError, match="longer than 64 bytes"):
        store.upsert(collection, [Chunk(id="x" * 65, text="t", document_id="d")], [_vec(1)])
    with pytest.raises(ValueError, match="16384"):
        store.search(collection, _vec(1), top_k=20000)
    assert store.count(collection) == 0
    with pytest.raises(CollectionNotFoundError):
        store.search("no_such_collection", _vec(1), top_k=1)


def test_document_keys_fit_new_collections_and_old_ones_say_why_not(
    store: MilvusVectorStore, collection_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A key ``<kb>/<id>`` takes up to 129 bytes: new collections hold 160; one created with the old 64-byte
    column refuses a longer key with a ValueError that says why, and its rows and reads keep working."""
    from eagle_rag.stores import milvus_schema as ms

    key = "k" * 64 + "/" + "i" * 64
    store.ensure_collection(collection_name, DIM)
    assert store.upsert(collection_name, [Chunk(id="new", text="t", document_id=key)], [_vec(1)]) == 1
    assert store.chunk_ids_for_document(collection_name, key) == {"new"}
    store.drop_collection(collection_name)
    with monkeypatch.context() as old:
        old.setitem(ms.ID_LIMITS, "document_id", 64)
        store.ensure_collection(collection_name, DIM)
    store._infos.clear()  # as a process started after the upgrade sees the collection
    with pytest.raises(ValueError, match="created with .before document keys held the kb name"):
        store.upsert(collection_name, [Chunk(id="old", text="t", document_id=key)], [_vec(1)])
    assert store.upsert(collection_name, [Chunk(id="ok", text="t", document_id="demo/abs-008")], [_vec(1)]) == 1
    store.drop_collection(collection_name)


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


def test_the_client_pings_only_during_calls_every_five_minutes(milvus_lite_path: Path) -> None:
    """pymilvus's own channel pings every 10 s, idle or not (keepalive 10000 ms, permitted without calls);
    milvus-lite's gRPC server answers the third idle ping with GOAWAY too_many_pings, and a call that meets
    that close fails ("Fail connecting to server", a CI failure of the server store suite). The store's
    channel pings every 300000 ms = 5 min, and not at all while idle: also when another client of this
    process reached the same address first (pymilvus would hand the store that client's connection)."""
    from pymilvus import MilvusClient

    first = MilvusClient(uri=str(milvus_lite_path), timeout=3)
    first.list_collections()
    store = MilvusVectorStore(milvus_lite_path)
    try:
        connection = store.client._get_connection()
        assert connection is not first._get_connection()
        assert connection._grpc_options["grpc.keepalive_time_ms"] == 5 * 60 * 1000
        assert connection._grpc_options["grpc.keepalive_permit_without_calls"] is False
        first.close()
        assert store.has_collection("absent") is False  # the store's own connection outlives the other
    finally:
        store.close()

"""The shared store suites of :mod:`eagle_rag.testing` against real servers: Milvus 2.3.5 standalone
(vectors), milvus-lite's gRPC server (vectors and BM25), a Milvus 2.5+/2.6 server of your own when
``EAGLE_RAG_TEST_MILVUS_URI`` names one, and the registry suite against PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from eagle_rag.stores.milvus import MilvusVectorStore
from eagle_rag.stores.milvus_lexical import MilvusLexicalIndex
from eagle_rag.stores.registry import SqlDocumentRegistry
from eagle_rag.testing import DocumentRegistrySuite, LexicalIndexSuite, VectorStoreSuite
from eagle_rag.testing.vector_store_suite import DIM

pytestmark = pytest.mark.integration


def _store(uri: str) -> Iterator[MilvusVectorStore]:
    store = MilvusVectorStore(uri, timeout=30)
    yield store
    store.close()


def _collection(store: MilvusVectorStore) -> Iterator[str]:
    name = f"t_{uuid.uuid4().hex[:12]}"
    store.ensure_collection(name, DIM)
    yield name
    store.drop_collection(name)


def _lexical(store: MilvusVectorStore) -> Iterator[MilvusLexicalIndex]:
    index = MilvusLexicalIndex(store, f"t_{uuid.uuid4().hex[:12]}")
    yield index
    index.drop()


class TestMilvus235VectorStore(VectorStoreSuite):
    @pytest.fixture(scope="class")
    def store(self, milvus235_uri: str) -> Iterator[MilvusVectorStore]:
        yield from _store(milvus235_uri)

    @pytest.fixture
    def collection(self, store: MilvusVectorStore) -> Iterator[str]:
        yield from _collection(store)


class TestMilvusLiteServerVectorStore(VectorStoreSuite):
    @pytest.fixture(scope="class")
    def store(self, milvus_lite_server_uri: str) -> Iterator[MilvusVectorStore]:
        yield from _store(milvus_lite_server_uri)

    @pytest.fixture
    def collection(self, store: MilvusVectorStore) -> Iterator[str]:
        yield from _collection(store)


class TestMilvusLiteServerLexicalIndex(LexicalIndexSuite):
    @pytest.fixture(scope="class")
    def store(self, milvus_lite_server_uri: str) -> Iterator[MilvusVectorStore]:
        yield from _store(milvus_lite_server_uri)

    @pytest.fixture
    def index(self, store: MilvusVectorStore) -> Iterator[MilvusLexicalIndex]:
        yield from _lexical(store)

    def seal(self, index: object) -> None:
        """Flush: the milvus-lite server, like Milvus Lite, scores unflushed rows with filtered statistics."""
        assert isinstance(index, MilvusLexicalIndex)
        index.client.flush(index.name)


class TestClusterVectorStore(VectorStoreSuite):
    @pytest.fixture(scope="class")
    def store(self, milvus_cluster_uri: str) -> Iterator[MilvusVectorStore]:
        yield from _store(milvus_cluster_uri)

    @pytest.fixture
    def collection(self, store: MilvusVectorStore) -> Iterator[str]:
        yield from _collection(store)


class TestClusterLexicalIndex(LexicalIndexSuite):
    @pytest.fixture(scope="class")
    def store(self, milvus_cluster_uri: str) -> Iterator[MilvusVectorStore]:
        yield from _store(milvus_cluster_uri)

    @pytest.fixture
    def index(self, store: MilvusVectorStore) -> Iterator[MilvusLexicalIndex]:
        yield from _lexical(store)


class TestPostgresRegistry(DocumentRegistrySuite):
    @pytest.fixture
    def registry(self, postgres_database: str) -> Iterator[SqlDocumentRegistry]:
        registry = SqlDocumentRegistry(postgres_database)
        yield registry
        registry.close()

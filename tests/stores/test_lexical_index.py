"""The LexicalIndex suite on tantivy (in RAM and on disk) and on Milvus's BM25 function on Milvus
Lite, then what is particular to tantivy on disk: persistence, one writer, a foreign index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from eagle_rag.protocols import LexicalIndex
from eagle_rag.stores.lexical import TantivyLexicalIndex
from eagle_rag.stores.milvus import MilvusVectorStore
from eagle_rag.stores.milvus_lexical import MilvusLexicalIndex
from eagle_rag.testing import LexicalIndexSuite
from eagle_rag.testing.lexical_suite import make_chunk as _chunk

pytestmark = pytest.mark.integration


class TestTantivyRamIndex(LexicalIndexSuite):
    @pytest.fixture
    def index(self) -> Iterator[TantivyLexicalIndex]:
        store = TantivyLexicalIndex(None)
        yield store
        store.close()


class TestTantivyDiskIndex(LexicalIndexSuite):
    @pytest.fixture
    def index(self, tmp_path: Path) -> Iterator[TantivyLexicalIndex]:
        store = TantivyLexicalIndex(tmp_path / "lex")
        yield store
        store.close()


class TestMilvusLiteLexicalIndex(LexicalIndexSuite):
    @pytest.fixture
    def index(self, milvus_lite_store: MilvusVectorStore, collection_name: str) -> Iterator[MilvusLexicalIndex]:
        milvus = MilvusLexicalIndex(milvus_lite_store, collection_name)
        yield milvus
        milvus.drop()

    def seal(self, index: LexicalIndex) -> None:
        """Flush: Milvus Lite scores unflushed rows with statistics over the rows a filter lets pass."""
        assert isinstance(index, MilvusLexicalIndex)
        index.client.flush(index.name)


# ----------------------------------------------------------------------------- on disk only


def test_persistent_and_incremental(tmp_path: Path) -> None:
    path = tmp_path / "lex"
    first = TantivyLexicalIndex(path)
    first.add([_chunk(i) for i in range(8)])
    first.commit()
    first.close()
    reopened = TantivyLexicalIndex(path)
    assert reopened.count() == 8
    assert reopened.search("pembrolizumab", 10)[0].chunk == _chunk(0)
    reopened.add([_chunk(20, text="Rituximab in lymphoma", doc="doc-new")])
    assert reopened.delete_document("doc-1") == 3
    reopened.close()  # close commits
    third = TantivyLexicalIndex(path)
    assert third.count() == 6
    assert [h.id for h in third.search("lymphoma", 10)] == ["c020"]
    assert third.chunk_ids_for_document("doc-1") == set()
    third.close()


def test_single_writer_per_index(tmp_path: Path) -> None:
    path = tmp_path / "lex"
    owner = TantivyLexicalIndex(path)
    owner.add([_chunk(0)])
    reader = TantivyLexicalIndex(path)  # reading needs no writer
    with pytest.raises(RuntimeError, match="another writer"):
        reader.add([_chunk(1)])
    owner.commit()
    reader.commit()  # reloads the reader's searcher
    assert reader.count() == 1
    owner.close()
    reader.add([_chunk(1)])
    reader.commit()
    assert reader.count() == 2
    reader.close()


def test_foreign_index_is_refused(tmp_path: Path) -> None:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", stored=True)
    tantivy.Index(builder.build(), path=str(tmp_path))
    with pytest.raises(ValueError, match="schema does not match"):
        TantivyLexicalIndex(tmp_path)

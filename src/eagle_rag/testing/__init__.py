"""The shared store test suites, for the project's own stores and for a store of your own.

Every store implementation passes one suite per protocol of :mod:`eagle_rag.protocols`:

* :class:`DocumentRegistrySuite` (fixture ``registry``): SQLite and PostgreSQL in this project;
* :class:`VectorStoreSuite` (fixtures ``store`` and ``collection``): Milvus Lite;
* :class:`LexicalIndexSuite` (fixture ``index``): tantivy in RAM and on disk, Milvus BM25.

Testing a store of your own
---------------------------
Subclass the suite in a test module whose class name starts with ``Test`` and override the
fixtures it names; every test method of the suite then runs against your store::

    import pytest
    from eagle_rag.testing import LexicalIndexSuite

    class TestMyLexicalIndex(LexicalIndexSuite):
        @pytest.fixture
        def index(self, tmp_path):
            index = MyLexicalIndex(tmp_path / "lex")  # empty
            yield index
            index.close()

A fixture left out fails each test at setup with a message naming the fixture to override.
The suites need pytest (and ``bm25s`` for the lexical ranking comparison); the core package
never imports this module.
"""

from __future__ import annotations

from eagle_rag.testing.lexical_suite import LexicalIndexSuite
from eagle_rag.testing.registry_suite import DocumentRegistrySuite
from eagle_rag.testing.vector_store_suite import VectorStoreSuite

__all__ = ["DocumentRegistrySuite", "LexicalIndexSuite", "VectorStoreSuite"]

"""The lexical index of each collection, opened once per process: a tantivy folder under
``lexical_path`` or, with ``lexical.backend: milvus``, a BM25 collection next to the vectors."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from eagle_rag.stores.lexical import TantivyLexicalIndex
from eagle_rag.stores.milvus_lexical import SUFFIX as MILVUS_LEXICAL_SUFFIX
from eagle_rag.stores.milvus_lexical import MilvusLexicalIndex

if TYPE_CHECKING:
    from eagle_rag.protocols import LexicalIndex
    from eagle_rag.settings import Settings
    from eagle_rag.stores.milvus import MilvusVectorStore


class LexicalIndexes:
    """One :class:`~eagle_rag.protocols.LexicalIndex` per collection, opened on first use."""

    def __init__(self, settings: Settings, vectors: MilvusVectorStore) -> None:
        self.settings = settings
        self.vectors = vectors
        self._open: dict[str, LexicalIndex] = {}
        self._lock = threading.Lock()

    def get(self, collection: str) -> LexicalIndex:
        """The collection's index (created empty when it does not exist yet)."""
        with self._lock:
            index = self._open.get(collection)
            if index is None:
                index = _BACKENDS[self.settings.lexical.backend](self, collection)
                self._open[collection] = index
            return index

    def exists(self, collection: str) -> bool:
        """True when the collection's lexical index exists (asking never creates one)."""
        if self.settings.lexical.backend == "milvus":
            return bool(self.vectors.has_collection(f"{collection}{MILVUS_LEXICAL_SUFFIX}"))
        return (self.settings.lexical_path / collection).exists()

    def values(self) -> list[LexicalIndex]:
        """The indexes opened so far."""
        with self._lock:
            return list(self._open.values())

    def close(self) -> None:
        for index in self.values():
            index.close()


def _tantivy(indexes: LexicalIndexes, collection: str) -> LexicalIndex:
    return TantivyLexicalIndex(indexes.settings.lexical_path / collection)


def _milvus(indexes: LexicalIndexes, collection: str) -> LexicalIndex:
    return MilvusLexicalIndex(indexes.vectors, collection)


_BACKENDS: dict[str, Callable[[LexicalIndexes, str], LexicalIndex]] = {"tantivy": _tantivy, "milvus": _milvus}

"""Protocols for stores and encoders. Every implementation passes one shared test suite."""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from eagle_rag.types import Chunk, DocumentStatus, MetadataFilter

Vector = list[float]


@dataclass(frozen=True)
class ScoredId:
    """One search result from a store: the chunk id, its raw score, and the stored chunk."""

    id: str
    score: float
    chunk: Chunk


@dataclass(frozen=True)
class StoreFilter:
    """Scalar filters shared by the stores. Empty tuples mean "no restriction".

    ``metadata`` holds the filters on chunk attributes that not every store indexes: a store may
    apply what it can (Milvus: ``source_type``) and the retrieval channels check every hit against
    it (:func:`eagle_rag.retrieve.channels.keep_matching`). ``empty`` covers the store-level fields.
    """

    kb_names: tuple[str, ...] = ()
    document_ids: tuple[str, ...] = ()
    chunk_types: tuple[str, ...] = ()
    metadata: MetadataFilter | None = None

    @property
    def empty(self) -> bool:
        return not (self.kb_names or self.document_ids or self.chunk_types)

    def admits(self, chunk: Chunk) -> bool:
        """Whether ``chunk`` lies inside every field of the filter (checked in Python, as a store would)."""
        return ((not self.kb_names or chunk.kb_name in self.kb_names)
                and (not self.document_ids or chunk.document_id in self.document_ids)
                and (not self.chunk_types or chunk.chunk_type in self.chunk_types)
                and (self.metadata is None or self.metadata.matches(chunk)))


@runtime_checkable
class TextEncoder(Protocol):
    """Turns texts into L2-normalised vectors of a fixed dimension. Loads its model lazily.

    An encoder may also carry ``semantic_floor`` (a float, read with ``getattr``; absent = 0): the
    cosine under which a hit found only by its vectors is dropped from search results.
    """

    name: str
    dim: int

    def encode_queries(self, texts: Sequence[str]) -> list[Vector]: ...

    def encode_passages(self, texts: Sequence[str]) -> list[Vector]: ...


@runtime_checkable
class ImageEncoder(Protocol):
    """Turns image file bytes into L2-normalised vectors of a fixed dimension (visual encoder labels)."""

    name: str
    dim: int

    def encode_images(self, images: Sequence[bytes]) -> list[Vector]: ...


@runtime_checkable
class CrossEncoder(Protocol):
    """Scores (query, passage) pairs; higher is more relevant. Raw logits, not normalised."""

    name: str

    def score_pairs(self, query: str, passages: Sequence[str]) -> list[float]: ...


@runtime_checkable
class VectorStore(Protocol):
    def ensure_collection(
        self, name: str, dim: int, extra_fields: Sequence[str] = (), metric: str = "COSINE"
    ) -> None: ...

    def has_collection(self, name: str) -> bool: ...

    def upsert(self, collection: str, chunks: Sequence[Chunk], vectors: Sequence[Vector]) -> int: ...

    def search(
        self, collection: str, vector: Vector, top_k: int, flt: StoreFilter | None = None
    ) -> list[ScoredId]: ...

    def delete_document(self, collection: str, document_id: str) -> int: ...

    def count(self, collection: str, flt: StoreFilter | None = None) -> int: ...

    def has_rows(self, collection: str, flt: StoreFilter | None = None) -> bool: ...

    def chunk_ids_for_document(self, collection: str, document_id: str) -> set[str]: ...

    def delete_chunks(self, collection: str, chunk_ids: Sequence[str]) -> int: ...

    def chunk_refs(self, collection: str, flt: StoreFilter | None = None) -> Iterator[tuple[str, str]]: ...

    def get_chunks(self, collection: str, chunk_ids: Sequence[str]) -> list[Chunk]: ...

    def get_rows(self, collection: str, chunk_ids: Sequence[str]) -> list[tuple[Chunk, Vector]]: ...

    def close(self) -> None: ...


@runtime_checkable
class LexicalIndex(Protocol):
    def add(self, chunks: Sequence[Chunk]) -> int: ...

    def delete_document(self, document_id: str) -> int: ...

    def search(self, query: str, top_k: int, flt: StoreFilter | None = None,
               extra_terms: Sequence[str] = ()) -> list[ScoredId]: ...

    def count(self, flt: StoreFilter | None = None) -> int: ...

    def chunk_ids_for_document(self, document_id: str) -> set[str]: ...

    def delete_chunks(self, chunk_ids: Sequence[str]) -> int: ...

    def chunk_refs(self, flt: StoreFilter | None = None) -> Iterator[tuple[str, str]]: ...

    def commit(self) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class DocumentRecord:
    id: str
    kb_name: str
    name: str
    source_uri: str
    content_hash: str
    status: DocumentStatus
    chunk_count: int
    tags: tuple[str, ...]
    namespace: str
    created_at: datetime
    updated_at: datetime
    error: str = ""


@runtime_checkable
class DocumentRegistry(Protocol):
    def upsert(self, record: DocumentRecord) -> None: ...

    def upsert_many(self, records: Sequence[DocumentRecord]) -> None: ...

    def get(self, document_id: str) -> DocumentRecord | None: ...

    def complete_ids(self, document_ids: Sequence[str]) -> set[str]: ...

    def complete_versions(self, document_ids: Sequence[str]) -> dict[str, str]: ...

    def set_status(self, document_id: str, status: DocumentStatus, chunk_count: int | None = None,
                   error: str = "") -> None: ...

    def delete(self, document_id: str) -> bool: ...

    def list(self, kb_name: str | None = None, status: DocumentStatus | None = None,
             limit: int = 1000, offset: int = 0) -> builtins.list[DocumentRecord]: ...

    def kb_names(self) -> set[str]: ...

    def count(self, kb_name: str | None = None, status: DocumentStatus | None = None) -> int: ...

    def lookup_document_ids_by_name_terms(self, terms: Sequence[str], kb_name: str | None = None,
                                          namespace: str | None = None) -> builtins.list[str]: ...

    def document_ids_with_tags(self, tags: Sequence[str]) -> set[str]: ...

    def close(self) -> None: ...

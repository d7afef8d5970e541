"""Stores: vector collections (Milvus), the lexical index (tantivy) and the document registry."""

from eagle_rag.stores.filters import (
    InvalidFilterError,
    build_milvus_filter,
    escape_milvus_string,
    validate_kb_name,
)
from eagle_rag.stores.lexical import TantivyLexicalIndex
from eagle_rag.stores.milvus import CollectionNotFoundError, MilvusVectorStore
from eagle_rag.stores.registry import SqlDocumentRegistry

__all__ = [
    "CollectionNotFoundError",
    "InvalidFilterError",
    "MilvusVectorStore",
    "SqlDocumentRegistry",
    "TantivyLexicalIndex",
    "build_milvus_filter",
    "escape_milvus_string",
    "validate_kb_name",
]

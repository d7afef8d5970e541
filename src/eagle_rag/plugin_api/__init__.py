"""The one surface a plugin may import from the core (docs/architecture.md, "Plugin API").

A plugin (``eagle_rag_biomed``, ``eagle_rag_datasets`` or a third-party package) imports core names
from this package only; ``tests/test_plugin_contract.py`` walks every plugin module and fails on any
other ``eagle_rag`` import. Here, kept short and deliberate: the hook marker and context, the typed
objects that travel between stages (and the MCP tool a hook returns), the store and encoder
protocols, the errors, the store filter and the memo. Helpers come grouped, each group a module of this package:
:mod:`~eagle_rag.plugin_api.text`, :mod:`~eagle_rag.plugin_api.encoders`,
:mod:`~eagle_rag.plugin_api.ingest`, :mod:`~eagle_rag.plugin_api.retrieve`,
:mod:`~eagle_rag.plugin_api.commands` (what a plugin's commands, routes and tools call) and
:mod:`~eagle_rag.plugin_api.options`. No front end is part of it: the front ends hand their pieces to
the registration hooks.
"""

from __future__ import annotations

from eagle_rag.context import HookContext, Services, ServiceUnavailable
from eagle_rag.encoders.errors import EncoderLoadError
from eagle_rag.encoders.memo import VectorMemo, memo_key
from eagle_rag.errors import EagleError, IngestError, InvalidRequest, NotFound, PluginUnavailable
from eagle_rag.hookspecs import hookimpl
from eagle_rag.kernel.plugin_options import PluginOptionsError
from eagle_rag.protocols import CrossEncoder, StoreFilter, TextEncoder, Vector, VectorStore
from eagle_rag.service.tools import McpTool
from eagle_rag.settings import Settings
from eagle_rag.stores.filters import InvalidFilterError, validate_kb_name
from eagle_rag.stores.token_vectors import TokenVectors
from eagle_rag.types import (
    Chunk,
    ChunkClassification,
    CollectionQueryPlan,
    DocumentStatus,
    EncoderMode,
    ExpandedQuery,
    Modality,
    NodeWithScore,
    ParsedDocument,
    QueryRetrievalIntent,
    QueryRouteDecision,
    SearchMode,
    SearchRequest,
    Section,
    document_key,
    public_document_id,
    split_document_key,
)

__all__ = [
    "Chunk",
    "ChunkClassification",
    "CollectionQueryPlan",
    "CrossEncoder",
    "DocumentStatus",
    "EagleError",
    "EncoderLoadError",
    "EncoderMode",
    "ExpandedQuery",
    "HookContext",
    "IngestError",
    "InvalidFilterError",
    "InvalidRequest",
    "McpTool",
    "Modality",
    "NodeWithScore",
    "NotFound",
    "ParsedDocument",
    "PluginOptionsError",
    "PluginUnavailable",
    "QueryRetrievalIntent",
    "QueryRouteDecision",
    "SearchMode",
    "SearchRequest",
    "Section",
    "ServiceUnavailable",
    "Services",
    "Settings",
    "StoreFilter",
    "TextEncoder",
    "TokenVectors",
    "Vector",
    "VectorMemo",
    "VectorStore",
    "document_key",
    "hookimpl",
    "memo_key",
    "public_document_id",
    "split_document_key",
    "validate_kb_name",
]

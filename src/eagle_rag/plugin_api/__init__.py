"""The one surface a plugin may import from the core (docs/architecture.md, "Plugin API").

A plugin (``eagle_rag_biomed``, ``eagle_rag_datasets`` or a third-party package) imports core
names from this module only; ``tests/test_plugin_contract.py`` walks every plugin module and fails
on any other ``eagle_rag`` import. Everything here is public and kept stable: hook markers, the
typed objects that travel between stages, the hook context, the store and encoder protocols,
the errors, the fusion primitives, the MCP tool description and a few text and path helpers.
"""

from __future__ import annotations

from eagle_rag.analysis import analyze, cjk_ratio, compact_name, model_covers, normalize
from eagle_rag.api import ERROR_RESPONSES
from eagle_rag.api.models import FilterValue, PlainText
from eagle_rag.cli.progress import CommandProgress
from eagle_rag.context import HookContext, Services, ServiceUnavailable
from eagle_rag.encoders import (
    BUNDLED_BGE_SMALL,
    BUNDLED_E5_MULTILINGUAL,
    BUNDLED_MINILM_RERANKER,
    CollectionProfile,
    DeterministicCrossEncoder,
    DeterministicEncoder,
    EncoderLoadError,
    EncoderRegistry,
    EncoderSpec,
    fit_to_dim,
    load_native_cross_encoder,
    load_native_text_encoder,
)
from eagle_rag.encoders.memo import VectorMemo, memo_key
from eagle_rag.encoders.registry import NO_MODEL, EncoderFactory
from eagle_rag.engine import Engine
from eagle_rag.errors import EagleError, IngestError, InvalidRequest, NotFound, PluginUnavailable
from eagle_rag.hookspecs import hookimpl
from eagle_rag.ingest.dispatch import embed_input, is_visual_chunk
from eagle_rag.ingest.parsers import file_document_id, record_document_id
from eagle_rag.ingest.records import ParseResult, Record, RecordFailure
from eagle_rag.ingest.sources import allowed_ingest_roots, iter_source_files
from eagle_rag.kernel.core_defaults import MIXED_QUERY_MIN_CJK, MULTILINGUAL_COLLECTION, MULTILINGUAL_ENCODER
from eagle_rag.kernel.plugin_options import WRITES_INDEX, PluginOptionsError, validate_plugin_options
from eagle_rag.ops.demo import sample_dir
from eagle_rag.protocols import CrossEncoder, StoreFilter, TextEncoder, Vector, VectorStore
from eagle_rag.redact import public_path
from eagle_rag.retrieve.channels import embed_query
from eagle_rag.retrieve.cross_rerank import STAGE as CROSS_ENCODER_STAGE
from eagle_rag.retrieve.cross_rerank import skipped_for_language
from eagle_rag.retrieve.fusion import (
    inject_supplement_candidates,
    is_injected,
    merge_rrf,
    sparse_overlap_score,
)
from eagle_rag.retrieve.safe_hooks import call_hook
from eagle_rag.service.backend import Target, open_backend, resolve_target
from eagle_rag.service.requests import parse_mode
from eagle_rag.service.tools import McpTool, tool_error
from eagle_rag.settings import Settings, effective_settings, load_settings
from eagle_rag.stores.filters import InvalidFilterError, validate_kb_name
from eagle_rag.stores.registry import source_file_name
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
    "BUNDLED_BGE_SMALL",
    "BUNDLED_E5_MULTILINGUAL",
    "BUNDLED_MINILM_RERANKER",
    "CROSS_ENCODER_STAGE",
    "ERROR_RESPONSES",
    "MIXED_QUERY_MIN_CJK",
    "MULTILINGUAL_COLLECTION",
    "MULTILINGUAL_ENCODER",
    "NO_MODEL",
    "Chunk",
    "ChunkClassification",
    "CollectionProfile",
    "CollectionQueryPlan",
    "CommandProgress",
    "CrossEncoder",
    "DeterministicCrossEncoder",
    "DeterministicEncoder",
    "DocumentStatus",
    "EagleError",
    "EncoderFactory",
    "EncoderLoadError",
    "EncoderMode",
    "EncoderRegistry",
    "EncoderSpec",
    "Engine",
    "Target",
    "ExpandedQuery",
    "FilterValue",
    "HookContext",
    "IngestError",
    "InvalidFilterError",
    "InvalidRequest",
    "McpTool",
    "Modality",
    "NotFound",
    "NodeWithScore",
    "ParseResult",
    "ParsedDocument",
    "PlainText",
    "PluginOptionsError",
    "PluginUnavailable",
    "QueryRetrievalIntent",
    "QueryRouteDecision",
    "Record",
    "RecordFailure",
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
    "WRITES_INDEX",
    "allowed_ingest_roots",
    "analyze",
    "call_hook",
    "memo_key",
    "cjk_ratio",
    "compact_name",
    "effective_settings",
    "embed_input",
    "embed_query",
    "file_document_id",
    "fit_to_dim",
    "hookimpl",
    "inject_supplement_candidates",
    "is_injected",
    "is_visual_chunk",
    "iter_source_files",
    "load_native_cross_encoder",
    "load_native_text_encoder",
    "load_settings",
    "merge_rrf",
    "model_covers",
    "normalize",
    "open_backend",
    "parse_mode",
    "record_document_id",
    "document_key",
    "public_document_id",
    "public_path",
    "split_document_key",
    "resolve_target",
    "sample_dir",
    "skipped_for_language",
    "source_file_name",
    "tool_error",
    "sparse_overlap_score",
    "validate_kb_name",
    "validate_plugin_options",
]

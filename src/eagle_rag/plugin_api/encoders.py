"""Encoders a plugin registers or reuses: the bundled models, deterministic stand-ins, the registry's
specs and collection profiles, and the core's multilingual collection.

Part of the plugin API (:mod:`eagle_rag.plugin_api`): stable, and the only place a plugin takes these from.
"""

from __future__ import annotations

from eagle_rag.encoders import (
    BUNDLED_BGE_SMALL,
    BUNDLED_E5_MULTILINGUAL,
    BUNDLED_MINILM_RERANKER,
    CollectionProfile,
    DeterministicCrossEncoder,
    DeterministicEncoder,
    EncoderRegistry,
    EncoderSpec,
    fit_to_dim,
    load_native_cross_encoder,
    load_native_text_encoder,
)
from eagle_rag.encoders.registry import NO_MODEL, EncoderFactory
from eagle_rag.kernel.core_defaults import MIXED_QUERY_MIN_CJK, MULTILINGUAL_COLLECTION, MULTILINGUAL_ENCODER

__all__ = [
    "BUNDLED_BGE_SMALL",
    "BUNDLED_E5_MULTILINGUAL",
    "BUNDLED_MINILM_RERANKER",
    "CollectionProfile",
    "DeterministicCrossEncoder",
    "DeterministicEncoder",
    "EncoderFactory",
    "EncoderRegistry",
    "EncoderSpec",
    "MIXED_QUERY_MIN_CJK",
    "MULTILINGUAL_COLLECTION",
    "MULTILINGUAL_ENCODER",
    "NO_MODEL",
    "fit_to_dim",
    "load_native_cross_encoder",
    "load_native_text_encoder",
]

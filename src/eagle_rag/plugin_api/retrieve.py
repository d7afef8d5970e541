"""The query-side primitives a plugin's query hooks build on: fusion, supplement injection, query
embedding, calling a hook safely, the core cross-encoder's stage name and language rule, and the multilingual
e5 cosine for the passages the cross-encoder cannot read.

Part of the plugin API (:mod:`eagle_rag.plugin_api`): stable, and the only place a plugin takes these from.
"""

from __future__ import annotations

from eagle_rag.retrieve.channels import embed_query
from eagle_rag.retrieve.cross_rerank import STAGE as CROSS_ENCODER_STAGE
from eagle_rag.retrieve.cross_rerank import skipped_for_language
from eagle_rag.retrieve.fusion import inject_supplement_candidates, is_injected, merge_rrf, sparse_overlap_score
from eagle_rag.retrieve.multilingual_rerank import multilingual_ranked
from eagle_rag.retrieve.safe_hooks import call_hook

__all__ = [
    "CROSS_ENCODER_STAGE",
    "call_hook",
    "embed_query",
    "inject_supplement_candidates",
    "is_injected",
    "merge_rrf",
    "multilingual_ranked",
    "skipped_for_language",
    "sparse_overlap_score",
]

"""Core behaviour as a plugin registered to run last: domain plugins override it.

Routing of the core: one English text collection (``eagle_text``, bge-small) and one
multilingual collection (``eagle_text_multilingual``, multilingual e5-small). Passages written
mainly in CJK script go to the multilingual collection; a query goes to the collections its script
calls for (a mixed query to both, fused by RRF).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from eagle_rag.analysis import CJK_MIN_RATIO, cjk_ratio
from eagle_rag.context import HookContext
from eagle_rag.hookspecs import hookimpl
from eagle_rag.ingest.parsers import PARSERS, route_for_suffix
from eagle_rag.ingest.record_readers import RECORD_READERS
from eagle_rag.ingest.records import Record, RecordFailure
from eagle_rag.retrieve.cross_rerank import CROSS_ENCODER_LABEL, cross_encoder_rerank
from eagle_rag.retrieve.relevance import GENERAL_FILE as GENERAL_RELEVANCE_FILE
from eagle_rag.types import (
    Chunk,
    ChunkClassification,
    CollectionQueryPlan,
    ExpandedQuery,
    NodeWithScore,
    ParsedDocument,
    QueryRouteDecision,
    SearchMode,
    SearchRequest,
)

TEXT_COLLECTION = "eagle_text"
TEXT_ENCODER = "bge-small"
MULTILINGUAL_COLLECTION = "eagle_text_multilingual"
MULTILINGUAL_ENCODER = "e5-multilingual"
MIXED_QUERY_MIN_CJK = CJK_MIN_RATIO


@hookimpl(trylast=True)
def eagle_relevance_parameters(profile: str) -> Path | None:
    """The relevance parameters the core ships for the ``general`` profile."""
    return GENERAL_RELEVANCE_FILE if profile == "general" else None


@hookimpl(trylast=True)
def eagle_ingest_route_selector(path: Path) -> str | None:
    return route_for_suffix(path)


@hookimpl(trylast=True)
def eagle_parse_records(ctx: HookContext, path: Path, route: str, kb_name: str) -> (
    Iterator[Record | RecordFailure] | None
):
    """The core's multi-record routes (JSONL, BEIR, JSON, CSV, TSV), read record by record."""
    reader = RECORD_READERS.get(route)
    return None if reader is None else reader(path, kb_name, ctx.settings.ingest.max_file_bytes)


@hookimpl(trylast=True)
def eagle_parse(path: Path, route: str, data: bytes, kb_name: str) -> list[ParsedDocument] | None:
    parser = PARSERS.get(route)
    return None if parser is None else parser(path, data, kb_name)


@hookimpl(trylast=True)
def eagle_classify_chunk(ctx: HookContext, chunk: Chunk) -> ChunkClassification:
    threshold = ctx.settings.encoders.cjk_ratio_threshold
    if cjk_ratio(chunk.text) > threshold:
        return ChunkClassification(MULTILINGUAL_COLLECTION, MULTILINGUAL_ENCODER, "text",
                                   exclusive_group="core_text", rule="cjk_script")
    return ChunkClassification(TEXT_COLLECTION, TEXT_ENCODER, "text",
                               exclusive_group="core_text", rule="latin_script")


@hookimpl(trylast=True)
def eagle_embed_text(ctx: HookContext, encoder: str, texts: Sequence[str], kind: str) -> list[list[float]]:
    enc: Any = ctx.services.encoders.get_encoder(encoder)
    return enc.encode_queries(texts) if kind == "query" else enc.encode_passages(texts)


@hookimpl(trylast=True)
def eagle_embed_visual(ctx: HookContext, encoder: str, images: Sequence[bytes]) -> list[list[float]]:
    """The registry's encoder for ``encoder`` embeds the images (it must have ``encode_images``)."""
    enc: Any = ctx.services.encoders.get_encoder(encoder)
    encode_images = getattr(enc, "encode_images", None)
    if encode_images is None:
        raise ValueError(f"encoder {encoder!r} ({type(enc).__name__}) cannot embed images")
    return list(encode_images(images))


@hookimpl(trylast=True)
def eagle_classify_query(ctx: HookContext, request: SearchRequest, query: str) -> QueryRouteDecision:
    top_k = ctx.settings.router.collection_recall_top_k
    ratio = cjk_ratio(query)
    plans = []
    if ratio < 1.0:
        plans.append(CollectionQueryPlan(TEXT_COLLECTION, TEXT_ENCODER, top_k, reason="latin_script"))
    if ratio >= MIXED_QUERY_MIN_CJK:
        plans.append(CollectionQueryPlan(MULTILINGUAL_COLLECTION, MULTILINGUAL_ENCODER, top_k,
                                         reason="cjk_script"))
    # Tier-2 of the core scores search.cross_encoder_pool candidates: the merged list must be that deep.
    hints = {"rerank_pool": ctx.settings.search.cross_encoder_pool} if request.mode is SearchMode.FULL else {}
    return QueryRouteDecision(plans=tuple(plans), reason=f"script cjk_ratio={ratio:.2f}",
                              classifier="core_defaults", retrieval_hints=hints)


@hookimpl(trylast=True)
def eagle_query_dense_expand(query: str) -> ExpandedQuery:
    return ExpandedQuery(dense_query=query)


@hookimpl(trylast=True)
def eagle_rerank_merged(ctx: HookContext, query: str, nodes: Sequence[NodeWithScore], request: SearchRequest) -> (
    list[NodeWithScore] | None
):
    return cross_encoder_rerank(ctx, query, nodes, request.mode)


@hookimpl(trylast=True)
def eagle_warm_up(ctx: HookContext) -> list[str]:
    """The core's cross-encoder (Tier-2 of mode ``full`` when no plugin reranks), run on one pair."""
    ctx.services.encoders.cross_encoder(CROSS_ENCODER_LABEL).score_pairs("aspirin dose", ["aspirin 100 mg daily"])
    return [f"cross-encoder {CROSS_ENCODER_LABEL}"]

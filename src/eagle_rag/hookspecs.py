"""Every hook of Eagle-RAG, declared once (DESIGN.md section 1).

Hooks are called with keyword arguments only. A plugin may accept a subset of the arguments.
"First" hooks are ``firstresult=True``: the first non-None answer wins and None means "not mine,
ask the next plugin" (an empty list means "mine, and I found nothing"). "All" hooks collect every
non-None answer. The core defaults (:mod:`eagle_rag.kernel.core_defaults`) are registered to run last.
Every hook receives ``ctx``, a :class:`eagle_rag.context.HookContext`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy
from pydantic import BaseModel

from eagle_rag.types import (
    Chunk,
    ChunkClassification,
    CollectionQueryPlan,
    ExpandedQuery,
    NodeWithScore,
    ParsedDocument,
    QueryRouteDecision,
    SearchRequest,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from eagle_rag.context import HookContext
    from eagle_rag.encoders.registry import EncoderRegistry
    from eagle_rag.ingest.records import ParseResult, RecordItem
    from eagle_rag.stores.token_vectors import TokenVectors

PROJECT = "eagle_rag"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

# ----------------------------------------------------------------------------- registration


@hookspec
def eagle_register(ctx: HookContext, encoders: EncoderRegistry) -> None:
    """Register the plugin's encoders and collections when the engine starts.

    All implementations are called; return values are ignored.
    """


@hookspec
def eagle_options_model() -> type[BaseModel] | None:
    """The pydantic model of the plugin's options block ``plugins.options.<plugin name>`` (unknown
    keys refused with ``extra="forbid"``; every field with a ``description``), or None for a plugin
    without options.

    All non-None results are collected; the core asks each plugin on its own, validates its block
    when the plugin manager is built (a bad key stops the start with the key and its nearest valid
    name) and lists every field in ``eagle-rag config show`` (:mod:`eagle_rag.kernel.plugin_options`).
    """


@hookspec
def eagle_cli_register(cli: Any, eval_cli: Any) -> None:
    """Add typer commands to the ``eagle-rag`` CLI (``cli``) or to ``eagle-rag eval`` (``eval_cli``).

    All implementations are called; return values are ignored.
    """


@hookspec
def eagle_api_register(api: Any, engine: Any, error_responses: dict[int | str, dict[str, Any]]) -> None:
    """Add HTTP routes of the plugin to the FastAPI app ``api`` (e.g. ``/datasets/search``);
    ``error_responses`` documents the one error shape in a route's OpenAPI ``responses``.

    All implementations are called; return values are ignored.
    """


@hookspec
def eagle_mcp_tools(engine: Any) -> list[Any] | None:
    """Describe the plugin's MCP tools (read-only): a list of ``eagle_rag.service.tools.McpTool``.

    All non-None results are collected; the server registers core tools and the tools of the
    default namespace's plugins, and refuses names that mutate or execute.
    """


@hookspec(firstresult=True)
def eagle_relevance_parameters(profile: str) -> Path | None:
    """The relevance-probability parameters file the plugin ships for ``profile`` (issue 38,
    :mod:`eagle_rag.retrieve.relevance`), or None when it has none for that profile.

    Stops at the first non-None result; the core answers for ``general``.
    """


@hookspec
def eagle_warm_up(ctx: HookContext) -> list[str] | None:
    """Load what the plugin's first query would otherwise load (models, vocabularies, side stores)
    and run each model once on a tiny input (:meth:`eagle_rag.engine.Engine.warm_up`, called by
    ``eagle-rag serve`` before it reports ready).

    Return what was loaded, one short name each (``"cross-encoder medcpt-rerank"``), or None when the
    plugin has nothing to load (e.g. ``ctx.namespace`` is not its own).
    All non-None results are collected.
    """


@hookspec
def eagle_filter_vocabulary(ctx: HookContext) -> Mapping[str, Mapping[str, str]] | None:
    """The names people use for the section and document-type values the plugin's chunks carry:
    ``{"sections": {name: stored value}, "doc_types": {name: stored value}}``, e.g.
    ``{"sections": {"Dosage and Administration": "dosage"}, "doc_types": {"label": "drug_label"}}``.

    Return None when the plugin labels neither. All non-None results are collected: the core folds
    every name (case, punctuation, singular and plural), lets a filter value match every name of its
    stored value and lists the stored values as the filters' valid values (:mod:`eagle_rag.filter_names`).
    """


# ----------------------------------------------------------------------------- ingest


@hookspec(firstresult=True)
def eagle_ingest_route_selector(ctx: HookContext, path: Path, suffix: str) -> str | None:
    """Name the parser route for a source file (INGEST_ROUTE_SELECTORS).

    Return a route name such as ``"markdown"`` or None for "not mine". The route ``"skip"`` tells
    the orchestrator to ignore the file silently (not parsed, not a failure; counted in the report's
    ``skipped_files``), e.g. the caption sidecar of an image. Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def eagle_parse_records(ctx: HookContext, path: Path, route: str, kb_name: str) -> (
    Iterator[RecordItem] | None
):
    """Stream the records of a multi-record source file, one at a time (PARSE, record by record).

    Asked before ``eagle_parse``. Return None when the route is not this plugin's, else an iterator
    (typically a generator that opens ``path`` itself) of ``Record`` (a good record), ``RecordFailure``
    (a bad one: the file goes on) or plain ``ParsedDocument`` items (from
    :mod:`eagle_rag.ingest.records`). The iterator may raise ``IngestError`` when the whole file
    cannot be read. Memory should not depend on the file's size. The core answers for its routes
    ``jsonl``, ``beir``, ``json``, ``csv`` and ``tsv``; a plugin that wants one of those routes
    implements this hook. Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def eagle_parse(ctx: HookContext, path: Path, route: str, data: bytes, kb_name: str) -> (
    list[ParsedDocument] | ParseResult | None
):
    """Parse the bytes of one source file into documents (PARSE).

    Return None when the route is not this plugin's; raise ``IngestError`` for a bad file.
    A file may hold several documents; a parser that skips bad records returns a ``ParseResult``
    (documents and ``RecordFailure`` items) instead of a list. Stops at the first non-None result.
    """


@hookspec
def eagle_chunk_enrich(ctx: HookContext, document: ParsedDocument, chunks: Sequence[Chunk]) -> (
    list[dict[str, Any]] | None
):
    """Enrich chunks with metadata (CHUNK). Enrich only: never re-split or rewrite text, path or ids.

    Return one metadata dict per chunk, in order (merged into ``chunk.metadata``), or None.
    All non-None results are collected and applied in plugin order.
    """


@hookspec(firstresult=True)
def eagle_classify_chunk(ctx: HookContext, chunk: Chunk) -> (
    ChunkClassification | Sequence[ChunkClassification] | None
):
    """Choose the collection, encoder label and chunk type of a text chunk (CLASSIFY_CHUNK).

    Also asked for image chunks that no CLASSIFY_VISUAL implementation claimed. Return None for
    "not mine", one :class:`ChunkClassification`, or a sequence of them to write the chunk to several
    collections; of those sharing a non-empty ``exclusive_group`` only the first is kept.
    Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def eagle_classify_visual(ctx: HookContext, chunk: Chunk) -> (
    ChunkClassification | Sequence[ChunkClassification] | None
):
    """Choose the collection and encoder of an image chunk (CLASSIFY_VISUAL).

    The ingest orchestrator asks this hook first for chunks whose ``source_type`` is image, dicom or
    nifti (or whose ``chunk_type`` is image / medical_image), then CLASSIFY_CHUNK when it gets None.
    Return None for "not mine", one classification or a sequence (as for CLASSIFY_CHUNK).
    Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def eagle_embed_text(ctx: HookContext, encoder: str, texts: Sequence[str], kind: str) -> (
    list[list[float]] | None
):
    """Embed texts with the encoder label ``encoder``; ``kind`` is "query" or "passage" (EMBED_TEXT).

    Return None when the label is not this plugin's. Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def eagle_embed_visual(ctx: HookContext, encoder: str, images: Sequence[bytes]) -> (
    list[list[float]] | None
):
    """Embed images with the encoder label ``encoder`` (EMBED_VISUAL).

    Called at ingest for encoder labels of modality ``visual``; ``images`` are the bytes of the files
    named by the chunks' ``metadata["image_path"]`` (PNG, JPEG, TIFF, DICOM, NIfTI ...). Return None
    when the label is not this plugin's; the core default asks the registry's encoder for
    ``encode_images``. Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def eagle_embed_tokens(ctx: HookContext, collection: str, chunks: Sequence[Chunk]) -> (
    list[TokenVectors] | None
):
    """Late-interaction token vectors of chunks written to ``collection`` (a collection of
    ``ingest.token_vector_collections``), kept in the token vector store
    (:mod:`eagle_rag.stores.token_vectors`) so that a query encodes only itself.

    Return one :class:`~eagle_rag.stores.token_vectors.TokenVectors` per chunk it can encode (a chunk
    left out is encoded at query time), or None when the collection is not this plugin's.
    Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def eagle_upsert_vectors(ctx: HookContext, collection: str, chunks: Sequence[Chunk],
                         vectors: Sequence[Sequence[float]]) -> int | None:
    """Write vectors of one collection (UPSERT_VECTORS). Return the number written, or None.

    Stops at the first non-None result.
    """


# ----------------------------------------------------------------------------- query


@hookspec
def eagle_query_assemble(ctx: HookContext, request: SearchRequest) -> str | None:
    """Contribute text appended to the query before routing (QUERY_ASSEMBLE).

    All non-None results are collected and appended in plugin order.
    """


@hookspec(firstresult=True)
def eagle_classify_query(ctx: HookContext, request: SearchRequest, query: str) -> (
    QueryRouteDecision | None
):
    """Decide which collections to search with which encoders (CLASSIFY_QUERY).

    Return None to abstain (e.g. outside the plugin's namespace). Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def eagle_query_dense_expand(ctx: HookContext, query: str, plan: CollectionQueryPlan | None,
                             request: SearchRequest) -> ExpandedQuery | None:
    """Rewrite the dense query and add sparse terms for one plan (QUERY_DENSE_EXPAND).

    Called once with ``plan=None`` for the request-wide pass, then once per plan; ``query`` is the
    assembled query, ``request`` the search request (its ``mode``, filters and ``top_k``).
    Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def eagle_rerank(ctx: HookContext, query: str, plan: CollectionQueryPlan, nodes: Sequence[NodeWithScore],
                 request: SearchRequest) -> list[NodeWithScore] | None:
    """Tier-1 rerank of one plan's fused hits (RERANK); ``request.mode`` says which pipeline runs.

    Return None to keep the order. Stops at the first non-None result.
    """


@hookspec
def eagle_retrieve_supplement(ctx: HookContext, query: str, request: SearchRequest,
                              plans: Sequence[CollectionQueryPlan]) -> list[NodeWithScore] | None:
    """Extra candidates found another way, e.g. entity-anchored recall (RETRIEVE_SUPPLEMENT).

    All non-None results are collected and concatenated.
    """


@hookspec(firstresult=True)
def eagle_rrf_post_merge(ctx: HookContext, query: str, merged: Sequence[NodeWithScore],
                         supplement: Sequence[NodeWithScore], request: SearchRequest) -> list[NodeWithScore] | None:
    """Adjust the merged list after RRF, e.g. inject supplement hits (RRF_POST_MERGE).

    ``request`` is the search request (``request.mode`` says which pipeline runs).

    Return None to keep the merged list. Stops at the first non-None result.
    """


@hookspec(firstresult=True)
def eagle_rerank_merged(ctx: HookContext, query: str, nodes: Sequence[NodeWithScore], top_k: int,
                        request: SearchRequest) -> list[NodeWithScore] | None:
    """Tier-2 rerank of the merged candidates (RERANK_MERGED).

    ``request`` is the search request: the core's cross-encoder runs in mode ``full`` only.

    Return None to keep the order. Stops at the first non-None result.
    """

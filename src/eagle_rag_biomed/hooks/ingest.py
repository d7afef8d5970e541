"""The biomed plugin's ingest hook implementations. Each abstains (None) outside the ``biomed`` namespace.

- INGEST_ROUTE_SELECTORS: ``"skip"`` for the caption sidecar of an image, else
  :func:`eagle_rag_biomed.parsers.route_for` (None: the core decides).
- PARSE_RECORDS: the multi-record ``biomed_*`` routes (PubMed/PMC sets and other biomed XML, SDF, mol2,
  SMILES lists) record by record through :data:`eagle_rag_biomed.parsers.RECORD_ROUTES`: memory does not
  depend on the file's size, and each bad record is reported on its own while the others are kept.
- PARSE: the ``biomed_*`` routes from the file's bytes through :data:`eagle_rag_biomed.parsers.ROUTES`
  (a multi-record route: its records collected). For both, the file must lie in ``ingest.allowed_roots``
  when they are set, and any parser crash becomes a per-file IngestError.
- CHUNK enrich: :func:`eagle_rag_biomed.ingest.enrich.enrich_chunks` (section, doc type, primary drugs, TDR).
- CLASSIFY_CHUNK / CLASSIFY_VISUAL: :mod:`eagle_rag_biomed.ingest.classify` (an image: its text record, and
  its visual decision when its visual label has a model).
- EMBED_TEXT / EMBED_VISUAL: the domain labels (abstain for core labels). MedCPT is asymmetric: a
  passage asked of ``medcpt-query`` is embedded by ``medcpt-article`` and a query asked of
  ``medcpt-article`` by ``medcpt-query``.
- EMBED_TOKENS: late-interaction (ColBERT) token vectors of text chunks, read back by Tier-2.
- UPSERT_VECTORS for ``eagle_chemical``: writes the vectors and feeds the Morgan fingerprint side index.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from eagle_rag.plugin_api import (
    Chunk,
    ChunkClassification,
    HookContext,
    IngestError,
    ParsedDocument,
    PluginUnavailable,
    TokenVectors,
    hookimpl,
)
from eagle_rag.plugin_api.ingest import ParseResult, Record, RecordFailure, allowed_ingest_roots, is_visual_chunk
from eagle_rag_biomed import parsers
from eagle_rag_biomed.chem.store import store_for
from eagle_rag_biomed.encoders.labels import ALL_ENCODERS
from eagle_rag_biomed.encoders.late_interaction import get_scorer
from eagle_rag_biomed.ingest.classify import BiomedTextClassifier, image_decisions
from eagle_rag_biomed.ingest.enrich import enrich_chunks
from eagle_rag_biomed.names import NAMESPACE, PLUGIN_NAME, Collection
from eagle_rag_biomed.options import biomed_options
from eagle_rag_biomed.rerank.signals import chunk_passage

SKIP = "skip"
PLUGIN_LABELS = frozenset(d.label for d in ALL_ENCODERS)
_MEDCPT_SWAP = {("medcpt-query", "passage"): "medcpt-article", ("medcpt-article", "query"): "medcpt-query"}


def _mine(ctx: HookContext) -> bool:
    return ctx.namespace == NAMESPACE


@hookimpl
def eagle_ingest_route_selector(ctx: HookContext, path: Path) -> str | None:
    """``"skip"`` for an image's caption sidecar, a ``biomed_*`` route, or None."""
    if not _mine(ctx):
        return None
    if parsers.is_image_sidecar(path):
        return SKIP
    return parsers.route_for(path)


def _check_roots(ctx: HookContext, path: Path) -> None:
    roots = allowed_ingest_roots(ctx.settings.ingest.allowed_roots, ctx.settings.data_path)
    if roots:
        parsers.check_allowed_root(path, roots)


def _parser_failed(path: Path, route: str, exc: Exception) -> IngestError:
    return IngestError(f"{path.name}: the {route} parser failed ({type(exc).__name__}: {exc})")


@hookimpl
def eagle_parse_records(ctx: HookContext, path: Path, route: str, kb_name: str) -> (
        Iterator[Record | RecordFailure] | None):
    """Read a multi-record ``biomed_*`` route (PubMed/PMC set or other biomed XML, SDF, mol2, SMILES
    list) record by record through :data:`eagle_rag_biomed.parsers.RECORD_ROUTES`; None for any other
    route. Raises IngestError for an out-of-root file; the iterator raises it for a file that cannot
    be read and for a parser crash, which fails the rest of the file only."""
    if not _mine(ctx) or route not in parsers.RECORD_ROUTES:
        return None
    _check_roots(ctx, path)
    return _guarded(parsers.read_records(route, path, ctx.settings.ingest.max_file_bytes, kb_name), path, route)


def _guarded(records: Iterator[Record | RecordFailure], path: Path, route: str) -> Iterator[Record | RecordFailure]:
    try:
        yield from records
    except IngestError:
        raise
    except Exception as exc:  # a parser bug must fail this file only, with a message
        raise _parser_failed(path, route, exc) from exc


@hookimpl
def eagle_parse(ctx: HookContext, path: Path, route: str, data: bytes, kb_name: str) -> (
        list[ParsedDocument] | ParseResult | None):
    """Parse a ``biomed_*`` route from its bytes; a multi-record one (PubMed/PMC set, SDF, mol2, SMILES
    list) as a ParseResult of its collected records, whose bad records are RecordFailures. Raises
    IngestError for a bad, hostile or out-of-root file."""
    if not _mine(ctx) or route not in parsers.ROUTES:
        return None
    _check_roots(ctx, path)
    try:
        if route in parsers.RECORD_ROUTES:
            return parsers.collect_records(route, path, data, kb_name)
        return parsers.ROUTES[route](path, data, kb_name)
    except IngestError:
        raise
    except Exception as exc:  # a parser bug must fail this file only, with a message
        raise _parser_failed(path, route, exc) from exc


@hookimpl
def eagle_chunk_enrich(ctx: HookContext, document: ParsedDocument, chunks: Sequence[Chunk]) -> (
        list[dict[str, Any]] | None):
    """Section, doc type, primary drugs and TDR profile per chunk."""
    if not _mine(ctx) or not chunks:
        return None
    return enrich_chunks(ctx, document, chunks)


@hookimpl
def eagle_classify_chunk(ctx: HookContext, chunk: Chunk) -> list[ChunkClassification] | None:
    """The :class:`BiomedTextClassifier` decisions (None for mostly-CJK text)."""
    if not _mine(ctx):
        return None
    classifier = BiomedTextClassifier(biomed_options(ctx.settings), ctx.settings.encoders.cjk_ratio_threshold)
    decisions = classifier.classify(chunk)
    if decisions:
        ctx.log_decision("classify_chunk", plugin=PLUGIN_NAME, summary=f"{chunk.id} -> {decisions[0].collection}",
                         rule=decisions[0].rule, collections=[d.collection for d in decisions])
    return decisions


@hookimpl
def eagle_classify_visual(ctx: HookContext, chunk: Chunk) -> list[ChunkClassification] | None:
    """The image's text record and its :class:`BiomedImageClassifier` decision (:func:`image_decisions`)."""
    if not _mine(ctx):
        return None
    decisions = image_decisions(chunk, biomed_options(ctx.settings))
    visual = decisions[-1]
    ctx.log_decision("classify_visual", plugin=PLUGIN_NAME,
                     summary=f"{chunk.id} -> {', '.join(d.collection for d in decisions)}",
                     rule=visual.rule, confidence=visual.confidence, vision=chunk.metadata.get("vision", ""))
    return decisions


@hookimpl
def eagle_embed_text(ctx: HookContext, encoder: str, texts: Sequence[str], kind: str) -> list[list[float]] | None:
    """Embed with a domain text label (MedCPT query/article swapped by ``kind``); None for core labels."""
    if not _mine(ctx) or encoder not in PLUGIN_LABELS:
        return None
    label = _MEDCPT_SWAP.get((encoder, kind), encoder)
    enc = ctx.services.encoders.text_encoder(label)
    vectors = enc.encode_queries(texts) if kind == "query" else enc.encode_passages(texts)
    return [list(v) for v in vectors]


@hookimpl
def eagle_embed_visual(ctx: HookContext, encoder: str, images: Sequence[bytes]) -> list[list[float]] | None:
    """Embed image files with a biomed visual label; None for labels that are not the plugin's."""
    if not _mine(ctx) or encoder not in PLUGIN_LABELS:
        return None
    enc: Any = ctx.services.encoders.get_encoder(encoder)
    return [list(v) for v in enc.encode_images(images)]


@hookimpl
def eagle_embed_tokens(ctx: HookContext, collection: str, chunks: Sequence[Chunk]) -> list[TokenVectors] | None:
    """Late-interaction token vectors of the text chunks of ``collection``, of the passage Tier-2 reads
    (:func:`eagle_rag_biomed.rerank.signals.chunk_passage` with the ``tier2`` options), keyed by
    :meth:`~eagle_rag_biomed.encoders.late_interaction.LateInteractionScorer.passage_key`; None outside
    the biomed namespace."""
    if not _mine(ctx):
        return None
    opts = biomed_options(ctx.settings)
    texts = [c for c in chunks if not is_visual_chunk(c)]
    scorer = get_scorer(opts.tier2.late_interaction_encoder, opts.tier2.late_interaction_tokens)
    try:
        scorer.load()
    except FileNotFoundError as exc:  # Tier-2 falls back without the model too
        raise PluginUnavailable(f"no token vectors written: {exc}") from exc
    passages = [chunk_passage(c, opts.tier2.max_chars, opts.tier2.with_name) for c in texts]
    return [TokenVectors(c.id, c.document_id, scorer.passage_key(p), v)
            for c, p, v in zip(texts, passages, scorer.encode_passages(passages), strict=True)]


@hookimpl
def eagle_upsert_vectors(ctx: HookContext, collection: str, chunks: Sequence[Chunk],
                         vectors: Sequence[Sequence[float]]) -> int | None:
    """For ``eagle_chemical``: write the vectors, then the Morgan fingerprints of the compounds."""
    if not _mine(ctx) or collection != Collection.CHEMICAL:
        return None
    written = int(ctx.services.vectors.upsert(collection, chunks, [list(v) for v in vectors]))
    added = store_for(ctx.services, ctx.settings.data_path).add_chunks(chunks)
    ctx.log_decision("chemical_fingerprints", plugin=PLUGIN_NAME, summary=f"{added} fingerprints", written=written)
    return written


__all__ = ["eagle_chunk_enrich", "eagle_classify_chunk", "eagle_classify_visual",
           "eagle_embed_text", "eagle_embed_tokens", "eagle_embed_visual", "eagle_ingest_route_selector",
           "eagle_parse", "eagle_parse_records", "eagle_upsert_vectors"]

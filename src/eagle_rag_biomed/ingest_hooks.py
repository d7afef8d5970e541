"""The biomed plugin's ingest hook implementations. Each abstains (None) outside the ``biomed`` namespace.

- INGEST_ROUTE_SELECTORS: ``"skip"`` for the caption sidecar of an image, else
  :func:`eagle_rag_biomed.parsers.route_for` (None: the core decides).
- PARSE: the ``biomed_*`` routes through :data:`eagle_rag_biomed.parsers.ROUTES`; the file must lie in
  ``ingest.allowed_roots`` when they are set; any parser crash becomes a per-file IngestError.
- CHUNK enrich: :func:`eagle_rag_biomed.enrich.enrich_chunks` (section, doc type, primary drugs, TDR).
- CLASSIFY_CHUNK / CLASSIFY_VISUAL: :mod:`eagle_rag_biomed.classifiers`.
- EMBED_TEXT / EMBED_VISUAL: the domain labels (abstain for core labels). MedCPT is asymmetric: a
  passage asked of ``medcpt-query`` is embedded by ``medcpt-article`` and a query asked of
  ``medcpt-article`` by ``medcpt-query``.
- UPSERT_VECTORS for ``eagle_chemical``: writes the vectors and feeds the Morgan fingerprint side index.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eagle_rag.plugin_api import (
    Chunk,
    ChunkClassification,
    HookContext,
    IngestError,
    ParsedDocument,
    allowed_ingest_roots,
    hookimpl,
)
from eagle_rag_biomed import parsers
from eagle_rag_biomed.classifiers import BiomedImageClassifier, BiomedTextClassifier
from eagle_rag_biomed.collections import CHEMICAL
from eagle_rag_biomed.compound_search import store_for
from eagle_rag_biomed.encoders import ALL_ENCODERS
from eagle_rag_biomed.enrich import enrich_chunks
from eagle_rag_biomed.options import NAMESPACE, PLUGIN_NAME, biomed_options

SKIP = "skip"
PLUGIN_LABELS = frozenset(d.label for d in ALL_ENCODERS)
_MEDCPT_SWAP = {("medcpt-query", "passage"): "medcpt-article", ("medcpt-article", "query"): "medcpt-query"}
_IMAGE = BiomedImageClassifier()


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


@hookimpl
def eagle_parse(ctx: HookContext, path: Path, route: str, data: bytes, kb_name: str) -> list[ParsedDocument] | None:
    """Parse a ``biomed_*`` route. Raises IngestError for a bad, hostile or out-of-root file."""
    if not _mine(ctx) or route not in parsers.ROUTES:
        return None
    roots = allowed_ingest_roots(ctx.settings.ingest.allowed_roots, ctx.settings.data_path)
    if roots:
        parsers.check_allowed_root(path, roots)
    try:
        return parsers.ROUTES[route](path, data, kb_name)
    except IngestError:
        raise
    except Exception as exc:  # a parser bug must fail this file only, with a message
        raise IngestError(f"{path.name}: the {route} parser failed ({type(exc).__name__}: {exc})") from exc


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
def eagle_classify_visual(ctx: HookContext, chunk: Chunk) -> ChunkClassification | None:
    """The :class:`BiomedImageClassifier` decision."""
    if not _mine(ctx):
        return None
    decision = _IMAGE.classify(chunk)
    ctx.log_decision("classify_visual", plugin=PLUGIN_NAME, summary=f"{chunk.id} -> {decision.collection}",
                     rule=decision.rule, confidence=decision.confidence)
    return decision


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
def eagle_upsert_vectors(ctx: HookContext, collection: str, chunks: Sequence[Chunk],
                         vectors: Sequence[Sequence[float]]) -> int | None:
    """For ``eagle_chemical``: write the vectors, then the Morgan fingerprints of the compounds."""
    if not _mine(ctx) or collection != CHEMICAL:
        return None
    written = int(ctx.services.vectors.upsert(collection, chunks, vectors))
    added = store_for(ctx.services, ctx.settings.data_path).add_chunks(chunks)
    ctx.log_decision("chemical_fingerprints", plugin=PLUGIN_NAME, summary=f"{added} fingerprints", written=written)
    return written


__all__ = ["eagle_chunk_enrich", "eagle_classify_chunk", "eagle_classify_visual",
           "eagle_embed_text", "eagle_embed_visual", "eagle_ingest_route_selector", "eagle_parse",
           "eagle_upsert_vectors"]

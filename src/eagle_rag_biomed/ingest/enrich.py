"""CHUNK enrich of the biomed plugin: section, document type, primary drugs and the TDR profile per chunk.

Enrich only: the returned dicts are merged into ``chunk.metadata``; text, path and ids are never
touched. Keys written for every chunk:

- ``biomed_section``: :func:`eagle_rag_biomed.ingest.sections.detect_section`;
- ``biomed_doc_type``: compound / drug_label / patent / research / other (one value per document);
- ``primary_drugs``: at most 8 lower-cased drug names, comma-joined (a VARCHAR field in Milvus), from
  the file name, the source uri (its folder and file name only: a temporary or home directory must not
  name a drug), the chunk path, the label's drug names (SPL parser), the first 512 characters of the
  text and the document id, in that order, without duplicates;
- ``biomed_text_profile``, ``_rule``, ``_confidence``, ``_tier``: the document's TDR answer;
- image chunks also get ``content_summary`` (their text), ``parent_section`` and ``vision``: the
  visual encoder label that will embed the image, or ``none`` when that label has no model (no
  checkpoint configured): the image is then indexed by its metadata text only.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from pathlib import PurePath
from typing import Any

from eagle_rag.plugin_api import Chunk, EncoderLoadError, HookContext, ParsedDocument, TextEncoder, public_document_id
from eagle_rag.plugin_api.ingest import is_visual_chunk
from eagle_rag_biomed.ingest.classify import NO_VISION, BiomedImageClassifier
from eagle_rag_biomed.ingest.doc_router import DocumentTextProfile, classify_document_text_profile
from eagle_rag_biomed.ingest.sections import detect_doc_type, detect_section
from eagle_rag_biomed.names import PLUGIN_NAME
from eagle_rag_biomed.options import biomed_options

log = logging.getLogger(__name__)
MAX_PRIMARY_DRUGS = 8
TEXT_HEAD = 512
PROFILE_ENCODER = "pubmedbert"
PATH_SEP = " > "
SUMMARY_CHARS = 2000


def drug_names(texts: Iterable[str], limit: int = MAX_PRIMARY_DRUGS) -> list[str]:
    """Drug names found in ``texts`` (ontology ``match_drug_entities``), in order, unique, at most ``limit``."""
    from eagle_rag_biomed.ontology import match_drug_entities

    found: list[str] = []
    for text in texts:
        if not text:
            continue
        for name in match_drug_entities(text):
            if name not in found:
                found.append(name)
                if len(found) >= limit:
                    return found
    return found


def primary_drugs(doc: ParsedDocument, chunk: Chunk) -> list[str]:
    """The primary drugs of one chunk (see the module docstring for the order of sources)."""
    uri = PurePath(doc.source_uri)
    short_uri = f"{uri.parent.name}/{uri.name}" if uri.parent.name else uri.name
    file_name = PurePath(doc.source_uri.split("#", 1)[0]).name
    label_drugs = ", ".join(str(n) for n in doc.metadata.get("drug_names") or ())
    return drug_names([file_name, short_uri, chunk.path.replace(PATH_SEP, "; "), label_drugs,
                       chunk.text[:TEXT_HEAD], public_document_id(doc.document_id)])  # not the kb name


def _profile_encoder(ctx: HookContext) -> TextEncoder | None:
    """The text encoder of the ``pubmedbert`` label, or None when it is unknown or cannot load."""
    encoders = ctx.services.encoders if ctx.services.has("encoders") else None
    if encoders is None:
        return None
    try:
        encoder: TextEncoder = encoders.text_encoder(PROFILE_ENCODER)
        return encoder
    except (ValueError, EncoderLoadError) as exc:
        log.warning("document router: no prototype signal, encoder %r unavailable: %s", PROFILE_ENCODER, exc)
        return None


def document_profile(ctx: HookContext, doc: ParsedDocument, chunks: Sequence[Chunk],
                     sections: Sequence[str]) -> DocumentTextProfile:
    """The TDR answer for ``doc``, audited as a ``doc_profile`` decision."""
    options = biomed_options(ctx.settings).doc_semantic_router
    encoder = None if doc.source_type in ("compound",) or not options.enabled else _profile_encoder(ctx)
    profile = classify_document_text_profile(chunks, sections, options, encoder, doc.source_type)
    ctx.log_decision("doc_profile", plugin=PLUGIN_NAME, summary=f"{doc.document_id}: {profile.profile.value}",
                     rule=profile.rule, tier=profile.tier, confidence=round(profile.confidence, 4),
                     signals={k: round(v, 4) for k, v in profile.signals.items()}, note=profile.note[:200])
    return profile


def vision_of(ctx: HookContext, chunk: Chunk) -> str:
    """The visual encoder label that embeds the image of ``chunk``, or ``NO_VISION`` when it cannot be
    built (no checkpoint configured and no hash stand-in allowed)."""
    label = BiomedImageClassifier().classify(chunk).encoder
    encoders = ctx.services.encoders if ctx.services.has("encoders") else None
    if encoders is None:
        return NO_VISION
    try:
        encoders.get_encoder(label)
    except (ValueError, EncoderLoadError) as exc:
        log.info("image %s indexed by its metadata only: %s", chunk.id, exc)
        return NO_VISION
    return label


def enrich_chunks(ctx: HookContext, doc: ParsedDocument, chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
    """One metadata patch per chunk, in order (see the module docstring)."""
    is_label = doc.source_type == "drug_label" or doc.metadata.get("doc_type") == "drug_label"
    sections = [detect_section(c.path.split(PATH_SEP) if c.path else (), c.text, is_label) for c in chunks]
    head = "\n".join(c.text for c in chunks[:4])[:4000]
    doc_type = detect_doc_type(doc.metadata, doc.source_type, doc.source_uri, sections, head)
    profile = document_profile(ctx, doc, chunks, sections).metadata()
    patches: list[dict[str, Any]] = []
    for chunk, section in zip(chunks, sections, strict=True):
        patch: dict[str, Any] = {"biomed_section": section, "biomed_doc_type": doc_type,
                                 "primary_drugs": ",".join(primary_drugs(doc, chunk)), **profile}
        if is_visual_chunk(chunk):
            patch["content_summary"] = chunk.text[:SUMMARY_CHARS]
            patch["parent_section"] = str(chunk.metadata.get("parent_section") or "")
            patch["vision"] = vision_of(ctx, chunk)
        patches.append(patch)
    return patches

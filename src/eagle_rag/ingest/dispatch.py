"""CLASSIFY and EMBED dispatch of the ingest orchestrator.

- Image chunks (``source_type`` image / dicom / nifti, or ``chunk_type`` image / medical_image) are
  classified by ``eagle_classify_visual`` first; text chunks, and image chunks no plugin claimed, by
  ``eagle_classify_chunk``.
- A classifier may answer one :class:`ChunkClassification` or several (the chunk is then written to
  each collection); of the classifications sharing a non-empty ``exclusive_group`` only the first is
  kept, so a chunk lands in exactly one collection of its group (the others are audited as
  ``ingest_exclusive_skip``).
- Vectors come from ``eagle_embed_text`` (the chunk text) or, for encoder labels of modality
  ``visual``, from ``eagle_embed_visual`` with the bytes of the file at ``metadata["image_path"]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eagle_rag.context import HookContext
from eagle_rag.encoders.errors import EncoderLoadError
from eagle_rag.errors import IngestError
from eagle_rag.ingest.sources import read_source
from eagle_rag.retrieve.safe_hooks import call_hook
from eagle_rag.types import Chunk, ChunkClassification, Modality, public_document_id

VISUAL_SOURCE_TYPES = frozenset({"image", "dicom", "nifti"})
VISUAL_CHUNK_TYPES = frozenset({"image", "medical_image"})
IMAGE_PATH_KEY = "image_path"
VISUAL_BATCH = 8


def is_visual_chunk(chunk: Chunk) -> bool:
    """True for a chunk that stands for an image (by source type or chunk type)."""
    return chunk.source_type in VISUAL_SOURCE_TYPES or chunk.chunk_type in VISUAL_CHUNK_TYPES


def classify(ctx: HookContext, pm: Any, chunk: Chunk) -> list[ChunkClassification]:
    """The classifications of ``chunk`` (CLASSIFY_VISUAL for images, then CLASSIFY_CHUNK).

    Returns an empty list when no plugin answered; exclusive groups are applied (first one wins).
    """
    answer: Any = None
    if is_visual_chunk(chunk):
        answer = call_hook(ctx, pm.hook.eagle_classify_visual, None, chunk=chunk)
    if answer is None:
        answer = call_hook(ctx, pm.hook.eagle_classify_chunk, None, chunk=chunk)
    decisions = [answer] if isinstance(answer, ChunkClassification) else list(answer or [])
    kept: list[ChunkClassification] = []
    groups: set[str] = set()
    for decision in decisions:
        if decision.exclusive_group and decision.exclusive_group in groups:
            ctx.log_decision("ingest_exclusive_skip", summary=f"{chunk.id} not written to {decision.collection}",
                             group=decision.exclusive_group, collection=decision.collection)
            continue
        groups.add(decision.exclusive_group)
        kept.append(decision)
    return kept


def check_decision(ctx: HookContext, chunk: Chunk, decision: ChunkClassification, doc_name: str) -> None:
    """Refuse, for this document only, a decision whose encoder cannot write to the collection.

    Raises IngestError for a dimension mismatch or an unknown name, an encoder that cannot be loaded
    (:class:`EncoderLoadError`), or an image chunk without ``metadata["image_path"]``.
    """
    encoders = ctx.services.encoders
    try:
        encoders.validate_plan(decision.collection, decision.encoder)
        encoders.get_encoder(decision.encoder)
    except (ValueError, EncoderLoadError) as exc:
        raise IngestError(f"{doc_name}: cannot write to {decision.collection!r} with encoder "
                          f"{decision.encoder!r}: {exc}") from exc
    if encoders.spec(decision.encoder).modality is Modality.VISUAL and not chunk.metadata.get(IMAGE_PATH_KEY):
        raise IngestError(f"{doc_name}: chunk {chunk.id} goes to the visual encoder {decision.encoder!r} "
                          f"but has no metadata[{IMAGE_PATH_KEY!r}]")


def embed_input(chunk: Chunk) -> str:
    """The text an encoder sees for a chunk: the document name, when the text lacks it, then the text.

    A name that is only an identifier (a record without a title is named by its id) is left out:
    it carries no meaning and would only add noise to the embedding.
    """
    name = str(chunk.metadata.get("document_name", ""))
    identifiers = {chunk.document_id, public_document_id(chunk.document_id), str(chunk.metadata.get("record_id", ""))}
    if name and name not in identifiers and name not in chunk.text[:300]:
        return f"{name}\n{chunk.text}"
    return chunk.text


def embed(ctx: HookContext, pm: Any, encoder: str, chunks: Sequence[Chunk]) -> list[list[float]]:
    """Vectors for ``chunks`` with the encoder label ``encoder``, in order.

    Raises RuntimeError when no plugin returned one vector per chunk.
    """
    if not chunks:
        return []
    if ctx.services.encoders.spec(encoder).modality is Modality.VISUAL:
        limit = ctx.settings.ingest.max_file_bytes
        out: list[list[float]] = []
        for start in range(0, len(chunks), VISUAL_BATCH):
            part = chunks[start:start + VISUAL_BATCH]
            images = [read_source(Path(str(c.metadata[IMAGE_PATH_KEY])), limit) for c in part]
            vecs = call_hook(ctx, pm.hook.eagle_embed_visual, None, encoder=encoder, images=images)
            if vecs is None or len(vecs) != len(part):
                raise RuntimeError(f"visual encoder {encoder!r} returned no vectors")
            out.extend(vecs)
        return out
    vecs = call_hook(ctx, pm.hook.eagle_embed_text, None, encoder=encoder,
                     texts=[embed_input(c) for c in chunks], kind="passage")
    if vecs is None or len(vecs) != len(chunks):
        raise RuntimeError(f"encoder {encoder!r} returned no vectors")
    return list(vecs)

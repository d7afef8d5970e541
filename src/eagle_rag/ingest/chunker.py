"""Structure-aware chunking: one chunk per section, long sections split at paragraph/sentence ends.

Chunk ids are deterministic: ``sha256(document_id, path, ordinal)[:32]``, so re-ingesting a file
replaces its chunks instead of duplicating them. The ingest orchestrator adds a content-version
suffix (``-`` and the first 12 hex digits of the document's content hash): a changed document gets
new chunk ids, so its new chunks are written next to the old ones and the registry flips which
version searches see (:func:`chunk_version` reads the suffix back).
"""

from __future__ import annotations

import hashlib
import re

from eagle_rag.types import (  # noqa: F401 - the versions are the read path's vocabulary, kept importable here
    VERSION_CHARS,
    Chunk,
    ParsedDocument,
    chunk_version,
    content_version,
)

PATH_SEP = " > "
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s+|(?<=[。！？；])")


def chunk_id(document_id: str, path: str, ordinal: int, version: str = "") -> str:
    """The id of a chunk: 32 hex digits, plus ``-<version>`` when a content version is given."""
    base = hashlib.sha256(f"{document_id}\x1f{path}\x1f{ordinal}".encode()).hexdigest()[:32]
    return f"{base}-{version}" if version else base


def _pieces(text: str) -> list[str]:
    """Paragraphs, and sentences of paragraphs that are themselves too long to keep whole."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        para = para.strip()
        if para:
            out.append(para)
    return out


def split_text(text: str, max_chars: int, overlap: int) -> list[str]:
    """Split ``text`` into pieces of at most about ``max_chars``, at paragraph or sentence ends.

    A single sentence longer than ``max_chars`` is cut hard. Consecutive pieces share up to
    ``overlap`` characters of trailing context.
    """
    if len(text) <= max_chars:
        return [text]
    units: list[str] = []
    for para in _pieces(text):
        if len(para) <= max_chars:
            units.append(para)
            continue
        for sent in (s for s in _SENTENCE_END.split(para) if s.strip()):
            while len(sent) > max_chars:
                units.append(sent[:max_chars])
                sent = sent[max_chars - overlap:] if overlap < max_chars else sent[max_chars:]
            units.append(sent)
    chunks: list[str] = []
    current = ""
    for unit in units:
        candidate = f"{current}\n{unit}" if current else unit
        if len(candidate) <= max_chars or not current:
            current = candidate
            continue
        chunks.append(current)
        tail = current[-overlap:] if overlap else ""
        cut = tail.find(" ")
        tail = tail[cut + 1:] if cut >= 0 else tail
        current = f"{tail}\n{unit}" if tail and len(tail) + len(unit) < max_chars else unit
    if current:
        chunks.append(current)
    return chunks


def chunk_document(doc: ParsedDocument, max_chars: int = 1500, overlap: int = 150,
                   version: str = "") -> list[Chunk]:
    """The chunks of ``doc`` in reading order, with path and deterministic ids (versioned when
    ``version`` is given, see :func:`content_version`)."""
    chunks: list[Chunk] = []
    ordinals: dict[str, int] = {}
    for section in doc.sections:
        path = PATH_SEP.join(section.path)
        for piece in split_text(section.text, max_chars, overlap):
            ordinal = ordinals.get(path, 0)
            ordinals[path] = ordinal + 1
            cid = chunk_id(doc.document_id, path, ordinal, version)
            chunks.append(Chunk(
                id=cid, text=piece, document_id=doc.document_id, kb_name=doc.kb_name, path=path,
                source_type=doc.source_type, source_chunk_id=cid, ordinal=len(chunks),
                metadata={"document_name": doc.name, **dict(doc.metadata)},
            ))
    return chunks

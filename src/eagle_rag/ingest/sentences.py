"""Sentence rows: one vector per sentence of a chunk, kept in a companion collection.

A claim or a question is usually answered by one sentence of an abstract, and a chunk vector
averages that sentence with everything around it. For the collections named in
``ingest.sentence_collections`` every chunk is also split into sentences; each sentence becomes a
row of the companion collection ``<collection>__sentences`` (same schema, same document id, kb
name, tags and metadata as its chunk, plus ``metadata["sentence_of"]``, the chunk id). The encoder
sees the document name before the sentence (:func:`eagle_rag.ingest.dispatch.embed_input`), so a
sentence keeps the topic of its document. At query time the sentence channel
(:func:`eagle_rag.retrieve.channels.sentence_channel`) ranks chunks by their best sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pysbd

from eagle_rag.analysis import cjk_ratio
from eagle_rag.types import (  # noqa: F401 - the names the read path shares, kept importable here
    SENTENCE_ID_SEP,
    SENTENCE_SUFFIX,
    Chunk,
    parent_chunk_id,
    sentence_collection,
)

PARENT_KEY = "sentence_of"
"""The metadata key of a sentence row that names its chunk."""
MIN_SENTENCE_CHARS = 16
"""A piece shorter than this (a section label, a list number) is joined to its neighbour, never dropped."""
MIN_CJK_SENTENCE_CHARS = 6
"""The same for a mostly Chinese piece (a CJK character carries about a word)."""
ABBREVIATIONS = ("et al.", "fig.", "figs.", "i.v.", "i.p.", "i.m.", "s.c.", "p.o.", "e.g.", "i.e.", "approx.", "vs.",
                 "dr.", "prof.", "no.", "ref.", "refs.", "eq.", "cf.", "ca.", "resp.", "incl.", "mg.", "min.")
"""Piece endings that are abbreviations, not sentence ends: a cut after one is undone."""

_SEGMENTER = pysbd.Segmenter(language="en", clean=False, char_span=True)


def _spans(text: str) -> list[tuple[int, int]]:
    """Contiguous ``(start, end)`` spans that cover ``text``: pysbd's sentence boundaries."""
    try:
        cuts = sorted({s.start for s in _SEGMENTER.segment(text)} - {0})
    except Exception:  # noqa: BLE001 - the segmenter's regexes are a third party's: one piece instead
        cuts = []
    bounds = [0, *(c for c in cuts if 0 < c < len(text)), len(text)]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if a < b]


def _too_short(piece: str) -> bool:
    text = piece.strip()
    return len(text) < (MIN_CJK_SENTENCE_CHARS if cjk_ratio(text) >= 0.5 else MIN_SENTENCE_CHARS)


def _ends_with_abbreviation(piece: str) -> bool:
    words = piece.rstrip().lower().rsplit(None, 2)
    tail2, tail1 = " ".join(words[-2:]), words[-1] if words else ""
    return tail1 in ABBREVIATIONS or tail2 in ABBREVIATIONS


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, in order; no text is dropped.

    Boundaries come from pysbd (rule-based: decimals, "et al. 2019", "(see Fig. 2)", Chinese full
    stops); a cut right after a known abbreviation (:data:`ABBREVIATIONS`) is undone, and a piece
    under :data:`MIN_SENTENCE_CHARS` characters (:data:`MIN_CJK_SENTENCE_CHARS` for Chinese) is
    joined to the next one (the last to the previous), so every non-space character of ``text``
    is in exactly one sentence. See docs/architecture.md, "Sentence rows".
    """
    pieces: list[str] = []
    for start, end in _spans(text):
        piece = text[start:end]
        if pieces and (_ends_with_abbreviation(pieces[-1]) or _too_short(pieces[-1])):
            pieces[-1] += piece
        else:
            pieces.append(piece)
    if len(pieces) > 1 and _too_short(pieces[-1]):
        tail = pieces.pop()
        pieces[-1] += tail
    return [p.strip() for p in pieces if p.strip()]


def sentence_chunks(chunks: Sequence[Chunk]) -> list[Chunk]:
    """One row per sentence of each chunk: the chunk's fields with the sentence as text."""
    rows: list[Chunk] = []
    for chunk in chunks:
        for ordinal, sentence in enumerate(split_sentences(chunk.text)):
            rows.append(replace(chunk, id=f"{chunk.id}{SENTENCE_ID_SEP}{ordinal}", text=sentence,
                                metadata={**chunk.metadata, PARENT_KEY: chunk.id}))
    return rows

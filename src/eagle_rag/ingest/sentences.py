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

import re
from collections.abc import Sequence
from dataclasses import replace

from eagle_rag.types import Chunk

SENTENCE_SUFFIX = "__sentences"
"""The companion collection of collection ``c`` is ``c + SENTENCE_SUFFIX``."""
SENTENCE_ID_SEP = "~s"
"""A sentence row's id is ``<chunk id>~s<ordinal>``."""
PARENT_KEY = "sentence_of"
"""The metadata key of a sentence row that names its chunk."""
MIN_SENTENCE_CHARS = 16
"""Pieces shorter than this (section labels, list numbers, stray abbreviations) get no row."""

# A Latin sentence ends at . ! or ? followed by space and an upper-case letter, a digit or an
# opening bracket ("... increased. In mice ..."); a CJK one at a full stop, ! or ? of that script.
_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])|(?<=[。！？])")


def sentence_collection(collection: str) -> str:
    """The name of the companion collection that holds the sentence rows of ``collection``."""
    return f"{collection}{SENTENCE_SUFFIX}"


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (stripped, in order), without pieces under :data:`MIN_SENTENCE_CHARS`."""
    pieces = (p.strip() for p in _BOUNDARY.split(text))
    return [p for p in pieces if len(p) >= MIN_SENTENCE_CHARS]


def sentence_chunks(chunks: Sequence[Chunk]) -> list[Chunk]:
    """One row per sentence of each chunk: the chunk's fields with the sentence as text."""
    rows: list[Chunk] = []
    for chunk in chunks:
        for ordinal, sentence in enumerate(split_sentences(chunk.text)):
            rows.append(replace(chunk, id=f"{chunk.id}{SENTENCE_ID_SEP}{ordinal}", text=sentence,
                                metadata={**chunk.metadata, PARENT_KEY: chunk.id}))
    return rows


def parent_chunk_id(row_id: str) -> str:
    """The chunk id of a sentence row id (an id without the separator is returned unchanged)."""
    head, sep, tail = row_id.rpartition(SENTENCE_ID_SEP)
    return head if sep and tail.isdigit() else row_id

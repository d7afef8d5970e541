"""The compiled vocabulary (package data ``data/vocabulary.json.gz``), read lazily once per process."""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

VOCABULARY_FILE = "vocabulary.json.gz"
NOTICE_FILE = "VOCABULARY_NOTICE.md"


class VocabularyError(ValueError):
    """The compiled vocabulary is missing or malformed."""


class VocabularyEntry(NamedTuple):
    """One compiled entry: canonical name, type, source ids and synonyms (canonical excluded)."""

    canonical: str
    type: str
    ids: dict[str, str]
    synonyms: Sequence[str]
    nomatch: bool = False  # the canonical name is a common word: resolvable only through synonyms


def parse_vocabulary(document: Any) -> tuple[VocabularyEntry, ...]:
    """Entries of a decoded vocabulary document; raises VocabularyError on a wrong shape."""
    if not isinstance(document, dict) or not isinstance(document.get("entries"), list):
        raise VocabularyError("vocabulary: expected an object with an 'entries' list")
    try:
        return tuple(
            VocabularyEntry(item["canonical"], item["type"], item.get("ids") or {}, item.get("synonyms") or (),
                            bool(item.get("nomatch", False)))
            for item in document["entries"]
        )
    except (KeyError, TypeError) as exc:
        raise VocabularyError(f"vocabulary: malformed entry ({exc})") from exc


def load_vocabulary(path: Path | None = None) -> tuple[VocabularyEntry, ...]:
    """Read ``path`` (a ``.json.gz``), or the packaged vocabulary when ``path`` is None.

    A packaged vocabulary that is absent yields an empty tuple (the curated rules still work);
    an explicit path that is absent raises VocabularyError.
    """
    if path is None:
        return packaged_vocabulary()
    if not path.is_file():
        raise VocabularyError(f"vocabulary file not found: {path}")
    return parse_vocabulary(json.loads(gzip.decompress(path.read_bytes())))


@lru_cache(maxsize=1)
def packaged_vocabulary() -> tuple[VocabularyEntry, ...]:
    """The packaged vocabulary, read once per process (empty when the file is not shipped)."""
    resource = resources.files("eagle_rag_biomed").joinpath("data", VOCABULARY_FILE)
    if not resource.is_file():
        return ()
    return parse_vocabulary(json.loads(gzip.decompress(resource.read_bytes())))

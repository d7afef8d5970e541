"""Common English words that collide with biomedical surface forms (``CAT``, ``SET``, ``MET``, ...).

The list ships as package data (``data/common_words.txt``, one ``word<TAB>tier`` per line) and was
selected by ``scripts/make_common_words.py``: every single-word surface form of the vocabulary
sources, lower-cased, kept when its English word frequency (wordfreq Zipf scale) is at least 3.0.
Tier 1: Zipf >= 4.5 (``was``, ``set``, ``water``); tier 2: >= 3.5 (``cat``, ``camp``); tier 3:
>= 3.0 (``ret``, ``gist``). The build drops or keeps vocabulary synonyms by tier; the matcher
guards the ones it keeps.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

DATA_PACKAGE = "eagle_rag_biomed"
COMMON_WORDS_FILE = "common_words.txt"


@dataclass(frozen=True)
class CommonWords:
    """Lower-case common words and their tier (1 most common, 3 least)."""

    tiers: dict[str, int]

    def tier(self, word: str) -> int:
        """The tier of a lower-case word, 0 when it is not a common word."""
        return self.tiers.get(word, 0)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word in self.tiers

    def __len__(self) -> int:
        return len(self.tiers)


def is_abbreviation(surface: str) -> bool:
    """Mixed or upper case beyond the first letter: ``NO``, ``cAMP``, ``HIS`` (not ``Water``)."""
    return surface != surface.lower() and surface != surface.capitalize()


def parse_common_words(text: str) -> CommonWords:
    """Parse ``word<TAB>tier`` lines; blank lines and ``#`` comments are skipped.

    Raises ValueError on a line without a valid tier (1-3).
    """
    tiers: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        word, _, tier = line.partition("\t")
        if tier not in {"1", "2", "3"}:
            raise ValueError(f"common words line {number}: expected 'word<TAB>1|2|3', got {line!r}")
        tiers[word.strip().lower()] = int(tier)
    return CommonWords(tiers)


def load_common_words(path: Path | None = None) -> CommonWords:
    """Read the list from ``path``, or the packaged list when ``path`` is None."""
    if path is not None:
        return parse_common_words(path.read_text(encoding="utf-8"))
    return packaged_common_words()


@lru_cache(maxsize=1)
def packaged_common_words() -> CommonWords:
    """The packaged list, read once per process."""
    text = resources.files(DATA_PACKAGE).joinpath("data", COMMON_WORDS_FILE).read_text(encoding="utf-8")
    return parse_common_words(text)

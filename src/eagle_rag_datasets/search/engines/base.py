"""Engine names and the scoring protocol the ranked engines implement."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from enum import StrEnum
from typing import Protocol

from eagle_rag_datasets.errors import UnknownEngineError

# (field, term, weight): field "text" scores the term in the title and body field groups,
# "char" in the one-character CJK field.
WeightedTerm = tuple[str, str, float]

TITLE_BOOST = 3.0
K1 = 1.2
B = 0.75


class Engine(StrEnum):
    """Search engines. ``index`` is the default."""

    INDEX = "index"
    BM25 = "bm25"
    SUBSTRING = "substring"

    @classmethod
    def from_str(cls, value: str | Engine) -> Engine:
        """Parse an engine name; raises :class:`UnknownEngineError` listing the valid names."""
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            valid = ", ".join(m.value for m in cls)
            raise UnknownEngineError(
                f"unknown engine {value!r}; valid engines: {valid}", {"engine": str(value), "valid": valid}
            ) from None


class ScoringEngine(Protocol):
    """Scores candidate cards (ordinals) for weighted terms: BM25 over the title and body groups,
    ``TITLE_BOOST`` times for the title group. Cards not in ``candidates`` are not scored."""

    def scores(self, terms: Sequence[WeightedTerm], candidates: Collection[int]) -> dict[int, float]: ...

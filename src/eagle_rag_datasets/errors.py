"""Errors of the datasets plugin: every one is a ``ValueError`` with a code, a message and details.

Front ends turn them into the one error shape ``{"error": {"code", "message", "details"}}``
(:meth:`DatasetsError.to_dict`): a 4xx in HTTP, a clean message in the CLI, never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class DatasetsError(ValueError):
    """Base class: bad input to the datasets plugin. ``code`` names the kind of error."""

    code = "datasets_error"

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = dict(details or {})

    def to_dict(self) -> dict[str, Any]:
        """The one error shape: ``{"error": {"code", "message", "details"}}``."""
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}


class InvalidQueryError(DatasetsError):
    """A search or id-check request is malformed (empty query, top_k out of range, bad filter)."""

    code = "invalid_query"


class UnknownEngineError(InvalidQueryError):
    """The engine name is not one of the known engines."""

    code = "unknown_engine"


@dataclass(frozen=True)
class LineError:
    """One validation problem in a card file: 1-based line (or YAML item line), card id, field."""

    line: int
    card_id: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}"
        if self.card_id:
            where += f" (id {self.card_id!r})"
        if self.field:
            where += f", field {self.field!r}"
        return f"{where}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "id": self.card_id, "field": self.field, "message": self.message}


class CardValidationError(DatasetsError):
    """A card file has invalid lines; ``errors`` lists every one (not only the first)."""

    code = "invalid_cards"

    def __init__(self, path: str, errors: list[LineError]) -> None:
        shown = "; ".join(str(e) for e in errors[:5])
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        super().__init__(
            f"{path}: {len(errors)} invalid card line(s): {shown}{more}",
            {"path": path, "errors": [e.to_dict() for e in errors]},
        )
        self.errors = errors

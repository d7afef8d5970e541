"""Errors of the datasets plugin: bad input, each with its own ``code``.

:class:`DatasetsError` is a core :class:`~eagle_rag.errors.InvalidRequest` (so also an
``EagleError`` and a ``ValueError``): callers of the core API catch it with the core errors, and
every front end turns it into the one error shape ``{"error": {"code", "message", "details"}}``
with the plugin's own code (``invalid_query``, ``unknown_engine``, ...): a 400 over HTTP, an error
envelope over MCP, a clean message and exit code 2 in the CLI. See docs/datasets.md, "Errors".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eagle_rag.plugin_api import InvalidRequest


class DatasetsError(InvalidRequest):
    """Base class: bad input to the datasets plugin. ``code`` names the kind of error."""

    code = "datasets_error"
    http_status = 400


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

"""The error types of Eagle-RAG. Front ends turn them into the one error shape.

``{"error": {"code", "message", "details"}}`` with a 4xx for :class:`InvalidRequest` and friends.
"""

from __future__ import annotations

from typing import Any


class EagleError(Exception):
    """Base class: a stable machine-readable ``code``, a message, and details."""

    code = "internal_error"
    http_status = 500

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}

    def to_dict(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}


class InvalidRequest(EagleError, ValueError):
    code = "invalid_request"
    http_status = 400


class NotFound(EagleError, LookupError):
    code = "not_found"
    http_status = 404


class IngestError(EagleError, ValueError):
    """A source file could not be ingested (reported per file; the others go on)."""

    code = "ingest_failed"
    http_status = 422


class StoreUnavailable(EagleError):
    code = "store_unavailable"
    http_status = 503

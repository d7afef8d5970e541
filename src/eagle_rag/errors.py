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


class AmbiguousDocument(EagleError, LookupError):
    """A document id that several kbs hold, asked for without its kb (name the kb to choose one)."""

    code = "ambiguous_document"
    http_status = 409


class IngestError(EagleError, ValueError):
    """A source file could not be ingested (reported per file; the others go on)."""

    code = "ingest_failed"
    http_status = 422


class PluginUnavailable(EagleError):
    """A failure a plugin declares as expected: a model or an optional collection it needs is not there.

    Raised from a hook implementation, it leaves that plugin out of the stage (the next
    implementation answers) and the request carries a warning; any other exception is a bug.
    """

    code = "plugin_unavailable"
    http_status = 503


class StoreUnavailable(EagleError):
    """A store (Milvus, the registry, the lexical index) cannot be reached: HTTP 503 with ``Retry-After``."""

    code = "store_unavailable"
    http_status = 503
    retry_after_s = 5
    """What ``Retry-After`` asks: about the time a restarted store takes to answer again."""

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after_s)}


class ServerUnsupported(EagleError):
    """A setting needs a feature the store's server lacks (``lexical.backend: milvus`` on Milvus 2.3): the
    server is up, but this configuration cannot run on it. HTTP 503; the CLI exits 2 (fix the settings)."""

    code = "server_unsupported"
    http_status = 503
    cli_exit_code = 2


class Unauthorized(EagleError):
    code = "unauthorized"
    http_status = 401


class Forbidden(EagleError):
    code = "forbidden"
    http_status = 403


class PathNotAllowed(Forbidden):
    """A server-side ingest path outside ``ingest.allowed_roots`` (or those roots are unset)."""

    code = "path_not_allowed"


class FolderInUse(EagleError):
    """The data folder is held by a running server or another process; this command needs it to itself."""

    code = "folder_in_use"
    http_status = 409


class PayloadTooLarge(EagleError):
    code = "payload_too_large"
    http_status = 413


class EncodeFailed(EagleError):
    """An encoder could not be loaded or could not embed the query."""

    code = "encode_failed"
    http_status = 503


class CollectionMissing(EagleError):
    code = "collection_missing"
    http_status = 503


class ServerUnreachable(EagleError):
    """No Eagle-RAG server answered at the URL a client was given (after its retries)."""

    code = "server_unreachable"
    http_status = 503


ERROR_CLASSES: dict[str, type[EagleError]] = {
    cls.code: cls for cls in (InvalidRequest, NotFound, AmbiguousDocument, IngestError, StoreUnavailable,
                              Unauthorized, Forbidden, PathNotAllowed, FolderInUse, PayloadTooLarge, EncodeFailed,
                              CollectionMissing, ServerUnreachable)
}
"""Error code -> class, for callers that get the one error shape back (the HTTP client)."""


def from_envelope(body: Any, http_status: int) -> EagleError:
    """The typed error for an error body ``{"error": {"code", "message", "details"}}``.

    A known code gives its class (``not_found`` -> :class:`NotFound`); any other code an
    :class:`EagleError` carrying that code and ``http_status``.
    """
    inner = body.get("error") if isinstance(body, dict) else None
    if not isinstance(inner, dict):
        error = EagleError(f"HTTP {http_status} without the error shape")
        error.code, error.http_status = ("internal_error" if http_status >= 500 else "http_error"), http_status
        return error
    code = str(inner.get("code") or "internal_error")
    message = str(inner.get("message") or f"HTTP {http_status}")
    details = inner.get("details") if isinstance(inner.get("details"), dict) else {}
    cls = ERROR_CLASSES.get(code)
    if cls is not None:
        return cls(message, details)
    error = EagleError(message, details)
    error.code, error.http_status = code, http_status
    return error

"""The one error shape, shared by HTTP and MCP: ``{"error": {"code", "message", "details"}}``.

:func:`envelope_for` maps any exception to ``(http_status, body)``. Known failures get a stable
code; anything else becomes ``internal_error`` with a message that names the request id and
never the exception text or a traceback (those go to the server log only).
"""

from __future__ import annotations

from typing import Any

from eagle_rag.encoders.errors import EncoderLoadError
from eagle_rag.errors import (  # noqa: F401 - the HTTP errors are defined with the others, re-exported here
    CollectionMissing,
    EagleError,
    EncodeFailed,
    Forbidden,
    InvalidRequest,
    PathNotAllowed,
    PayloadTooLarge,
    StoreUnavailable,
    Unauthorized,
)
from eagle_rag.stores.filters import InvalidFilterError
from eagle_rag.stores.milvus import CollectionNotFoundError

KNOWN_ERRORS: tuple[type[Exception], ...] = (EagleError, EncoderLoadError, CollectionNotFoundError, InvalidFilterError)
"""The failures :func:`as_eagle_error` gives a stable code (a front end maps them to the one shape)."""

HTTP_STATUS_CODES: dict[int, str] = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    408: "request_timeout",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "too_many_requests",
    503: "unavailable",
}


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The one error shape."""
    return {"error": {"code": code, "message": message, "details": details or {}}}


def as_eagle_error(exc: BaseException) -> EagleError | None:
    """The typed error for a known failure, or None for an unexpected one."""
    if isinstance(exc, EagleError):
        return exc
    if isinstance(exc, EncoderLoadError):
        return EncodeFailed(str(exc)[:500])
    if isinstance(exc, CollectionNotFoundError):
        return CollectionMissing(str(exc)[:500])
    if isinstance(exc, InvalidFilterError):
        return InvalidRequest(str(exc)[:500], {"field": "filters"})
    store = store_of(exc)
    if store is not None:
        return StoreUnavailable(f"the {store} failed while serving this request; the server log has the details",
                                {"store": store})
    return None


_STORE_DRIVERS = {"pymilvus": "vector store", "milvus_lite": "vector store", "sqlalchemy": "document registry",
                  "sqlite3": "document registry", "psycopg": "document registry", "tantivy": "lexical index"}


def store_of(exc: BaseException) -> str | None:
    """The store whose driver raised ``exc`` (``vector store``, ``document registry``, ``lexical index``),
    or None when a store driver did not raise it."""
    module = type(exc).__module__ or ""
    return _STORE_DRIVERS.get(module.split(".")[0])


def envelope_for(exc: BaseException, request_id: str = "") -> tuple[int, dict[str, Any]]:
    """``(http_status, body)`` for an exception; unexpected ones give a bare 500."""
    known = as_eagle_error(exc)
    if known is not None:
        return known.http_status, known.to_dict()
    where = f" (request id {request_id})" if request_id else ""
    return 500, error_body("internal_error", f"internal error{where}; the server log has the details",
                           {"request_id": request_id} if request_id else {})

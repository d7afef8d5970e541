"""Exception handlers: every error leaves the API in the one shape ``{"error": {...}}``.

FastAPI's validation errors (422), unknown routes (404), wrong methods (405), oversized bodies
(413) and the typed errors of the engine all go through here; unexpected exceptions are caught
by :class:`eagle_rag.api.middleware.RequestContextMiddleware` (500, no traceback).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from eagle_rag.api.envelope import HTTP_STATUS_CODES, envelope_for, error_body
from eagle_rag.encoders.errors import EncoderLoadError
from eagle_rag.errors import EagleError
from eagle_rag.stores.filters import InvalidFilterError
from eagle_rag.stores.milvus import CollectionNotFoundError

MAX_REPORTED_ERRORS = 20


def _loc(loc: Any) -> list[str | int]:
    return [part if isinstance(part, int) else str(part) for part in (loc or ())]


async def _known(request: Request, exc: Exception) -> JSONResponse:
    status, body = envelope_for(exc, getattr(request.state, "request_id", ""))
    return JSONResponse(body, status_code=status)


async def _validation(request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, RequestValidationError):
        return await _known(request, exc)
    errors = [{"loc": _loc(e.get("loc")), "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
              for e in exc.errors()[:MAX_REPORTED_ERRORS]]
    first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
    where = ".".join(str(p) for p in first["loc"])
    more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
    message = f"{where}: {first['msg']}{more}" if where else f"{first['msg']}{more}"
    return JSONResponse(error_body("invalid_request", message, {"errors": errors}), status_code=422)


async def _http(request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, StarletteHTTPException):
        return await _known(request, exc)
    status = exc.status_code
    code = HTTP_STATUS_CODES.get(status, "http_error" if status < 500 else "internal_error")
    message = exc.detail if isinstance(exc.detail, str) and exc.detail else f"HTTP {status}"
    details: dict[str, Any] = {}
    if status == 404 and message == "Not Found":
        message = f"no such endpoint: {request.method} {request.url.path}"
    elif status == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        message = f"method {request.method} is not allowed on {request.url.path}"
        details = {"allowed": [m.strip() for m in allowed.split(",") if m.strip()]}
    elif status >= 500:
        message = f"HTTP {status}"
    return JSONResponse(error_body(code, message, details), status_code=status, headers=exc.headers)


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that put every handled error in the one shape."""
    app.add_exception_handler(EagleError, _known)
    app.add_exception_handler(EncoderLoadError, _known)
    app.add_exception_handler(CollectionNotFoundError, _known)
    app.add_exception_handler(InvalidFilterError, _known)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(StarletteHTTPException, _http)

"""Exception handlers: every error leaves the API in the one shape ``{"error": {...}}``.

FastAPI's validation errors (422), unknown routes (404), wrong methods (405), oversized bodies
(413) and the typed errors of the engine all go through here; unexpected exceptions are caught
by :class:`eagle_rag.api.middleware.RequestContextMiddleware` (500, no traceback). No answer names a
server path (:mod:`eagle_rag.api.redact`); a server-side failure is logged with the request id.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from eagle_rag.errors import EagleError
from eagle_rag.redact import scrub
from eagle_rag.service.envelope import HTTP_STATUS_CODES, KNOWN_ERRORS, as_eagle_error, envelope_for, error_body
from eagle_rag.types import SearchMode

MAX_REPORTED_ERRORS = 20
log = logging.getLogger("eagle_rag.api")


def _loc(loc: Any) -> list[str | int]:
    return [part if isinstance(part, int) else str(part) for part in (loc or ())]


def public_body(request: Request, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with server paths made relative (see :mod:`eagle_rag.api.redact`)."""
    engine = getattr(request.app.state, "engine", None)
    if engine is None:
        return body
    scrubbed: dict[str, Any] = scrub(body, engine.settings.data_path, engine.settings.ingest.allowed_roots)
    return scrubbed


async def _known(request: Request, exc: Exception) -> JSONResponse:
    status, body = envelope_for(exc, getattr(request.state, "request_id", ""))
    if status >= 500:
        log.error("%s %s failed: %s: %s", request.method, request.url.path, type(exc).__name__, exc,
                  exc_info=None if isinstance(exc, EagleError) else exc)
    headers = getattr(as_eagle_error(exc) or exc, "headers", None)  # a driver error known as StoreUnavailable too
    return JSONResponse(public_body(request, body), status_code=status, headers=headers)


_METHODS = ("DELETE", "GET", "HEAD", "PATCH", "POST", "PUT")


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this path (a path may have one route per method), as the schema
    lists them when one of its paths names this one: ``/documents/x/chunks`` is the schema's
    ``/documents/{document_id}/chunks`` (GET), although ``DELETE /documents/{document_id:path}``, whose id
    may hold a '/', would take it too. HEAD goes with GET."""
    routes = request.app.router.routes
    served = [method for method in _METHODS
              if any(route.matches({**request.scope, "method": method})[0] is Match.FULL for route in routes)]
    documented = {method.upper() for template, operations in request.app.openapi().get("paths", {}).items()
                  if re.fullmatch(re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(template)), request.url.path)
                  for method in operations}
    if not documented:
        return served
    return [m for m in served if m in documented or (m == "HEAD" and "GET" in documented)]


async def _validation(request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, RequestValidationError):
        return await _known(request, exc)
    errors = [{"loc": _loc(e.get("loc")), "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
              for e in exc.errors()[:MAX_REPORTED_ERRORS]]
    first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
    where = ".".join(str(p) for p in first["loc"])
    more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
    message = f"{where}: {first['msg']}{more}" if where else f"{first['msg']}{more}"
    details: dict[str, Any] = {"errors": errors}
    loc = first["loc"]
    batch = len(loc) > 2 and loc[:2] == ["body", "searches"] and isinstance(loc[2], int)
    if batch:
        details["index"] = loc[2]  # POST /search/batch: which search, as the service's 400 names it
    engine_words = _engine_wording(exc.errors()[0]) if exc.errors() else None
    if engine_words is not None:  # the words (and the field) Python and the CLI give for the same value
        message = (f"searches[{loc[2]}]: " if batch else "") + engine_words + more
        details["field"] = loc[-1]
    return JSONResponse(error_body("invalid_request", message, details), status_code=422)


_BOOLEAN_FIELDS = frozenset({"explain", "has_image", "exhaustive", "strict", "synonyms"})


def _engine_wording(error: Any) -> str | None:
    """The engine's message for a value pydantic refused where the engine words it itself (one wording in
    Python, over HTTP and on the command line): an unknown ``mode`` lists the valid modes, a flag that is
    not a boolean says so. None for any other error (pydantic's words are kept)."""
    field, kind, value = (_loc(error.get("loc")) or [""])[-1], str(error.get("type", "")), error.get("input")
    if field == "mode" and kind == "enum":
        if not isinstance(value, str):
            return f"mode must be a string, got {type(value).__name__}"
        try:
            SearchMode.from_str(value)
        except ValueError as exc:
            return str(exc)
    if field in _BOOLEAN_FIELDS and kind.startswith("bool"):
        return f"{field} must be true or false, got {type(value).__name__}"
    return None


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
        allowed = _allowed_methods(request) or [m.strip() for m in (exc.headers or {}).get("Allow", "").split(",")
                                                 if m.strip()]
        message = f"method {request.method} is not allowed on {request.url.path}"
        details = {"allowed": allowed}
        return JSONResponse(error_body(code, message, details), status_code=status,
                            headers={**(exc.headers or {}), "Allow": ", ".join(allowed)})
    elif status >= 500:
        message = f"HTTP {status}"
    return JSONResponse(public_body(request, error_body(code, message, details)), status_code=status,
                        headers=exc.headers)


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that put every handled error in the one shape."""
    for known in KNOWN_ERRORS:
        app.add_exception_handler(known, _known)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(StarletteHTTPException, _http)

"""Shared route helpers: the engine of the app, the documented error responses."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Path, Query, Request

from eagle_rag.api.models import ErrorResponse
from eagle_rag.errors import InvalidRequest

if TYPE_CHECKING:
    from eagle_rag.engine import Engine


def _err(description: str) -> dict[str, Any]:
    return {"model": ErrorResponse, "description": description}


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _err("bad input (a value over a configured limit, an invalid name); code invalid_request"),
    401: _err("missing or wrong X-API-Key (only when the server sets api.api_key); code unauthorized"),
    403: _err("a browser request from another site, or naming a host this server is not (send the API key "
              "to call from elsewhere); code cross_site_refused, or host_refused for a Host that names another "
              "server while no API key is set"),
    404: _err("unknown document, kb name or route; code not_found"),
    408: _err("the request body did not arrive within api.body_timeout_s; code request_timeout"),
    413: _err("request body over api.max_body_bytes (api.max_upload_bytes for /ingest)"),
    422: _err("the body does not match the schema; code invalid_request, details.errors lists each problem"),
    429: {**_err("every mode=full slot and queue place is taken (api.max_concurrent_rerank, api.rerank_queue); "
                 "code too_many_requests"),
          "headers": {"Retry-After": {"description": "seconds to wait before trying again",
                                      "schema": {"type": "integer"}}}},
    500: _err("unexpected server error; code internal_error, never a traceback"),
    503: _err("a store or an encoder is unavailable; code store_unavailable, encode_failed, "
              "collection_missing"),
}


KB_PATTERN = r"^[A-Za-z0-9_.\-]{1,64}$"
KbName = Annotated[str, Path(pattern=KB_PATTERN, description="the knowledge base of the document")]
KbChoice = Annotated[str | None, Query(pattern=KB_PATTERN, description="the kb of the document (needed when "
                                                                      "several kbs hold the id)")]
ALIAS_RESPONSES: dict[int | str, dict[str, Any]] = {
    **ERROR_RESPONSES,
    409: {"model": ErrorResponse,
          "description": "several kbs hold this document id: use /kbs/{kb}/documents/{id} or kb_name; code "
                         "ambiguous_document"},
}


def get_engine(request: Request) -> Engine:
    """The engine the app serves (set by :func:`eagle_rag.api.create_app`)."""
    engine: Engine = request.app.state.engine
    return engine


def get_write_lock(request: Request) -> threading.Lock:
    """Serialises ingest and delete: one writer at a time (the lexical index has one writer)."""
    lock: threading.Lock = request.app.state.write_lock
    return lock


def request_id(request: Request) -> str:
    return str(getattr(request.state, "request_id", ""))


def check_plain_id(value: str, field: str) -> str:
    """Refuse an id with a NUL byte or over 256 characters (InvalidRequest)."""
    if not value or len(value) > 256 or "\x00" in value:
        raise InvalidRequest(f"invalid {field} {value[:80]!r}", {"field": field})
    return value

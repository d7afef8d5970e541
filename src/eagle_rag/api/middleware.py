"""Pure ASGI middleware: request context (id, access log, metrics, catch-all 500), body limits and the
body-read timeout.

Pure ASGI (not ``BaseHTTPMiddleware``) so a streamed upload is counted as it arrives and an
unexpected exception is turned into the one error shape before Starlette's own 500 page.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from eagle_rag.api.metrics import HttpMetrics
from eagle_rag.service.envelope import as_eagle_error, envelope_for, error_body
from eagle_rag.service.logs import REQUEST_ID_HEADER, new_request_id, request_id_var

log = logging.getLogger("eagle_rag.api")


def route_template(scope: Scope) -> str:
    """The matched route's path template (``/documents/{document_id}``), or ``<unmatched>``."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else "<unmatched>"


class RequestContextMiddleware:
    """Outermost layer: X-Request-ID in and out, one access-log line, HTTP metrics, catch-all 500."""

    def __init__(self, app: ASGIApp, metrics: HttpMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = new_request_id(Headers(scope=scope).get(REQUEST_ID_HEADER))
        token = request_id_var.set(rid)
        scope.setdefault("state", {})["request_id"] = rid
        state: dict[str, Any] = {"status": 500, "started": False}

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                state["started"] = True
                state["status"] = message["status"]
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = rid
            await send(message)

        started = time.perf_counter()
        try:
            await self.app(scope, receive, send_with_id)
        except Exception as exc:  # noqa: BLE001 - the catch-all: one error shape, no traceback
            log.exception("unhandled error serving %s %s", scope.get("method"), scope.get("path"))
            if not state["started"]:
                status, body = envelope_for(exc, rid)
                headers = getattr(as_eagle_error(exc), "headers", None)  # Retry-After of a store that is down
                await JSONResponse(body, status_code=status, headers=headers)(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            route = route_template(scope)
            self.metrics.observe(scope.get("method", ""), route, int(state["status"]), seconds)
            log.info("%s %s -> %s", scope.get("method"), scope.get("path"), state["status"],
                     extra={"method": scope.get("method"), "path": scope.get("path"), "route": route,
                            "status": state["status"], "duration_ms": round(seconds * 1000, 2)})
            request_id_var.reset(token)


class BodyLimitMiddleware:
    """Refuses bodies over the limit: by Content-Length up front, and by counting what is streamed.

    Paths in ``upload_paths`` get ``max_upload`` bytes, every other path ``max_body``. A body that
    grows past the limit while streaming raises an HTTP 413 that the error handlers shape. A client
    that stops sending its body for ``body_timeout_s`` (it declared 100 bytes and sent 13) gets a 408
    and the connection is closed, instead of holding a worker.
    """

    def __init__(self, app: ASGIApp, max_body: int, max_upload: int,
                 upload_paths: Sequence[str] = ("/ingest",), body_timeout_s: float = 10.0,
                 max_batch: int | None = None) -> None:
        self.app = app
        self.max_batch = max_batch
        self.max_body = max_body
        self.max_upload = max_upload
        self.upload_paths = frozenset(upload_paths)
        self.body_timeout_s = body_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_upload if scope.get("path") in self.upload_paths else self.max_body
        batch = self.max_batch if scope.get("path") == BATCH_PATH else None
        declared = Headers(scope=scope).get("content-length")
        if declared is not None:
            if not declared.isdigit():
                await JSONResponse(error_body("invalid_request", "invalid Content-Length header"),
                                   status_code=400)(scope, receive, send)
                return
            if int(declared) > limit:
                await JSONResponse(_too_large(limit, batch), status_code=413)(scope, receive, send)
                return
        received = 0

        async def counted() -> Message:
            nonlocal received
            try:
                message = await asyncio.wait_for(receive(), self.body_timeout_s)
            except TimeoutError:
                raise HTTPException(408, detail=f"the request body did not arrive within {self.body_timeout_s} s",
                                    headers={"Connection": "close"}) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise HTTPException(413, detail=_too_large(limit, batch)["error"]["message"])
            return message

        await self.app(scope, counted, send)


BATCH_PATH = "/search/batch"


def _too_large(limit: int, max_batch: int | None = None) -> dict[str, Any]:
    """The 413 body; on ``POST /search/batch`` it also names the item limit (``api.max_batch``), which a batch
    this large often breaks too (its items are not counted before the body is read)."""
    if max_batch is None:
        return error_body("payload_too_large", f"the request body is over the limit of {limit} bytes",
                          {"limit": limit})
    return error_body("payload_too_large", f"the request body is over the limit of {limit} bytes "
                      f"(api.max_body_bytes); a batch holds at most {max_batch} searches (api.max_batch), "
                      "whose bodies together must stay under that limit", {"limit": limit, "max_batch": max_batch})

"""Structured logs with a request id.

The id of the current request lives in a context variable: Starlette copies the context into the
threadpool that runs the engine, so every log line written while serving a request (by the API,
the engine or a plugin) carries it when :class:`RequestIdFilter` is installed.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import time
import uuid
from typing import Any

REQUEST_ID_HEADER = "X-Request-ID"
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
_VALID_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")
request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("eagle_rag_request_id", default="")

# attributes every LogRecord has; anything else was passed through ``extra=`` and is logged as a field
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message", "asctime", "request_id", "color_message"}
OWN_LOGGERS = ("eagle_rag", "eagle_rag_datasets", "eagle_rag_biomed", "uvicorn")


def new_request_id(incoming: str | None) -> str:
    """The caller's id when it is short and plain (letters, digits, ``._:-``), else a fresh one."""
    if incoming and _VALID_ID.match(incoming):
        return incoming
    return uuid.uuid4().hex


def current_request_id() -> str:
    """The id of the request being served, or "" outside a request."""
    return request_id_var.get()


class RequestIdFilter(logging.Filter):
    """Adds ``record.request_id`` (the current request's id, or "")."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", ""):
            record.request_id = request_id_var.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, message, request_id, then any ``extra`` fields."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "") or request_id_var.get(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def configure_logging(fmt: str = "json", level: str = "INFO") -> None:
    """Route the root logger to stderr as JSON lines (``fmt="json"``) or plain text, with request ids.

    Eagle-RAG's own loggers (and uvicorn's) log at ``level``; other libraries at WARNING and above.
    """
    handler = logging.StreamHandler()
    handler.addFilter(RequestIdFilter())
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    for name in OWN_LOGGERS:
        logging.getLogger(name).setLevel(level.upper())

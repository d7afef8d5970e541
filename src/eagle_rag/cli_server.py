"""``eagle-rag serve`` (HTTP API) and ``eagle-rag mcp`` (MCP server): the long-running front ends.

``cli.py`` adds them with :func:`register_server_commands`.
"""

from __future__ import annotations

import logging
import os
from typing import Annotated

import typer

log = logging.getLogger("eagle_rag.api")
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def serve(
    host: Annotated[str | None, typer.Option(help="bind address (default: api.host, 127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="port (default: api.port, 8000)")] = None,
) -> None:
    """Serve the HTTP API (FastAPI + uvicorn): POST /search, /ingest, /documents/{id}, /health, /metrics."""
    import uvicorn

    from eagle_rag.api import create_app
    from eagle_rag.api.logs import configure_logging
    from eagle_rag.engine import Engine
    from eagle_rag.settings import load_settings

    settings = load_settings()
    configure_logging(settings.api.log_format, os.environ.get("EAGLE_RAG_LOG_LEVEL", "INFO"))
    bind_host, bind_port = host or settings.api.host, port or settings.api.port
    if bind_host not in _LOOPBACK and not settings.api.api_key.get_secret_value():
        log.warning("serving on %s without an API key: set EAGLE_RAG_API__API_KEY for deployments", bind_host)
    with Engine(settings) as engine:
        app = create_app(engine)
        log.info("Eagle-RAG API on http://%s:%s (data dir %s)", bind_host, bind_port, settings.data_path)
        uvicorn.run(app, host=bind_host, port=bind_port, access_log=False, log_config=None)


def mcp(
    transport: Annotated[str | None, typer.Option(help="stdio | http (default: mcp.transport)")] = None,
    host: Annotated[str | None, typer.Option(help="http bind address (default: mcp.host)")] = None,
    port: Annotated[int | None, typer.Option(help="http port (default: mcp.port, 8765)")] = None,
) -> None:
    """Serve the read-only MCP tools (core_search, core_get_document, plugins' tools) over stdio or HTTP."""
    from eagle_rag.engine import Engine
    from eagle_rag.errors import InvalidRequest
    from eagle_rag.mcp_server import run
    from eagle_rag.settings import load_settings

    settings = load_settings()
    chosen = transport or settings.mcp.transport
    if chosen not in ("stdio", "http"):
        raise InvalidRequest(f"unknown transport {chosen!r}; valid values: stdio, http",
                             {"field": "transport"})
    with Engine(settings) as engine:
        run(engine, chosen, host or settings.mcp.host, port or settings.mcp.port)


def register_server_commands(app: typer.Typer) -> None:
    """Add ``serve`` and ``mcp`` to the ``eagle-rag`` command line."""
    app.command("serve")(serve)
    app.command("mcp")(mcp)

"""``eagle-rag serve`` (HTTP API) and ``eagle-rag mcp`` (MCP server): the long-running front ends.

``cli/app.py`` adds them with :func:`register_server_commands`. The command line starts each server by
its name in the ``eagle_rag.servers`` entry points (pyproject.toml: ``http`` is the HTTP API's app
factory, ``mcp`` the MCP server's runner) and imports neither package: a front end never imports another.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import socket
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import typer

from eagle_rag.cli.options import ApiKey, Local, Url

log = logging.getLogger("eagle_rag.api")
SERVERS = "eagle_rag.servers"
"""The entry point group of the servers ``serve`` and ``mcp`` start."""


def registered_server(name: str) -> Callable[..., Any]:
    """The object registered as ``name`` in the ``eagle_rag.servers`` entry points (``http``: the HTTP
    API's ``create_app(engine)``; ``mcp``: the MCP server's ``serve(settings, ...)``). Raises SettingsError
    when the installed package does not register it (a source tree used without ``pip install -e .``)."""
    from importlib.metadata import entry_points

    from eagle_rag.settings import SettingsError

    found = entry_points(group=SERVERS, name=name)
    if not found:
        raise SettingsError(f"no {name!r} server is registered (entry points {SERVERS}): install eagle-rag with "
                            "pip (pip install -e . in a source tree)")
    loaded: Callable[..., Any] = next(iter(found)).load()
    return loaded


def _owning_server_class() -> type:
    import uvicorn

    class OwningServer(uvicorn.Server):
        """A uvicorn server that runs ``on_exit`` after its graceful shutdown and before uvicorn re-raises
        SIGTERM / SIGINT (which would end the process before any ``finally`` of the caller)."""

        def __init__(self, config: uvicorn.Config, on_exit: Callable[[], None]) -> None:
            super().__init__(config)
            self._on_exit = on_exit

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            with super().capture_signals():
                try:
                    yield
                finally:
                    self._on_exit()

    return OwningServer


def owning_server(config: Any, on_exit: Callable[[], None]) -> Any:
    """A uvicorn server for ``config`` that calls ``on_exit`` when it stops (uvicorn is imported lazily)."""
    return _owning_server_class()(config, on_exit)


def bound_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` as uvicorn binds one (``SO_REUSEADDR``; IPv6 for a host with
    a colon), for the server to listen on. Raises SettingsError (one line) when the port is taken or the
    address cannot be bound, so ``serve`` stops before it loads anything."""
    from eagle_rag.settings import SettingsError

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        if exc.errno == errno.EADDRINUSE:
            raise SettingsError(f"port {port} on {host} is in use ({reason}): stop the process that listens "
                                "there or choose another port (--port, api.port)") from exc
        raise SettingsError(f"cannot listen on port {port} of {host} ({reason}): choose another address or "
                            "port (--host, --port; api.host, api.port)") from exc
    return sock


def serve(
    host: Annotated[str | None, typer.Option(help="bind address (default: api.host, 127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="port (default: api.port, 8000)")] = None,
    insecure_no_key: Annotated[bool, typer.Option("--insecure-no-key", help="serve on a non-loopback address "
                                                                          "without api.api_key")] = False,
) -> None:
    """Serve the HTTP API (FastAPI + uvicorn): POST /search, /ingest, /documents/{id}, /health, /metrics.

    A host other than a loopback address (``--host 0.0.0.0``) needs ``api.api_key``, or
    ``--insecure-no-key`` (refused otherwise, exit 2). A port that is in use, or an address that cannot
    be bound, is refused in one line with exit 2 before anything is loaded.

    Before it reports ready it loads and runs every model the profile's queries use
    (``Engine.warm_up``; ``api.warm_up: false`` skips it). The server owns the data folder: it writes
    ``<data_dir>/server.json`` (URL, PID, version, start time), and every other command on the folder
    goes through it until it stops (the file is removed on a clean exit, SIGTERM and SIGINT included; a
    file left by a killed server is ignored)."""
    import uvicorn

    from eagle_rag.engine import Engine
    from eagle_rag.errors import InvalidRequest
    from eagle_rag.service.backend import ensure_folder_free, remove_server_file, server_url, write_server_file
    from eagle_rag.service.guard import exposure_refusal, is_loopback
    from eagle_rag.service.health import mix_refusal
    from eagle_rag.service.logs import configure_logging
    from eagle_rag.settings import SettingsError, load_settings

    settings = load_settings()
    configure_logging(settings.api.log_format, os.environ.get("EAGLE_RAG_LOG_LEVEL", "INFO"))
    bind_host, bind_port = host or settings.api.host, port or settings.api.port
    refusal = exposure_refusal(bind_host, settings.api.api_key.get_secret_value(), insecure_no_key)
    if refusal:
        raise InvalidRequest(refusal, {"field": "host"})
    settings = settings.model_copy(update={"api": settings.api.model_copy(update={"host": bind_host,
                                                                                  "port": bind_port})})
    mixed = mix_refusal(settings)
    if mixed:
        raise SettingsError(mixed)
    ensure_folder_free(settings.data_path, settings.milvus_uri, "eagle-rag serve")
    sock = bound_socket(bind_host, bind_port)  # before the models load and server.json is written
    if not is_loopback(bind_host) and not settings.api.api_key.get_secret_value():
        log.warning("serving on %s without an API key (--insecure-no-key)", bind_host)
    with sock, Engine(settings) as engine:
        app = registered_server("http")(engine)
        if engine.vectors.is_lite:
            engine.vectors.client  # noqa: B018 - take the Milvus Lite lock before announcing the server
        engine.check_servers()  # a Milvus server too old for the settings: one line, exit 2
        if settings.api.warm_up:
            engine.warm_up()  # the first query then costs what the hundredth does
        info = write_server_file(settings.data_path, server_url(bind_host, bind_port))
        log.info("Eagle-RAG API on %s (data dir %s, PID %s)", info.url, settings.data_path, info.pid)
        config = uvicorn.Config(app, host=bind_host, port=bind_port, access_log=False, log_config=None)
        try:
            owning_server(config, lambda: remove_server_file(settings.data_path)).run(sockets=[sock])
        finally:
            remove_server_file(settings.data_path)


def mcp(
    transport: Annotated[str | None, typer.Option(help="stdio | http (default: mcp.transport)")] = None,
    host: Annotated[str | None, typer.Option(help="http bind address (default: mcp.host)")] = None,
    port: Annotated[int | None, typer.Option(help="http port (default: mcp.port, 8765)")] = None,
    url: Url = None, api_key: ApiKey = None, local: Local = False,
    insecure_no_key: Annotated[bool, typer.Option("--insecure-no-key", help="serve HTTP on a non-loopback "
                                                                          "address without api.api_key")] = False,
) -> None:
    """Serve the read-only MCP tools (core_search, core_get_document, plugins' tools) over stdio or HTTP.

    When a server owns the data folder (or with --url), every tool is answered by that server."""
    from eagle_rag.settings import load_settings

    registered_server("mcp")(load_settings(), transport, host, port, url=url, api_key=api_key, local=local,
              insecure_no_key=insecure_no_key)


def register_server_commands(app: typer.Typer) -> None:
    """Add ``serve`` and ``mcp`` to the ``eagle-rag`` command line."""
    app.command("serve")(serve)
    app.command("mcp")(mcp)

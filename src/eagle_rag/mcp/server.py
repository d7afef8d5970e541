"""The MCP server (official ``mcp`` SDK, low-level ``Server``): stdio and streamable HTTP.

Serves a :class:`~eagle_rag.service.tools.ToolSource`: the tools of a local engine
(:func:`eagle_rag.service.core_tools.build_tool_registry`) or, while an ``eagle-rag serve`` owns the data
folder (or with a URL), the server's tools over its HTTP API (:mod:`eagle_rag.service.remote_tools`): the
:class:`~eagle_rag.service.backend.Backend`'s ``tool_source()`` either way. Every
tool is read-only (annotated so), runs in a worker thread, and answers a JSON object; failures
answer the one error shape with ``isError`` set. Run with ``eagle-rag mcp`` or
``python -m eagle_rag.mcp.server [--transport stdio|http] [--host H] [--port P] [--url URL | --local]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings

from eagle_rag import __version__
from eagle_rag.service.tools import ToolSource

if TYPE_CHECKING:
    from eagle_rag.service.backend import Target
    from eagle_rag.settings import ApiSettings, Settings

log = logging.getLogger("eagle_rag.mcp")
MCP_PATH = "/mcp"
TRANSPORTS = ("stdio", "http")
INSTRUCTIONS = ("Eagle-RAG finds evidence in indexed biomedical documents; it never writes or generates. "
                "Start with core_search (mode full for the best order, explain for the score trail). Each result "
                "says whether the list is complete (`exhaustive`) and, when empty, why; `guidance` says it in one "
                "sentence: when it says the list is complete, stop searching for that query.")
_READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                   open_world_hint=False)


def _result(payload: dict[str, Any]) -> types.CallToolResult:
    text = json.dumps(payload, ensure_ascii=False, default=str)
    structured = json.loads(text)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content=structured, is_error="error" in payload)


def build_server(tools: ToolSource) -> Server[Any]:
    """A low-level MCP server exposing ``tools``; its instructions add the source's ``notice`` when it has
    one (a server whose profile differs from this process's: :func:`~eagle_rag.service.remote_tools.profile_notice`)."""
    listed = [types.Tool(name=t.name, title=t.title or None, description=t.description,
                         input_schema=dict(t.input_schema), annotations=_READ_ONLY) for t in tools.tools()]

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        payload = await anyio.to_thread.run_sync(tools.call, params.name, params.arguments or {})
        return _result(payload)

    notice = str(getattr(tools, "notice", "") or "")
    instructions = f"{INSTRUCTIONS} Note: {notice}." if notice else INSTRUCTIONS
    return Server("eagle-rag", version=__version__, instructions=instructions, on_list_tools=list_tools,
                  on_call_tool=call_tool)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client over this process's stdin/stdout until it disconnects."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_http(server: Server[Any], host: str, port: int, api: ApiSettings | None = None) -> None:
    """Serve streamable HTTP at ``http://HOST:PORT/mcp`` (blocks), behind the API's request guard: with
    ``api.api_key`` set every request needs the ``X-API-Key`` header, and cross-site browser requests
    are refused."""
    import uvicorn

    from eagle_rag.service.guard import GuardPolicy, RequestGuard
    from eagle_rag.settings import ApiSettings

    cfg = api or ApiSettings()
    # the guard below checks Host and Origin with the API's rules (and lets a request with the key pass),
    # so the SDK's own rebinding check, which knows neither the key nor api.allowed_hosts, stays off
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host,
                                     transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    policy = GuardPolicy.build(cfg.api_key.get_secret_value(), [*cfg.cors_origins, *cfg.allowed_origins],
                               cfg.allowed_hosts, host, mcp=True)
    uvicorn.run(RequestGuard(app, policy), host=host, port=port, log_level="warning")


def run(tools: ToolSource, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765,
        api: ApiSettings | None = None) -> None:
    """Serve ``tools`` over ``transport`` (``stdio``, or ``http`` guarded by ``api``) until stopped."""
    server = build_server(tools)
    if transport == "stdio":
        anyio.run(serve_stdio, server)
    elif transport == "http":
        serve_http(server, host, port, api)
    else:
        raise ValueError(f"unknown MCP transport {transport!r}; valid values: {', '.join(TRANSPORTS)}")


@contextmanager
def open_tools(settings: Settings, target: Target) -> Iterator[ToolSource]:
    """The tools of ``target``'s :class:`~eagle_rag.service.backend.Backend`: a server's over HTTP (with a
    notice, also logged, when its profile is not this process's:
    :func:`~eagle_rag.service.remote_tools.profile_notice`), else a local engine's on the data folder
    (which must be free: raises FolderInUse otherwise). Closed on exit."""
    from eagle_rag.service.backend import open_backend

    with open_backend(settings, target, "eagle-rag mcp") as backend:
        tools = backend.tool_source()
        notice = str(getattr(tools, "notice", "") or "")
        if notice:
            log.warning("eagle-rag mcp: %s", notice)
        yield tools


def serve(settings: Settings, transport: str | None = None, host: str | None = None, port: int | None = None,
          url: str | None = None, api_key: str | None = None, local: bool = False,
          insecure_no_key: bool = False) -> None:
    """``eagle-rag mcp``: serve the tools of the folder's server (or ``url``), else of a local engine.

    Raises InvalidRequest for an unknown transport, ``local`` with ``url``, or HTTP on an address
    other than a loopback one without ``api.api_key`` (unless ``insecure_no_key``)."""
    from eagle_rag.errors import InvalidRequest
    from eagle_rag.service.backend import resolve_target
    from eagle_rag.service.guard import exposure_refusal

    cfg = settings.mcp
    chosen = transport or cfg.transport
    if chosen not in TRANSPORTS:
        raise InvalidRequest(f"unknown transport {chosen!r}; valid values: {', '.join(TRANSPORTS)}",
                             {"field": "transport"})
    bind_host = host or cfg.host
    refusal = exposure_refusal(bind_host, settings.api.api_key.get_secret_value(), insecure_no_key)
    if chosen == "http" and refusal:
        raise InvalidRequest(refusal, {"field": "host"})
    target = resolve_target(settings, url, api_key, local)
    if target.url is not None:
        log.info("MCP tools answered by %s", target.describe())
    with open_tools(settings, target) as tools:
        run(tools, chosen, bind_host, port or cfg.port, settings.api)


def main(argv: list[str] | None = None) -> None:
    """``python -m eagle_rag.mcp.server``: settings from the environment, logs to stderr."""
    from eagle_rag.settings import load_settings

    parser = argparse.ArgumentParser(prog="eagle_rag.mcp.server", description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=TRANSPORTS, default=None)
    parser.add_argument("--host", default=None)
    parser.add_argument("--port", type=int, default=None)
    parser.add_argument("--url", default=None, help="answer through this Eagle-RAG server")
    parser.add_argument("--api-key", default=None, help="X-API-Key for --url")
    parser.add_argument("--local", action="store_true", help="open the data folder directly")
    parser.add_argument("--insecure-no-key", action="store_true",
                        help="serve HTTP on a non-loopback address without api.api_key")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    from eagle_rag.errors import EagleError

    try:
        serve(load_settings(), args.transport, args.host, args.port, args.url, args.api_key, args.local,
              args.insecure_no_key)
    except EagleError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":  # pragma: no cover
    main()

"""The MCP server (official ``mcp`` SDK, low-level ``Server``): stdio and streamable HTTP.

Serves the tools of :func:`eagle_rag.mcp_tools.build_tool_registry`. Every tool is read-only
(annotated so), runs the engine in a worker thread, and answers a JSON object; failures answer
the one error shape with ``isError`` set. Run with ``eagle-rag mcp`` or
``python -m eagle_rag.mcp_server [--transport stdio|http] [--host H] [--port P]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from eagle_rag import __version__
from eagle_rag.mcp_tools import ToolRegistry, build_tool_registry

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

log = logging.getLogger("eagle_rag.mcp")
MCP_PATH = "/mcp"
INSTRUCTIONS = ("Eagle-RAG finds evidence in indexed biomedical documents; it never writes or generates. "
                "Start with core_search. Each result says whether the list is complete (`exhaustive`) and, "
                "when empty, why: when it says the list is complete, stop searching for that query.")
_READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                   open_world_hint=False)


def _result(payload: dict[str, Any]) -> types.CallToolResult:
    text = json.dumps(payload, ensure_ascii=False, default=str)
    structured = json.loads(text)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content=structured, is_error="error" in payload)


def build_server(engine: Engine, registry: ToolRegistry | None = None) -> Server[Any]:
    """A low-level MCP server exposing ``registry`` (default: the engine's tool registry)."""
    tools = registry if registry is not None else build_tool_registry(engine)
    listed = [types.Tool(name=t.name, title=t.title or None, description=t.description,
                         input_schema=dict(t.input_schema), annotations=_READ_ONLY) for t in tools.tools()]

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        payload = await anyio.to_thread.run_sync(tools.call, params.name, params.arguments or {})
        return _result(payload)

    return Server("eagle-rag", version=__version__, instructions=INSTRUCTIONS, on_list_tools=list_tools,
                  on_call_tool=call_tool)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client over this process's stdin/stdout until it disconnects."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_http(server: Server[Any], host: str, port: int) -> None:
    """Serve streamable HTTP at ``http://HOST:PORT/mcp`` (blocks)."""
    import uvicorn

    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def run(engine: Engine, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765) -> None:
    """Serve ``engine``'s tools over ``transport`` (``stdio`` or ``http``) until stopped."""
    server = build_server(engine)
    if transport == "stdio":
        anyio.run(serve_stdio, server)
    elif transport == "http":
        serve_http(server, host, port)
    else:
        raise ValueError(f"unknown MCP transport {transport!r}; valid values: stdio, http")


def main(argv: list[str] | None = None) -> None:
    """``python -m eagle_rag.mcp_server``: settings from the environment, logs to stderr."""
    from eagle_rag.engine import Engine
    from eagle_rag.settings import load_settings

    parser = argparse.ArgumentParser(prog="eagle_rag.mcp_server", description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["stdio", "http"], default=None)
    parser.add_argument("--host", default=None)
    parser.add_argument("--port", type=int, default=None)
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    settings = load_settings()
    cfg = settings.mcp
    with Engine(settings) as engine:
        run(engine, args.transport or cfg.transport, args.host or cfg.host, args.port or cfg.port)


if __name__ == "__main__":  # pragma: no cover
    main()

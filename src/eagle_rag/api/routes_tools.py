"""``GET /tools`` and ``POST /tools/{name}``: the server's read-only MCP tools over its HTTP API.

``eagle-rag mcp`` uses them while a server owns the data folder (:mod:`eagle_rag.service.remote_tools`), so
an agent's MCP client and a person's HTTP client share one index. The tools are the ones
:func:`eagle_rag.service.core_tools.build_tool_registry` builds for the server's engine; a tool's error
envelope comes back with a 4xx for input the tool cannot use and a 5xx for the server's failures.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Body, Request
from fastapi.responses import JSONResponse

from eagle_rag.api.deps import ERROR_RESPONSES, check_plain_id
from eagle_rag.api.overload import full_search_slot
from eagle_rag.errors import ERROR_CLASSES, EagleError
from eagle_rag.types import SearchMode

if TYPE_CHECKING:
    from eagle_rag.service.tools import ToolRegistry

router = APIRouter(tags=["tools"])
_build_lock = threading.Lock()
TOOL_ERROR_STATUS = {"encode_failed": 422, "search_failed": 500}
"""HTTP status of a tool's error code where it differs from the core's (``encode_failed`` from a tool
means its input could not be read, such as an invalid SMILES); other codes take their class's
status (:data:`eagle_rag.errors.ERROR_CLASSES`), and an unknown code 422."""


def tool_registry(request: Request) -> ToolRegistry:
    """The app's tool registry, built on first use. Raises EagleError when a plugin's tool is refused."""
    from eagle_rag.service.core_tools import build_tool_registry  # imports the api package
    from eagle_rag.service.tools import ToolRegistrationError

    state = request.app.state
    with _build_lock:
        registry: ToolRegistry | None = getattr(state, "tool_registry", None)
        if registry is None:
            try:
                registry = build_tool_registry(state.engine)
            except ToolRegistrationError as exc:
                raise EagleError(f"the MCP tools cannot be served: {exc}"[:500]) from exc
            state.tool_registry = registry
    return registry


def error_status(code: str) -> int:
    """The HTTP status of a tool answer with the error ``code``."""
    if code in TOOL_ERROR_STATUS:
        return TOOL_ERROR_STATUS[code]
    known = ERROR_CLASSES.get(code)
    return known.http_status if known is not None else 422


@router.get("/tools", responses=ERROR_RESPONSES, response_model=dict[str, Any], operation_id="list_tools",
            summary="The read-only MCP tools this server serves")
def list_tools(request: Request) -> dict[str, Any]:
    """``tools``: each tool's ``name``, ``title``, ``description``, ``namespace`` and ``input_schema``."""
    return {"tools": [tool.describe() for tool in tool_registry(request).tools()]}


@router.post("/tools/{name}", responses=ERROR_RESPONSES, response_model=dict[str, Any], operation_id="call_tool",
             summary="Call one read-only MCP tool with its arguments")
def call_tool(name: str, request: Request,
              arguments: dict[str, Any] | None = Body(None, description="the tool's arguments (its input_schema)",
                                                      examples=[{"query": "imatinib dosage", "top_k": 3}]),
              ) -> Any:
    """The tool's answer, as MCP returns it; the tool's error envelope with a 4xx (invalid_request,
    not_found, encode_failed) or a 5xx (collection_missing, search_failed)."""
    check_plain_id(name, "name")
    args = arguments or {}
    full = [SearchMode.FULL] if args.get("mode") == SearchMode.FULL.value else []
    with full_search_slot(request, full):
        answer = tool_registry(request).call(name, args)
    error = answer.get("error") if isinstance(answer, dict) else None
    if isinstance(error, dict):
        return JSONResponse(answer, status_code=error_status(str(error.get("code", ""))))
    return answer

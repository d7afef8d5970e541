"""The MCP tools of a running Eagle-RAG server, over its HTTP API (``GET /tools``, ``POST /tools/{name}``).

``eagle-rag mcp`` serves these when a server owns the data folder (or with ``--url``): the agent's
MCP client and every HTTP client then share one index, and this process opens no store. The remote
:class:`~eagle_rag.service.backend.Backend` answers ``tool_source()`` with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from eagle_rag.errors import EagleError
from eagle_rag.service.tools import McpTool, ToolRegistrationError, assert_rag_only_tool_name, tool_error

if TYPE_CHECKING:
    from eagle_rag.client.http import EagleClient


class RemoteToolRegistry:
    """The tools of the server behind ``client`` (listed once, on construction); a :class:`ToolSource`.

    Raises ToolRegistrationError when the server lists a tool name that mutates or executes, and the
    client's errors (ServerUnreachable, Unauthorized, ...) when the list cannot be read.
    """

    def __init__(self, client: EagleClient) -> None:
        self.client = client
        self.notice = ""
        """Said to the MCP client in the server's instructions (:func:`profile_notice`)."""
        self._tools: dict[str, McpTool] = {}
        for item in client.mcp_tools():
            name = assert_rag_only_tool_name(str(item.get("name", "")))
            if name in self._tools:
                raise ToolRegistrationError(f"the server lists MCP tool {name!r} twice")
            self._tools[name] = McpTool(name, str(item.get("description", "")),
                                        dict(item.get("input_schema") or {"type": "object"}),
                                        partial(self.call_remote, name), namespace=str(item.get("namespace", "")),
                                        title=str(item.get("title", "")))

    def tools(self) -> list[McpTool]:
        return list(self._tools.values())

    def names(self) -> list[str]:
        return list(self._tools)

    def call_remote(self, tool_name: str, /, **arguments: Any) -> dict[str, Any]:
        """The server's answer to ``tool_name(**arguments)``; its error envelope as a dict, never a raise."""
        try:
            return self.client.call_tool(tool_name, arguments)
        except EagleError as exc:
            return exc.to_dict()

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Ask the server (which validates the arguments); an unknown tool is ``not_found`` here."""
        if name not in self._tools:
            return tool_error("not_found", f"no tool {name!r}", {"tools": self.names()})
        return self.call_remote(name, **dict(arguments or {}))


def profile_notice(mine: str, served: str, url: str) -> str:
    """Why an MCP process gets other tools than its own profile would give: the server at ``url``
    answers them and runs profile ``served``; empty when the profiles agree (or the server does not say)."""
    if not served or served == mine:
        return ""
    return (f"these tools are those of the Eagle-RAG server at {url}, which runs profile {served!r}; this MCP "
            f"process's profile {mine!r} does not choose them (start the server with EAGLE_RAG_PROFILE={mine} "
            f"for that profile's tools, or run eagle-rag mcp --local on a folder no server owns)")

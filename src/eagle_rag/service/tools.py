"""MCP tools: the read-only tool registry, which namespaces are served, and what plugins add.

A tool is an :class:`McpTool`: a name, a JSON schema for its arguments, and a handler called
with the validated arguments as keywords that returns a JSON-able dict. The core tools
(``core_search``, ``core_get_document``) live in :mod:`eagle_rag.service.core_tools`; plugins add
theirs through the ``eagle_mcp_tools`` hook (e.g. ``biomed_query_entities``, ``datasets_search``)::

    @hookimpl
    def eagle_mcp_tools(engine):
        return [McpTool(name="biomed_query_entities", description="...", namespace="biomed",
                        input_schema={"type": "object", "properties": {...}, "required": [...]},
                        handler=lambda entity, kb_name=None: resolve_entity(entity))]

A plugin's namespace is its name in ``plugins.enabled``. Served are the core tools and the tools
of the default namespace (``plugins.default_namespace``) and of every enabled plugin, unless
``mcp.namespaces`` narrows that set; every name passes :func:`assert_rag_only_tool_name`.
Failures come back as the one error shape ``{"error": {"code", "message", "details"}}`` with
codes ``invalid_request``, ``not_found``, ``encode_failed``, ``collection_missing``,
``search_failed`` (or the tool's own ``failure_code``).
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from eagle_rag.service.envelope import as_eagle_error, error_body

if TYPE_CHECKING:
    from eagle_rag.engine import Engine
    from eagle_rag.settings import Settings

log = logging.getLogger("eagle_rag.mcp")

CORE_NAMESPACE = "core"
FORBIDDEN_NAME_WORDS = ("exec", "execute", "eval", "shell", "sql", "mutate", "write", "insert", "update",
                        "delete", "drop", "remove", "ingest", "send")
"""Words a tool name may not contain as a whole part: tools that change data or run code."""
_TOOL_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_NAME_PART = re.compile(r"[a-z]+|[0-9]+")


class ToolRegistrationError(ValueError):
    """A tool cannot be registered: unsafe or invalid name, duplicate, invalid schema or namespace."""


def name_parts(name: str) -> list[str]:
    """The words of a tool name, lower-cased, split at ``_`` and between letters and digits."""
    return _NAME_PART.findall(name.lower())


def assert_rag_only_tool_name(name: str) -> str:
    """Return ``name`` when it is a plain read-only tool name; raise ToolRegistrationError otherwise.

    Refused: names with a part in :data:`FORBIDDEN_NAME_WORDS` (whole parts, case-insensitive:
    ``biomed_exec`` and ``run_shell`` are refused, ``biomed_executive_summary`` is not) and names
    that are not 1-64 lower-case letters, digits and ``_`` starting with a letter.
    """
    if not isinstance(name, str):
        raise ToolRegistrationError(f"MCP tool name must be a string, got {type(name).__name__}")
    hits = [part for part in name_parts(name) if part in FORBIDDEN_NAME_WORDS]
    if hits:
        raise ToolRegistrationError(f"MCP tool {name!r} refused: RAG-only tools may not mutate or execute "
                                    f"(name contains {', '.join(hits)})")
    if not _TOOL_NAME.match(name):
        raise ToolRegistrationError(f"MCP tool {name!r} refused: use 1-64 lower-case letters, digits or '_', "
                                    "starting with a letter")
    return name


@dataclass(frozen=True)
class McpTool:
    """One read-only tool. ``handler(**arguments)`` returns a JSON-able dict."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    handler: Callable[..., dict[str, Any]]
    namespace: str = CORE_NAMESPACE
    title: str = ""
    failure_code: str = "search_failed"

    def describe(self) -> dict[str, Any]:
        """The JSON form of the tool without its handler (``GET /tools``)."""
        return {"name": self.name, "title": self.title, "description": self.description,
                "namespace": self.namespace, "input_schema": dict(self.input_schema)}


def tool_error(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The one error shape, as a tool result."""
    return error_body(code, message, details)


class ToolSource(Protocol):
    """What an MCP server serves: a local :class:`ToolRegistry` or a server's tools over HTTP."""

    def tools(self) -> list[McpTool]: ...

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> dict[str, Any]: ...


class ToolRegistry:
    """The tools one MCP server exposes, each checked when it is added."""

    def __init__(self, allowed_namespaces: Iterable[str]) -> None:
        self.allowed_namespaces = frozenset({CORE_NAMESPACE, *allowed_namespaces})
        self._tools: dict[str, McpTool] = {}
        self._validators: dict[str, Draft202012Validator] = {}
        self.skipped: list[str] = []

    def add(self, tool: McpTool) -> bool:
        """Register ``tool``; False (and listed in ``skipped``) when its namespace is not served.

        Raises ToolRegistrationError for an unsafe name, a duplicate or an invalid schema.
        """
        if not isinstance(tool, McpTool):
            raise ToolRegistrationError(f"expected an McpTool, got {type(tool).__name__}")
        assert_rag_only_tool_name(tool.name)
        if tool.namespace not in self.allowed_namespaces:
            self.skipped.append(tool.name)
            return False
        if tool.name in self._tools:
            raise ToolRegistrationError(f"MCP tool {tool.name!r} is registered twice")
        schema = copy.deepcopy(dict(tool.input_schema))
        schema.setdefault("type", "object")
        schema.setdefault("additionalProperties", False)
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            raise ToolRegistrationError(
                f"MCP tool {tool.name!r} has an invalid input schema: {exc.message}") from exc
        self._tools[tool.name] = dataclasses.replace(tool, input_schema=schema)
        self._validators[tool.name] = Draft202012Validator(schema)
        return True

    def names(self) -> list[str]:
        return list(self._tools)

    def tools(self) -> list[McpTool]:
        return list(self._tools.values())

    def get(self, name: str) -> McpTool | None:
        return self._tools.get(name)

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate the arguments and run the tool; every failure is an error envelope, never a raise."""
        tool = self._tools.get(name)
        if tool is None:
            return tool_error("not_found", f"no tool {name!r}", {"tools": self.names()})
        args = dict(arguments or {})
        problems = sorted(self._validators[name].iter_errors(args),
                          key=lambda e: [str(p) for p in e.absolute_path])
        if problems:
            errors = [{"loc": [str(p) for p in e.absolute_path], "msg": e.message[:300]}
                      for e in problems[:20]]
            where = ".".join(errors[0]["loc"]) or "arguments"
            return tool_error("invalid_request", f"{where}: {errors[0]['msg']}", {"errors": errors})
        try:
            return tool.handler(**args)
        except Exception as exc:  # noqa: BLE001 - a tool answers with an envelope, never a traceback
            known = as_eagle_error(exc)
            if known is not None:
                return known.to_dict()
            log.exception("MCP tool %s failed", name)
            return tool_error(tool.failure_code,
                              f"{name} failed unexpectedly; the server log has the details",
                              {"error_type": type(exc).__name__})


def served_namespaces(settings: Settings) -> frozenset[str]:
    """The namespaces whose tools are served: core, the default namespace and every enabled plugin's,
    or core and ``mcp.namespaces`` when it is set. Raises ToolRegistrationError for a namespace in
    ``mcp.namespaces`` that is neither the default one nor an enabled plugin's."""
    available = {CORE_NAMESPACE, settings.plugins.default_namespace, *settings.plugins.enabled}
    chosen = settings.mcp.namespaces
    if not chosen:
        return frozenset(available)
    unknown = sorted(set(chosen) - available)
    if unknown:
        raise ToolRegistrationError(f"mcp.namespaces names {', '.join(unknown)}, which is neither the default "
                                    f"namespace nor an enabled plugin; valid values: {', '.join(sorted(available))}")
    return frozenset({CORE_NAMESPACE, *chosen})


def plugin_tools(engine: Engine) -> list[McpTool]:
    """Every tool the plugins describe through ``eagle_mcp_tools`` (all implementations)."""
    out: list[McpTool] = []
    for result in engine.pm.hook.eagle_mcp_tools(engine=engine):
        for tool in result or []:
            if not isinstance(tool, McpTool):
                raise ToolRegistrationError(f"eagle_mcp_tools returned {type(tool).__name__}, not an McpTool")
            out.append(tool)
    return out


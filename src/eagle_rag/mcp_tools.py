"""MCP tools: the read-only tool registry, the core tools, and what plugins add.

A tool is an :class:`McpTool`: a name, a JSON schema for its arguments, and a handler called
with the validated arguments as keywords that returns a JSON-able dict. Core tools are
``core_search`` and ``core_get_document``; plugins add theirs through the ``eagle_mcp_tools``
hook (e.g. ``biomed_query_entities``, ``datasets_search``)::

    @hookimpl
    def eagle_mcp_tools(engine):
        return [McpTool(name="biomed_query_entities", description="...", namespace="biomed",
                        input_schema={"type": "object", "properties": {...}, "required": [...]},
                        handler=lambda entity, kb_name=None: resolve_entity(entity))]

Only tools of the core, of the default namespace (``plugins.default_namespace``) and of
``mcp.extra_namespaces`` are registered; every name passes :func:`assert_rag_only_tool_name`.
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
from typing import TYPE_CHECKING, Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from eagle_rag import service
from eagle_rag.api.envelope import as_eagle_error, error_body
from eagle_rag.types import SearchRequest, SearchResponse

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

log = logging.getLogger("eagle_rag.mcp")

CORE_NAMESPACE = "core"
FORBIDDEN_NAME_FRAGMENTS = ("execute_sql", "send_email", "mutate_", "write_db", "delete_", "drop_", "exec",
                            "shell")
_TOOL_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class ToolRegistrationError(ValueError):
    """A tool cannot be registered: unsafe or invalid name, duplicate, or invalid schema."""


def assert_rag_only_tool_name(name: str) -> str:
    """Return ``name`` when it is a plain read-only tool name; raise ToolRegistrationError otherwise.

    Refused: names containing a fragment of :data:`FORBIDDEN_NAME_FRAGMENTS` (case-insensitive:
    tools that mutate or execute have no place in a RAG data layer) and names that are not
    1-64 lower-case letters, digits and ``_`` starting with a letter.
    """
    if not isinstance(name, str):
        raise ToolRegistrationError(f"MCP tool name must be a string, got {type(name).__name__}")
    lowered = name.lower()
    hits = [fragment for fragment in FORBIDDEN_NAME_FRAGMENTS if fragment in lowered]
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


def tool_error(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The one error shape, as a tool result."""
    return error_body(code, message, details)


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


# --------------------------------------------------------------------------- core tools


def guidance(response: SearchResponse, max_top_k: int) -> str:
    """One sentence telling an agent whether to keep searching."""
    if not response.hits:
        why = response.empty_reason or "nothing matched"
        excluded = ", ".join(f"{k} alone excludes {v} documents"
                             for k, v in response.excluded_by_filter.items())
        return (f"No results: {why}" + (f" ({excluded})" if excluded else "")
                + ". The list is complete; repeating this query will not find more.")
    if response.exhaustive:
        return "This list is complete: every match is listed; a larger top_k finds nothing more."
    return (f"More matches may exist: raise top_k (at most {max_top_k}) or narrow the query or kb_name "
            "to see them.")


def format_search(response: SearchResponse, text_chars: int, max_top_k: int) -> dict[str, Any]:
    """The agent-facing form of a SearchResponse: ranked hits, completeness and, when empty, why."""
    hits = []
    for rank, hit in enumerate(response.hits, start=1):
        text = " ".join(hit.text.split())
        hits.append({"rank": rank, "chunk_id": hit.id, "document_id": hit.document_id,
                     "document_name": str(hit.metadata.get("document_name", "")), "path": hit.path,
                     "kb_name": str(hit.metadata.get("kb_name", "")), "collection": hit.collection,
                     "score": hit.score, "match": hit.match.value, "text": text[:text_chars],
                     "text_truncated": len(text) > text_chars})
    return {"query": response.query, "hits": hits, "total": response.total, "exhaustive": response.exhaustive,
            "empty_reason": response.empty_reason, "excluded_by_filter": dict(response.excluded_by_filter),
            "guidance": guidance(response, max_top_k)}


def core_tools(engine: Engine) -> list[McpTool]:
    """``core_search`` and ``core_get_document``, with the limits of ``engine.settings``."""
    mcp = engine.settings.mcp
    max_query = engine.settings.search.max_query_chars

    def core_search(query: str, top_k: int = mcp.default_top_k, kb_name: str | None = None) -> dict[str, Any]:
        request = SearchRequest(query=query, top_k=top_k, kb_names=(kb_name,) if kb_name else ())
        return format_search(service.search(engine, request), mcp.hit_text_chars, mcp.max_top_k)

    def core_get_document(document_id: str) -> dict[str, Any]:
        return service.get_document(engine, document_id)

    search_schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": max_query,
                      "description": "what to look for (English or Chinese)"},
            "top_k": {"type": "integer", "minimum": 1, "maximum": mcp.max_top_k,
                      "default": mcp.default_top_k,
                      "description": f"most hits to return (default {mcp.default_top_k}, "
                                     f"at most {mcp.max_top_k})"},
            "kb_name": {"type": "string", "pattern": r"^[A-Za-z0-9_.\-]{1,64}$",
                        "description": "restrict to one knowledge base"},
        },
        "required": ["query"],
    }
    document_schema = {
        "type": "object",
        "properties": {"document_id": {"type": "string", "minLength": 1, "maxLength": 256,
                                       "description": "a document_id from a search hit"}},
        "required": ["document_id"],
    }
    return [
        McpTool("core_search", "Search the indexed biomedical documents (hybrid BM25 + dense retrieval). "
                "Returns ranked evidence chunks with their document and section path, says whether the list "
                "is complete (`exhaustive`) and, when empty, why. Read-only.",
                search_schema, core_search, title="Search documents"),
        McpTool("core_get_document", "The registry record of one document (name, kb, source, status, chunk "
                "count, tags). Read-only.", document_schema, core_get_document, title="Get a document",
                failure_code="internal_error"),
    ]


def plugin_tools(engine: Engine) -> list[McpTool]:
    """Every tool the plugins describe through ``eagle_mcp_tools`` (all implementations)."""
    out: list[McpTool] = []
    for result in engine.pm.hook.eagle_mcp_tools(engine=engine):
        for tool in result or []:
            if not isinstance(tool, McpTool):
                raise ToolRegistrationError(f"eagle_mcp_tools returned {type(tool).__name__}, not an McpTool")
            out.append(tool)
    return out


def build_tool_registry(engine: Engine) -> ToolRegistry:
    """Core tools plus the plugins' tools of the namespaces this engine serves."""
    settings = engine.settings
    registry = ToolRegistry([settings.plugins.default_namespace, *settings.mcp.extra_namespaces])
    for tool in [*core_tools(engine), *plugin_tools(engine)]:
        registry.add(tool)
    return registry

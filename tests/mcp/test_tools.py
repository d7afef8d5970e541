"""The MCP tool registry: RAG-only names, namespaces, argument validation, error envelopes, core and
plugin tools (in process; ``test_stdio.py`` drives the real server)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.encoders.errors import EncoderLoadError
from eagle_rag.engine import Engine
from eagle_rag.errors import InvalidRequest, NotFound
from eagle_rag.hookspecs import hookimpl
from eagle_rag.service.core_tools import build_tool_registry
from eagle_rag.service.tools import (
    FORBIDDEN_NAME_WORDS,
    McpTool,
    ToolRegistrationError,
    ToolRegistry,
    assert_rag_only_tool_name,
    name_parts,
    served_namespaces,
)
from eagle_rag.settings import load_settings
from eagle_rag.stores.milvus import CollectionNotFoundError
from tests.api.helpers import make_settings
from tests.profiles import GENERAL

pytestmark = pytest.mark.unit
SCHEMA = {"type": "object", "properties": {"q": {"type": "string", "minLength": 1}}, "required": ["q"]}


def tool(name: str, handler: Any = None, namespace: str = "core", **kw: Any) -> McpTool:
    return McpTool(name, f"{name} tool", SCHEMA, handler or (lambda q: {"q": q}), namespace=namespace, **kw)


@pytest.mark.parametrize("name", [
    "execute_sql", "biomed_execute_sql", "send_email", "datasets_send_email", "mutate_index", "core_mutate_x",
    "write_db", "biomed_write_db_rows", "delete_document", "core_delete_all", "drop_collection", "exec",
    "biomed_exec", "biomed_exec_query", "run_shell", "shell", "EXECUTE_SQL", "Core_Shell", "exec_python",
    "exec2", "core_ingest_file", "biomed_update_index", "core_insert_rows", "remove_kb", "eval_code",
    "core_sql_query",
])
def test_tool_names_that_mutate_or_execute_are_refused(name):
    with pytest.raises(ToolRegistrationError, match="RAG-only"):
        assert_rag_only_tool_name(name)


@pytest.mark.parametrize("name", ["core_search", "core_get_document", "biomed_query_entities",
                                  "biomed_retrieve_compounds", "datasets_search", "datasets_check_ids",
                                  "biomed_executive_summary", "core_shellfish_allergy", "dropout_rates",
                                  "core_evaluation_sets", "biomed_removal_half_life", "core_updates_feed"])
def test_read_only_tool_names_pass(name):
    """The check matches whole name parts: a word that only starts like a forbidden one passes."""
    assert assert_rag_only_tool_name(name) == name


def test_name_parts_split_at_underscores_and_digits():
    assert name_parts("Biomed_Exec2_query") == ["biomed", "exec", "2", "query"]
    assert name_parts("biomed_executive_summary") == ["biomed", "executive", "summary"]


@pytest.mark.parametrize("name", ["", "Core-Search", "1tool", "a" * 65, "core search", "core.search"])
def test_malformed_tool_names_are_refused(name):
    with pytest.raises(ToolRegistrationError):
        assert_rag_only_tool_name(name)


def test_every_forbidden_word_is_tested():
    refused = test_tool_names_that_mutate_or_execute_are_refused.pytestmark[0].args[1]
    assert set(FORBIDDEN_NAME_WORDS) <= {part for name in refused for part in name_parts(name)}


def test_only_core_and_served_namespaces_are_registered():
    registry = ToolRegistry(["default"])
    assert registry.add(tool("core_a"))
    assert registry.add(tool("datasets_a", namespace="default"))
    assert not registry.add(tool("biomed_a", namespace="biomed"))
    assert registry.names() == ["core_a", "datasets_a"] and registry.skipped == ["biomed_a"]
    biomed = ToolRegistry(["biomed"])
    assert biomed.add(tool("biomed_a", namespace="biomed")) and not biomed.add(tool("x_a", namespace="default"))


def test_unsafe_duplicate_or_invalid_tools_fail_registration():
    registry = ToolRegistry(["default"])
    registry.add(tool("core_a"))
    with pytest.raises(ToolRegistrationError, match="twice"):
        registry.add(tool("core_a"))
    with pytest.raises(ToolRegistrationError, match="RAG-only"):
        registry.add(tool("biomed_delete_doc", namespace="biomed"))  # refused even when not served
    with pytest.raises(ToolRegistrationError, match="invalid input schema"):
        registry.add(McpTool("core_b", "b", {"type": "object", "properties": {"x": {"type": 5}}}, dict))
    with pytest.raises(ToolRegistrationError, match="McpTool"):
        registry.add({"name": "core_c"})  # type: ignore[arg-type]


def test_arguments_are_validated_into_an_envelope():
    registry = ToolRegistry([])
    registry.add(tool("core_a"))
    for args in ({}, {"q": ""}, {"q": 1}, {"q": "x", "extra": 1}):
        result = registry.call("core_a", args)
        assert result["error"]["code"] == "invalid_request" and result["error"]["details"]["errors"]
    assert registry.call("core_a", {"q": "x"}) == {"q": "x"}
    assert registry.call("core_nope", {})["error"]["code"] == "not_found"


@pytest.mark.parametrize("exc, code", [
    (EncoderLoadError("bge-small missing"), "encode_failed"),
    (CollectionNotFoundError("eagle_chemical"), "collection_missing"),
    (InvalidRequest("bad"), "invalid_request"),
    (NotFound("no doc"), "not_found"),
    (RuntimeError("secret /etc/shadow"), "search_failed"),
])
def test_failures_become_envelopes_never_tracebacks(exc, code):
    def boom(q: str) -> dict[str, Any]:
        raise exc

    registry = ToolRegistry([])
    registry.add(tool("core_boom", boom))
    result = registry.call("core_boom", {"q": "x"})
    assert set(result) == {"error"} and set(result["error"]) == {"code", "message", "details"}
    assert result["error"]["code"] == code
    assert "secret" not in str(result)


class _PluginTools:
    def __init__(self, extra: list[McpTool] | None = None) -> None:
        self.extra = extra or []

    @hookimpl
    def eagle_mcp_tools(self, engine):
        entity = McpTool("biomed_query_entities", "resolve an entity", {
            "type": "object", "properties": {"entity": {"type": "string"}}, "required": ["entity"]},
            lambda entity: {"entity": entity, "found": False}, namespace="biomed")
        listed = McpTool("datasets_like_tool", "d", SCHEMA, lambda q: {"q": q}, namespace="default")
        return [entity, listed, *self.extra]


def test_plugins_add_tools_through_the_hook(tmp_path):
    with Engine(make_settings(tmp_path), extra_plugins=[("tools", _PluginTools())]) as engine:
        assert build_tool_registry(engine).names() == ["core_search", "core_get_document", "datasets_like_tool"]
    settings = make_settings(tmp_path, plugins={"enabled": [], "default_namespace": "biomed"})
    with Engine(settings, extra_plugins=[("tools", _PluginTools())]) as engine:
        registry = build_tool_registry(engine)
        assert registry.names() == ["core_search", "core_get_document", "biomed_query_entities"]
        assert registry.call("biomed_query_entities", {"entity": "HER2"}) == {"entity": "HER2", "found": False}
    settings = make_settings(tmp_path, plugins={"enabled": [], "default_namespace": "biomed"},
                             mcp={"namespaces": ["default"]})
    with pytest.raises(ToolRegistrationError, match="valid values: biomed, core"):
        served_namespaces(settings)


def test_every_enabled_plugins_namespace_is_served_unless_narrowed():
    biomed = load_settings(environ={}, overrides={"profile": "biomed"})
    assert biomed.plugins.enabled == ["biomed", "datasets"]
    assert served_namespaces(biomed) == {"core", "biomed", "datasets"}
    general = load_settings(environ=GENERAL)
    assert served_namespaces(general) == {"core", "default", "datasets"}  # "default": the namespace
    narrowed = load_settings(environ={"EAGLE_RAG_MCP__NAMESPACES": '["datasets"]'}, overrides={"profile": "biomed"})
    assert served_namespaces(narrowed) == {"core", "datasets"}
    registry = ToolRegistry(served_namespaces(narrowed))
    assert registry.add(tool("datasets_a", namespace="datasets")) and not registry.add(tool("b_a", namespace="biomed"))
    wrong = load_settings(environ=GENERAL, overrides={"mcp": {"namespaces": ["biomed"]}})
    with pytest.raises(ToolRegistrationError, match="mcp.namespaces names biomed.*valid values: core, datasets, "
                                                    "default"):
        served_namespaces(wrong)


def test_a_plugin_tool_that_mutates_stops_the_server_from_starting(tmp_path):
    bad = McpTool("biomed_execute_sql", "no", SCHEMA, dict, namespace="biomed")
    with Engine(make_settings(tmp_path), extra_plugins=[("tools", _PluginTools([bad]))]) as engine:
        with pytest.raises(ToolRegistrationError, match="biomed_execute_sql"):
            build_tool_registry(engine)
        with TestClient(create_app(engine)) as client:
            health = client.get("/health/plugins").json()
    assert health["mcp_tools"] == [] and "biomed_execute_sql" in health["mcp_error"]

"""Plugin manager: hookspecs, validation, core defaults last, tracing, import contract."""

from __future__ import annotations

import inspect
import logging
from pathlib import Path

import pytest

from eagle_rag import hookspecs
from eagle_rag.hookspecs import hookimpl
from eagle_rag.kernel.plugin_manager import PluginError, build_plugin_manager, hooks_by_plugin
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchRequest
from tests.profiles import GENERAL

pytestmark = pytest.mark.unit
SRC = Path(__file__).resolve().parents[1] / "src" / "eagle_rag"
HOOKS = [name for name in dir(hookspecs) if name.startswith("eagle_")]


def bare():
    """Settings with no entry-point plugin enabled."""
    return load_settings(environ=GENERAL, overrides={"plugins": {"enabled": []}})


def test_every_hook_has_a_docstring_saying_first_or_all():
    assert len(HOOKS) >= 16
    for name in HOOKS:
        doc = inspect.getdoc(getattr(hookspecs, name)) or ""
        first = getattr(hookspecs, name).eagle_rag_spec["firstresult"]
        expected = "Stops at the first non-None result" if first else "All "
        assert expected in doc, name


def test_every_hook_is_named_in_a_test():
    tests = "\n".join(p.read_text() for p in Path(__file__).parent.rglob("test_*.py"))
    missing = [name for name in HOOKS if name not in tests]
    assert not missing, f"hooks without a test: {missing}"


class Override:
    @hookimpl
    def eagle_query_dense_expand(self, query, plan):
        from eagle_rag.types import ExpandedQuery
        return ExpandedQuery(dense_query=query + " [expanded]")


def test_core_defaults_run_last_and_can_be_overridden():
    pm = build_plugin_manager(bare(), [("override", Override())])
    result = pm.hook.eagle_query_dense_expand(ctx=None, query="q", plan=None, request=SearchRequest("q"))
    assert result.dense_query == "q [expanded]"
    pm2 = build_plugin_manager(bare())
    expanded = pm2.hook.eagle_query_dense_expand(ctx=None, query="q", plan=None, request=SearchRequest("q"))
    assert expanded.dense_query == "q"


def test_unknown_hook_name_fails_at_registration():
    class Bad:
        @hookimpl
        def eagle_not_a_hook(self):
            return 1

    with pytest.raises(PluginError, match="bad"):
        build_plugin_manager(bare(), [("bad", Bad())])


def test_unknown_argument_fails_at_registration():
    class BadArgs:
        @hookimpl
        def eagle_rerank(self, ctx, bogus):
            return None

    with pytest.raises(PluginError, match="badargs"):
        build_plugin_manager(bare(), [("badargs", BadArgs())])


def test_enabled_but_missing_plugin_is_a_clear_error():
    settings = load_settings(environ=GENERAL, overrides={"plugins": {"enabled": ["no_such_plugin"]}})
    with pytest.raises(PluginError, match="'no_such_plugin' is enabled but not installed"):
        build_plugin_manager(settings)


def test_datasets_plugin_loads_from_entry_point():
    pm = build_plugin_manager(load_settings(environ=GENERAL))
    assert "datasets" in hooks_by_plugin(pm)
    assert "eagle_cli_register" in hooks_by_plugin(pm)["datasets"]


def test_trace_logs_which_plugin_answered(caplog):
    pm = build_plugin_manager(bare(), [("override", Override())],
                              environ={"EAGLE_RAG_TRACE_HOOKS": "1"})
    with caplog.at_level(logging.INFO, logger="eagle_rag.hooks"):
        pm.hook.eagle_query_dense_expand(ctx=None, query="q", plan=None, request=SearchRequest("q"))
    # pluggy's call monitoring: the plugins asked, in call order, then the outcome
    assert "hook eagle_query_dense_expand: asking override, core_defaults" in caplog.text
    assert "hook eagle_query_dense_expand: answered (ExpandedQuery)" in caplog.text

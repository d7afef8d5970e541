"""The plugin template registers cleanly and answers only in its own namespace."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from eagle_rag.context import HookContext
from eagle_rag.kernel.audit import PluginAudit
from eagle_rag.kernel.plugin_manager import build_plugin_manager
from eagle_rag.kernel.plugin_options import PluginOptionsError
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchRequest
from tests.profiles import GENERAL

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[2] / "plugin_template" / "src" / "eagle_rag_example" / "plugin.py"


def load_template():
    spec = importlib.util.spec_from_file_location("eagle_rag_example_plugin", ROOT)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("namespace, expected", [("example", "q (example)"), ("default", "q")])
def test_template_answers_only_in_its_namespace(namespace, expected):
    plugins = {"enabled": [], "options": {"example": {"suffix": "x"}}}
    settings = load_settings(environ=GENERAL, overrides={"plugins": plugins})
    pm = build_plugin_manager(settings, [("example", load_template())])
    ctx = HookContext(namespace=namespace, settings=settings, audit=PluginAudit())
    request = SearchRequest(query="q")
    assert pm.hook.eagle_query_dense_expand(ctx=ctx, query="q", plan=None, request=request).dense_query == expected
    suffixes = pm.hook.eagle_query_assemble(ctx=ctx, request=request)
    assert suffixes == (["x"] if namespace == "example" else [])


def test_template_declares_its_options():
    settings = load_settings(environ=GENERAL,
                             overrides={"plugins": {"enabled": [], "options": {"example": {"sufix": "x"}}}})
    with pytest.raises(PluginOptionsError, match="plugins.options.example.sufix: unknown option 'sufix'; "
                                                  "did you mean 'suffix'"):
        build_plugin_manager(settings, [("example", load_template())])

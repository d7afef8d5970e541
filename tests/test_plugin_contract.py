"""Plugins import the core only through ``eagle_rag.plugin_api`` (an AST walk of every plugin module).

The core never imports a plugin: the second check walks ``src/eagle_rag`` for imports of the plugin
packages. Both checks are shown to fail on a module that breaks the rule.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import eagle_rag
import eagle_rag.plugin_api as plugin_api

pytestmark = pytest.mark.unit
SRC = Path(eagle_rag.__file__).resolve().parent.parent
PLUGINS = ("eagle_rag_biomed", "eagle_rag_datasets")
ALLOWED = "eagle_rag.plugin_api"


def imported_modules(source: str) -> list[tuple[int, str]]:
    """Every module a source imports, with its line (``from x import y`` counts ``x`` and ``x.y``)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
    return found


def is_core(module: str) -> bool:
    return module == "eagle_rag" or module.startswith("eagle_rag.")


def core_imports_outside_api(source: str) -> list[str]:
    """The core modules a plugin source imports other than the plugin API."""
    bad = []
    for line, module in imported_modules(source):
        if is_core(module) and module != ALLOWED and not module.startswith(f"{ALLOWED}."):
            bad.append(f"line {line}: {module}")
    return bad


def plugin_imports(source: str) -> list[str]:
    return [f"line {line}: {module}" for line, module in imported_modules(source)
            if module.split(".")[0] in PLUGINS]


def modules_of(package: str) -> list[Path]:
    return sorted((SRC / package).rglob("*.py"))


@pytest.mark.parametrize("package", PLUGINS)
def test_plugins_import_only_the_plugin_api(package: str) -> None:
    offenders = {str(path.relative_to(SRC)): bad for path in modules_of(package)
                 if (bad := core_imports_outside_api(path.read_text(encoding="utf-8")))}
    assert offenders == {}, f"plugins must import core names from {ALLOWED} only: {offenders}"


def test_the_core_never_imports_a_plugin() -> None:
    offenders = {str(path.relative_to(SRC)): bad for path in modules_of("eagle_rag")
                 if (bad := plugin_imports(path.read_text(encoding="utf-8")))}
    assert offenders == {}


def test_the_checks_fail_on_modules_that_break_the_rules() -> None:
    plugin_source = ("from eagle_rag.plugin_api import hookimpl\n"
                     "from eagle_rag.retrieve.safe_hooks import call_hook\n"
                     "import eagle_rag.engine\n"
                     "def f():\n    from eagle_rag import service\n")
    assert core_imports_outside_api(plugin_source) == [
        "line 2: eagle_rag.retrieve.safe_hooks", "line 2: eagle_rag.retrieve.safe_hooks.call_hook",
        "line 3: eagle_rag.engine", "line 5: eagle_rag", "line 5: eagle_rag.service"]
    assert plugin_imports("from eagle_rag_biomed.plugin import x\n") == [
        "line 1: eagle_rag_biomed.plugin", "line 1: eagle_rag_biomed.plugin.x"]


def test_the_plugin_api_exports_what_it_promises() -> None:
    for name in ("hookimpl", "HookContext", "Services", "NodeWithScore", "SearchRequest", "VectorStore",
                 "InvalidRequest", "StoreFilter", "VectorMemo", "McpTool"):
        assert name in plugin_api.__all__ and hasattr(plugin_api, name)
    assert sorted(plugin_api.__all__) == sorted(set(plugin_api.__all__))
    from eagle_rag.plugin_api import commands, retrieve

    assert "merge_rrf" in retrieve.__all__ and "open_backend" in commands.__all__

"""The hooks keep their promises: each is documented as "first" or "all" and has a test of its own.

For every hook in :mod:`eagle_rag.hookspecs`, the docstring says how results combine (matching the
``firstresult`` flag on the spec) and what None means, and a test function named
``test_hook_<hook name>`` exists somewhere under ``tests/``.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from eagle_rag import hookspecs

pytestmark = pytest.mark.unit
TESTS = Path(__file__).parent
FIRST = "Stops at the first non-None result"
ALL = ("All non-None results are collected", "All implementations are called")


def hook_names() -> list[str]:
    return sorted(name for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
                  if name.startswith("eagle_") and hasattr(fn, "eagle_rag_spec"))


def collect_test_names(root: Path) -> set[str]:
    names: set[str] = set()
    for path in root.rglob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names.update(node.name for node in ast.walk(tree)
                     if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"))
    return names


def missing_hook_tests(hooks: list[str], tests: set[str]) -> list[str]:
    """The hooks without a ``test_hook_<name>`` among ``tests``."""
    return [hook for hook in hooks if f"test_hook_{hook}" not in tests]


def test_every_hookspec_is_found() -> None:
    hooks = hook_names()
    assert len(hooks) >= 19 and "eagle_rerank_merged" in hooks and "eagle_register" in hooks


@pytest.mark.parametrize("hook", hook_names())
def test_hook_docstring_says_first_or_all(hook: str) -> None:
    fn = getattr(hookspecs, hook)
    doc = inspect.getdoc(fn) or ""
    first = bool(fn.eagle_rag_spec["firstresult"])
    if first:
        assert FIRST in doc, f"{hook} is firstresult=True: its docstring must say {FIRST!r}"
    else:
        assert any(phrase in doc for phrase in ALL), f"{hook} collects every answer: its docstring must say so"
        assert FIRST not in doc
    if first:
        assert "None" in doc.replace(FIRST, ""), f"{hook}: say what None means"


@pytest.mark.parametrize("hook", hook_names())
def test_hook_has_a_test_named_after_it(hook: str) -> None:
    assert not missing_hook_tests([hook], collect_test_names(TESTS)), (
        f"no test named test_hook_{hook} under tests/")


def test_the_check_fails_for_a_hook_without_its_test(tmp_path: Path) -> None:
    (tmp_path / "test_some.py").write_text("def test_hook_eagle_parse():\n    pass\n", encoding="utf-8")
    found = collect_test_names(tmp_path)
    assert missing_hook_tests(["eagle_parse", "eagle_rerank"], found) == ["eagle_rerank"]

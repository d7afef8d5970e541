"""The house plan, checked by walking imports with ``ast`` (tests/imports.py): every import counts,
inside functions and under ``TYPE_CHECKING`` too.

Measured before the service package (``394ddbd``): 2 import circles (11 modules around engine,
service, index_health, warm_up, reindex, doctor, migrate, snapshots and the Ray executor; and
mcp_tools <-> mcp_core_tools), 27 imports of a front end or a store by a front end, 95 names in
``plugin_api`` (six modules of them front ends), 45 files at the core's root (``__init__.py`` counted).
"""

from __future__ import annotations

import importlib

import pytest

from tests.imports import SRC, cycles, graph

pytestmark = pytest.mark.unit

FRONTS = ("eagle_rag.cli", "eagle_rag.mcp", "eagle_rag.api", "eagle_rag.integrations", "eagle_rag.client")
"""The front ends (the web console lives in ``api``); none imports another, none imports a store."""
PLUGIN_API_FRONTS = ("eagle_rag.api", "eagle_rag.cli", "eagle_rag.mcp", "eagle_rag.client", "eagle_rag.integrations")


def front(module: str) -> str | None:
    return next((f for f in FRONTS if module == f or module.startswith(f"{f}.")), None)


def test_no_import_circle_among_core_modules() -> None:
    assert cycles(graph("eagle_rag")) == []


def test_the_circle_finder_finds_a_circle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_front_end_imports_another_front_end_or_a_store() -> None:
    crossings: dict[str, set[str]] = {}
    for module, imports in graph("eagle_rag").items():
        if (own := front(module)) is None:
            continue
        bad = {m for m in imports if (front(m) not in (None, own)) or m.startswith("eagle_rag.stores")}
        if bad:
            crossings[module] = bad
    assert crossings == {}


def test_serve_and_mcp_start_the_registered_servers() -> None:
    """``eagle-rag serve`` and ``eagle-rag mcp`` reach the HTTP app and the MCP server through the
    ``eagle_rag.servers`` entry points, not by import (before: five imports of api and mcp by cli/server.py)."""
    from eagle_rag.api import create_app
    from eagle_rag.cli.server import registered_server
    from eagle_rag.mcp.server import serve

    assert registered_server("http") is create_app
    assert registered_server("mcp") is serve
    with pytest.raises(Exception, match="no 'grpc' server is registered"):
        registered_server("grpc")


def test_the_plugin_api_is_short_and_holds_no_front_end() -> None:
    api = importlib.import_module("eagle_rag.plugin_api")
    assert len(api.__all__) <= 40, len(api.__all__)
    edges = graph("eagle_rag")
    surface = [m for m in edges if m == "eagle_rag.plugin_api" or m.startswith("eagle_rag.plugin_api.")]
    assert len(surface) == 7  # the package and its six groups
    fronts = {m for s in surface for m in edges[s] if m.startswith(PLUGIN_API_FRONTS)}
    assert fronts == set()


def test_the_core_root_holds_only_the_vocabulary() -> None:
    root = sorted(p.name for p in (SRC / "eagle_rag").glob("*.py"))
    assert len(root) <= 12, root
    assert {"types.py", "protocols.py", "errors.py", "settings.py", "engine.py", "hookspecs.py"} <= set(root)


def test_the_user_facing_imports_still_work() -> None:
    from eagle_rag.cli import main  # the console script of an install made before the move
    from eagle_rag.client import EagleClient
    from eagle_rag.engine import Engine
    from eagle_rag.service.backend import Backend, Searcher
    from eagle_rag.service.local_backend import LocalBackend
    from eagle_rag.service.remote_backend import RemoteBackend

    assert callable(main) and issubclass(Engine, Searcher) and issubclass(EagleClient, Searcher)
    assert issubclass(LocalBackend, Backend) and issubclass(RemoteBackend, Backend)

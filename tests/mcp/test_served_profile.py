"""An MCP process answered by a server of another profile says why its tools are the server's, and the
dataset catalog's advice names each surface's own control (the CLI's ``--k``)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from eagle_rag.mcp.server import build_server, open_tools
from eagle_rag.service.backend import Target
from eagle_rag.settings import load_settings
from tests.client.helpers import run_cli, serving

pytestmark = pytest.mark.integration


def test_an_mcp_process_of_another_profile_is_told_the_servers(tmp_path: Path, caplog) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with serving(data) as served:  # the general profile, as every client test's server
        assert run_cli(data, "doctor").returncode in (0, 1)  # the server answers (and owns the folder)
        mine = load_settings(environ={}, overrides={"profile": "biomed", "data_dir": str(tmp_path / "own")})
        with caplog.at_level(logging.WARNING, logger="eagle_rag.mcp"), \
                open_tools(mine, Target(url=served.url)) as tools:
            names = [t.name for t in tools.tools()]
            instructions = build_server(tools).instructions or ""
    assert "biomed_query_entities" not in names and "core_search" in names
    assert "runs profile 'general'" in instructions and "profile 'biomed' does not choose them" in instructions
    assert "EAGLE_RAG_PROFILE=biomed" in caplog.text


def test_the_cli_names_its_own_control_for_more_cards(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "datasets", "search", "cancer", "--k", "1", "--local")
    said = " ".join(result.stdout.split())
    assert result.returncode == 0 and "Raise --k (at most 100) or add filters" in said

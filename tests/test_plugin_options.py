"""Plugin options are checked at start-up and shown: each plugin declares its options model
(``eagle_options_model``), an unknown key stops the plugin manager, the engine and the CLI with the
key and its nearest valid name, and ``config show`` / ``GET /config`` list every option with its
value, help text and source."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import BaseModel, ConfigDict, Field

from eagle_rag.api import create_app
from eagle_rag.engine import Engine
from eagle_rag.hookspecs import hookimpl
from eagle_rag.kernel.plugin_manager import build_plugin_manager
from eagle_rag.kernel.plugin_options import PluginOptionsError, options_models, setting_rows
from eagle_rag.settings import SettingsError, effective_settings, load_settings
from tests.client.helpers import cli_env
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration


class ToyLimits(BaseModel):
    model_config = ConfigDict(extra="forbid")
    window: int = Field(5, ge=1, description="how far the toy looks")


class ToyOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    limit: int = Field(3, description="how many things the toy keeps")
    limits: ToyLimits = Field(default_factory=ToyLimits)


class Toy:
    @hookimpl
    def eagle_options_model(self) -> type[BaseModel]:
        return ToyOptions


def toy_settings(options: dict[str, Any]) -> Any:
    return load_settings(environ=GENERAL, overrides={"plugins": {"enabled": [], "options": {"toy": options}}})


def test_hook_eagle_options_model() -> None:
    pm = build_plugin_manager(toy_settings({"limit": 4, "limits": {"window": 2}}), [("toy", Toy())])
    assert options_models(pm) == {"toy": ToyOptions}
    with pytest.raises(PluginOptionsError, match=r"plugins\.options\.toy\.limt: unknown option 'limt'; "
                                                 r"did you mean 'limit'\?"):
        build_plugin_manager(toy_settings({"limt": 4}), [("toy", Toy())])
    with pytest.raises(PluginOptionsError, match=r"plugins\.options\.toy\.limits\.window: .*greater than"):
        build_plugin_manager(toy_settings({"limits": {"window": 0}}), [("toy", Toy())])


def biomed_settings(tmp_path: Path, options: dict[str, Any]) -> Any:
    return load_settings(environ={}, overrides={"profile": "biomed", "data_dir": str(tmp_path),
                                                "encoders": {"mode": "deterministic"},
                                                "plugins": {"options": {"biomed": options}}})


@pytest.mark.parametrize(("options", "message"), [
    ({"rerank_polcy": "none"}, "plugins.options.biomed.rerank_polcy: unknown option 'rerank_polcy'; "
                               "did you mean 'rerank_policy'?"),
    ({"tier2": {"pol": 5}}, "plugins.options.biomed.tier2.pol: unknown option 'pol'; did you mean 'pool'?"),
    ({"stages": {"tier3": False}}, "plugins.options.biomed.stages.tier3: unknown option 'tier3'; did you mean"),
])
def test_engine_refuses_an_unknown_biomed_option_naming_the_nearest(tmp_path: Path, options: dict[str, Any],
                                                                    message: str) -> None:
    with pytest.raises(SettingsError) as raised:
        Engine(biomed_settings(tmp_path, options))
    assert isinstance(raised.value, PluginOptionsError) and message in str(raised.value)
    assert not (tmp_path / "milvus.db").exists()  # refused before any store was opened


def test_an_options_block_of_no_plugin_is_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    settings = load_settings(environ=GENERAL, overrides={"plugins": {"enabled": [], "options": {"biomde": {}}}})
    with caplog.at_level(logging.WARNING, logger="eagle_rag.kernel.plugin_options"):
        build_plugin_manager(settings)
    assert "plugins.options.biomde is ignored: unknown plugin 'biomde'; did you mean 'biomed'?" in caplog.text


def test_file_and_env_options_of_one_plugin_are_merged(tmp_path: Path) -> None:
    file = tmp_path / "eagle-rag.yaml"
    file.write_text("plugins:\n  options:\n    biomed:\n      tier2: {pool: 12}\n", encoding="utf-8")
    settings, sources = effective_settings(environ={"EAGLE_RAG_SETTINGS_FILE": str(file),
                                                    "EAGLE_RAG_PLUGINS__OPTIONS__BIOMED__TIER1__POOL": "7"})
    assert settings.plugin_options("biomed") == {"tier2": {"pool": 12}, "tier1": {"pool": "7"}}
    assert sources["plugins.options.biomed.tier2.pool"] == f"file:{file}"
    assert sources["plugins.options.biomed.tier1.pool"] == "env:EAGLE_RAG_PLUGINS__OPTIONS__BIOMED__TIER1__POOL"


def test_every_plugin_option_has_help_and_a_default_source() -> None:
    settings, sources = effective_settings(environ={}, overrides={"profile": "biomed"})
    rows = setting_rows(settings, sources, build_plugin_manager(settings))
    options = [r for r in rows if r.key.startswith("plugins.options.")]
    assert {r.key.split(".")[2] for r in options} == {"biomed", "datasets"}
    assert len(options) >= 50 and all(r.help and r.source == "default" for r in options), [
        r.key for r in options if not r.help]
    assert "plugins.options" not in {r.key for r in rows}  # the raw block is replaced by its options


def eagle(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eagle_rag.cli.app", *args], env=cli_env(tmp_path / "data", **env),
                          cwd=tmp_path, capture_output=True, text=True, timeout=180)


def test_config_show_lists_plugin_options_with_value_source_and_help(tmp_path: Path) -> None:
    (tmp_path / "eagle-rag.yaml").write_text("plugins:\n  options:\n    biomed:\n      tier2: {pool: 12}\n",
                                             encoding="utf-8")
    env_var = "EAGLE_RAG_PLUGINS__OPTIONS__BIOMED__TIER1__POOL"
    shown = eagle(tmp_path, "config", "show", "--json", EAGLE_RAG_PROFILE="biomed", **{env_var: "7"})
    assert shown.returncode == 0, shown.stderr
    rows = json.loads(shown.stdout)
    assert rows["plugins.options.biomed.tier2.pool"] == {
        "value": 12, "source": "file:eagle-rag.yaml", "help": "merged candidates scored by the Tier-2 models"}
    assert rows["plugins.options.biomed.tier1.pool"]["value"] == 7
    assert rows["plugins.options.biomed.tier1.pool"]["source"] == f"env:{env_var}"
    assert rows["plugins.options.biomed.rerank_policy"]["value"] == "domain"
    assert rows["plugins.options.biomed.rerank_policy"]["source"] == "default"
    assert rows["plugins.options.datasets.cards_path"]["source"] == "default"
    assert rows["router.rrf_k"]["help"]
    table = eagle(tmp_path, "config", "show", EAGLE_RAG_PROFILE="biomed", **{env_var: "7"}).stdout.splitlines()
    at = next(i for i, x in enumerate(table) if "plugins.options.biomed.tier1.pool" in x)
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in table[at:at + 3]]
    assert cells[0][1] == "7" and "".join(c[2] for c in cells if c).startswith(f"env:{env_var}")
    assert "domain encoder" in " ".join(c[3] for c in cells if c)


def test_cli_refuses_an_unknown_option_in_one_line(tmp_path: Path) -> None:
    result = eagle(tmp_path, "config", "show", EAGLE_RAG_PROFILE="biomed",
                   EAGLE_RAG_PLUGINS__OPTIONS__BIOMED='{"rerank_polcy": "none"}')
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "error: invalid plugin options: plugins.options.biomed.rerank_polcy: unknown option 'rerank_polcy'; "
        "did you mean 'rerank_policy'?"]


def test_config_endpoint_lists_plugin_options(tmp_path: Path) -> None:
    settings = load_settings(environ=GENERAL, overrides={"data_dir": str(tmp_path),
                                                         "encoders": {"mode": "deterministic"},
                                                         "plugins": {"enabled": [], "options": {"toy": {"limit": 9}}}})
    with Engine(settings, extra_plugins=[("toy", Toy())]) as engine, TestClient(create_app(engine)) as client:
        rows = {r["key"]: r for r in client.get("/config").json()["settings"]}
    assert rows["plugins.options.toy.limit"] == {"key": "plugins.options.toy.limit", "value": 9,
                                                 "source": "override", "help": "how many things the toy keeps"}
    assert rows["plugins.options.toy.limits.window"]["value"] == 5
    assert rows["plugins.options.toy.limits.window"]["source"] == "default"

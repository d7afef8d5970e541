"""Helpers of the API and MCP tests: settings for a temporary engine, the one error shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eagle_rag.kernel.plugin_manager import PluginError, build_plugin_manager
from eagle_rag.settings import Settings, load_settings
from tests.profiles import GENERAL

HERE = Path(__file__).parent
TAGGED = HERE / "data" / "tagged.jsonl"
TAGGED_IDS = {"t-onc-1", "t-onc-2", "t-cv-1", "t-cv-2"}


def make_settings(data_dir: Path, **overrides: Any) -> Settings:
    """Settings over ``data_dir`` with the deterministic encoder and no entry-point plugins."""
    base: dict[str, Any] = {"data_dir": str(data_dir), "encoders": {"mode": "deterministic"},
                            "plugins": {"enabled": []}}
    return load_settings(environ=GENERAL, overrides={**base, **overrides})


def default_plugins_or_none(data_dir: Path, **overrides: Any) -> Settings:
    """The default profile's plugins when they load (e.g. datasets routes), else none."""
    settings = load_settings(environ=GENERAL, overrides={"data_dir": str(data_dir),
                                                        "encoders": {"mode": "deterministic"}, **overrides})
    try:
        build_plugin_manager(settings)
    except PluginError:
        return make_settings(data_dir, **overrides)
    return settings


def datasets_surfaces(settings: Settings) -> list[tuple[str, object]]:
    """The datasets plugin's routes and tools as an extra plugin, until its ``plugin.py`` imports them."""
    from eagle_rag_datasets import plugin, surfaces

    if "datasets" in settings.plugins.enabled and hasattr(plugin, "eagle_api_register"):
        return []
    return [("datasets_surfaces", surfaces)]


def assert_error_shape(response: Any, status: int | None = None, code: str | None = None) -> dict[str, Any]:
    """The body is exactly ``{"error": {"code", "message", "details"}}``; returns the inner object."""
    if status is not None:
        assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"code", "message", "details"}, error
    assert isinstance(error["code"], str) and error["code"]
    assert isinstance(error["message"], str) and error["message"]
    assert isinstance(error["details"], dict)
    assert "Traceback" not in response.text
    if code is not None:
        assert error["code"] == code, error
    return error

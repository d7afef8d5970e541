"""Build the plugin manager: hookspecs, core defaults (run last), entry-point plugins by profile.

Plugins are discovered in the entry-point group ``eagle_rag.plugins`` and loaded when their
entry-point name is in ``settings.plugins.enabled``. Registration validates every hook
implementation (unknown hook names or arguments fail here, naming the plugin and function) and
every plugin's options block (:mod:`eagle_rag.kernel.plugin_options`).
``EAGLE_RAG_TRACE_HOOKS=1`` logs which plugin answered each hook call.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any

import pluggy

from eagle_rag import hookspecs
from eagle_rag.hookspecs import PROJECT
from eagle_rag.kernel import core_defaults
from eagle_rag.kernel.plugin_options import check_plugin_options
from eagle_rag.settings import Settings

ENTRY_POINT_GROUP = "eagle_rag.plugins"
log = logging.getLogger("eagle_rag.hooks")


class PluginError(RuntimeError):
    """A plugin could not be found, loaded or validated."""


def available_plugins() -> dict[str, Any]:
    """Entry-point name -> entry point, for every installed plugin."""
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def _load(name: str, available: dict[str, Any]) -> ModuleType | object:
    if name not in available:
        known = ", ".join(sorted(available)) or "none"
        raise PluginError(f"plugin {name!r} is enabled but not installed; installed plugins: {known}")
    try:
        return available[name].load()
    except Exception as exc:
        raise PluginError(f"plugin {name!r} failed to import: {exc}") from exc


def _register(pm: pluggy.PluginManager, plugin: object, name: str) -> None:
    try:
        pm.register(plugin, name=name)
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        pm.unregister(name=name)
        raise PluginError(f"plugin {name!r} is invalid: {exc}") from exc
    unknown = [
        attr for attr in dir(plugin)
        if attr.startswith("eagle_") and callable(getattr(plugin, attr))
        and not hasattr(pm.hook, attr)
    ]
    if unknown:
        pm.unregister(name=name)
        raise PluginError(f"plugin {name!r} implements unknown hooks: {', '.join(unknown)}")


def _enable_tracing(pm: pluggy.PluginManager) -> Callable[[], None]:
    """Log every hook call with the plugins asked and the outcome (pluggy's call monitoring).

    Returns the function that switches the tracing off again.
    """

    def before(hook_name: str, impls: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
        log.info("hook %s: asking %s", hook_name, ", ".join(impl.plugin_name for impl in reversed(impls)))

    def after(outcome: Any, hook_name: str, impls: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
        if outcome.exception is not None:
            log.info("hook %s: raised %s", hook_name, type(outcome.exception).__name__)
            return
        result = outcome.get_result()
        verdict = "no answer" if result is None or result == [] else f"answered ({type(result).__name__})"
        log.info("hook %s: %s", hook_name, verdict)

    return pm.add_hookcall_monitoring(before, after)


def build_plugin_manager(settings: Settings, extra_plugins: Iterable[tuple[str, object]] = (),
                         environ: dict[str, str] | None = None) -> pluggy.PluginManager:
    """A fresh plugin manager for ``settings`` (never a global one).

    ``extra_plugins`` are (name, plugin object) pairs registered as well (tests, embedding apps).
    Raises :class:`PluginError` for an enabled plugin that is missing or invalid, and
    :class:`~eagle_rag.kernel.plugin_options.PluginOptionsError` for a plugin options block its model refuses.
    """
    env = os.environ if environ is None else environ
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)
    _register(pm, core_defaults, "core_defaults")
    available = available_plugins()
    for name in settings.plugins.enabled:
        _register(pm, _load(name, available), name)
    for name, plugin in extra_plugins:
        _register(pm, plugin, name)
    check_plugin_options(pm, settings, available)
    if env.get("EAGLE_RAG_TRACE_HOOKS", "") in {"1", "true", "yes"}:
        _enable_tracing(pm)
    return pm


def hooks_by_plugin(pm: pluggy.PluginManager) -> dict[str, list[str]]:
    """Plugin name -> the hooks it implements (for ``/health/plugins`` and ``config show``)."""
    out: dict[str, list[str]] = {}
    for hook_name in sorted(dir(pm.hook)):
        if not hook_name.startswith("eagle_"):
            continue
        for impl in getattr(pm.hook, hook_name).get_hookimpls():
            out.setdefault(impl.plugin_name, []).append(hook_name)
    return out

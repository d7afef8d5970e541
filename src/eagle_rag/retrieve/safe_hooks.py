"""Call a hook through pluggy's own loop, so that a plugin failure is seen, never silent.

Implementations run in pluggy's order (tryfirst first, core defaults last): a "first" hook stops at
the first non-None answer, an "all" hook collects every non-None answer. When an implementation
raises (docs/architecture.md, "When a plugin fails"):

* :class:`~eagle_rag.errors.PluginUnavailable` is a failure the plugin declares as expected (a
  model or an optional collection that is not there): that plugin is left out and the hook is
  called again without it, so the next implementation answers. The request carries a warning.
* anything else is a bug. With ``EAGLE_RAG_STRICT_HOOKS=1`` (set by the test suite) it propagates.
  Otherwise the stage is skipped (the caller's ``default``), the request carries a warning naming
  the stage, the plugin and the exception, and the failure is counted per plugin and hook for
  ``/health`` (the plugin shows as degraded) and ``/metrics``.

Every failure is also an audit decision of category ``hook_failure``.
"""

from __future__ import annotations

import inspect
import logging
import os
from types import TracebackType
from typing import Any

from eagle_rag.context import HookContext
from eagle_rag.errors import PluginUnavailable

log = logging.getLogger(__name__)
STRICT_ENV = "EAGLE_RAG_STRICT_HOOKS"


def strict_hooks(environ: dict[str, str] | None = None) -> bool:
    """True when ``EAGLE_RAG_STRICT_HOOKS`` asks unexpected plugin failures to propagate."""
    env = os.environ if environ is None else environ
    return env.get(STRICT_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def culprit(hook_caller: Any, tb: TracebackType | None) -> str:
    """The name of the plugin whose implementation raised (the innermost matching frame), or "?"."""
    codes = {inspect.unwrap(impl.function).__code__: impl.plugin_name for impl in hook_caller.get_hookimpls()}
    name = "?"
    while tb is not None:
        name = codes.get(tb.tb_frame.f_code, name)
        tb = tb.tb_next
    return name


def stage_name(hook_name: str) -> str:
    return hook_name.removeprefix("eagle_")


def call_hook(ctx: HookContext, hook_caller: Any, default: Any, **kwargs: Any) -> Any:
    """Call ``hook_caller`` with ``ctx`` and ``kwargs`` through pluggy (see the module docstring).

    Returns the first non-None result of a firstresult hook, the list of non-None results of an
    "all" hook, or ``default`` when nothing answered or the stage was skipped. Raises the plugin's
    exception when strict hooks are on and the failure was not declared as expected.
    """
    kwargs = {"ctx": ctx, **kwargs}
    first = bool(hook_caller.spec and hook_caller.spec.opts.get("firstresult"))
    caller, left_out = hook_caller, []
    while True:
        try:
            result = caller(**kwargs)
        except PluginUnavailable as exc:
            plugin = culprit(hook_caller, exc.__traceback__)
            _record(ctx, hook_caller.name, plugin, exc, expected=True)
            if plugin == "?" or plugin in left_out or not ctx.services.has("pm"):
                return default
            left_out.append(plugin)
            caller = ctx.services.pm.subset_hook_caller(hook_caller.name, remove_plugins=[
                ctx.services.pm.get_plugin(name) for name in left_out])
            continue
        except Exception as exc:
            if strict_hooks():
                raise
            _record(ctx, hook_caller.name, culprit(hook_caller, exc.__traceback__), exc, expected=False)
            return default
        if result is None or (not first and not result):
            return default
        return result


def _record(ctx: HookContext, hook_name: str, plugin: str, exc: BaseException, expected: bool) -> None:
    error = f"{type(exc).__name__}: {str(exc)[:300]}"
    if expected:
        message = f"plugin {plugin} left out of stage {stage_name(hook_name)}: {exc}"
    else:
        message = f"stage {stage_name(hook_name)} skipped: {plugin} raised {error}"
    log.warning("%s", message)
    ctx.warn(message)
    ctx.audit.record_hook_failure(plugin, hook_name, error, expected=expected)
    ctx.log_decision("hook_failure", plugin=plugin, summary=str(exc)[:500], hook=hook_name,
                     error=type(exc).__name__, expected=expected)

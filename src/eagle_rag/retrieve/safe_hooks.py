"""Call a hook so that one failing plugin is logged and skipped, never fatal to the request.

Implementations run in pluggy's order (tryfirst first, core defaults last). For a "first" hook
the first non-None answer wins; for an "all" hook every non-None answer is collected. An
implementation that raises is recorded as a ``hook_failure`` decision and the call goes on.
"""

from __future__ import annotations

import logging
from typing import Any

from eagle_rag.context import HookContext

log = logging.getLogger(__name__)


def call_hook(ctx: HookContext, hook_caller: Any, default: Any, **kwargs: Any) -> Any:
    """Call ``hook_caller`` with ``ctx`` and ``kwargs`` isolating each implementation.

    Returns the first non-None result for a firstresult hook, a list of non-None results for an
    "all" hook, or ``default`` when nothing answered.
    """
    first = bool(hook_caller.spec and hook_caller.spec.opts.get("firstresult"))
    kwargs = {"ctx": ctx, **kwargs}
    results: list[Any] = []
    for impl in reversed(hook_caller.get_hookimpls()):
        args = {name: kwargs[name] for name in impl.argnames if name in kwargs}
        try:
            result = impl.function(**args)
        except Exception as exc:  # noqa: BLE001 - a plugin failure must not fail the request
            log.warning("hook %s failed in plugin %s: %s", hook_caller.name, impl.plugin_name, exc)
            ctx.log_decision("hook_failure", plugin=impl.plugin_name, summary=str(exc)[:500],
                             hook=hook_caller.name, error=type(exc).__name__)
            continue
        if result is None:
            continue
        if first:
            return result
        results.append(result)
    if first:
        return default
    return results if results else default

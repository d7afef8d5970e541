"""Help pages in the plain click style: ``--k INTEGER``, ``--url TEXT``, and a flag without a type.

Typer releases that carry their own copy of click label every parameter with its Python type in
angle brackets (``--explain <bool>``, ``--url <str>``, ``--kb <list[str]>``), a flag included,
although a flag takes no value. :func:`tidy` walks the command tree once, before it runs, and gives
each parameter click's usual label instead. Under a Typer built on click itself (no
``display_type``) the help is already plain and nothing changes.
"""

from __future__ import annotations

from typing import Any

CLASSIC = {"str": "TEXT", "int": "INTEGER", "float": "FLOAT", "path": "PATH", "bool": "BOOLEAN"}
"""Typer's type names and click's labels for them."""


def classic_label(display: str) -> str:
    """Click's label for one of Typer's type labels: ``<int>`` -> ``INTEGER``, ``<list[str]>`` -> ``TEXT``
    (a repeatable option), ``<a|b>`` -> ``[a|b]``."""
    inner = display.strip().removeprefix("<").removesuffix(">")
    if inner.startswith("list[") and inner.endswith("]"):
        inner = inner[5:-1]
    if "|" in inner:
        return f"[{inner}]"
    return CLASSIC.get(inner, inner.upper())


def _tidy_param(param: Any, ctx: Any) -> None:
    display = getattr(param, "display_type", None)
    if display is None or getattr(param, "metavar", None) is not None:
        return
    flag = bool(getattr(param, "is_flag", False) or getattr(param, "count", False))
    label = None if flag else classic_label(display(ctx))
    param.display_type_rich = lambda ctx=None: label


def tidy(command: Any) -> Any:
    """``command`` (a click command or group, its subcommands included) with plain type labels."""
    ctx = command.context_class(command)
    for param in [*command.params, command.get_help_option(ctx)]:
        if param is not None:
            _tidy_param(param, ctx)
    for sub in getattr(command, "commands", {}).values():
        tidy(sub)
    return command

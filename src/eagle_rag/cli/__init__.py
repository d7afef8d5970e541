"""The command line (``eagle-rag``): :mod:`eagle_rag.cli.app` declares the commands, one module a group
of them; every command calls the service through a :class:`~eagle_rag.service.backend.Backend`."""

from typing import Any


def __getattr__(name: str) -> Any:
    """``eagle_rag.cli.main``, imported on first use (a console script written
    before the commands moved into this package imports ``eagle_rag.cli:main``)."""
    if name == "main":
        import importlib

        return getattr(importlib.import_module("eagle_rag.cli.app"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

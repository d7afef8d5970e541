"""Quiet stderr for the command line: what the libraries print is off by default, on with ``--verbose``.

Silenced unless verbose:

- gRPC's own log lines (``too_many_pings``, ``GOAWAY``, bind errors): ``GRPC_VERBOSITY=NONE`` and an
  empty ``GRPC_TRACE``, set before grpc is imported (the C core reads them once). A value the user
  set is kept.
- pymilvus: its error log with a traceback on every failed RPC and warnings such as "failed to get
  mvccTs". pymilvus configures its loggers when it is imported (``logging.config.dictConfig``), which
  resets any level set earlier, so the levels are set again right after that import.
- numba's warnings (for instance the unsafe-cast notice ranx's compiled metrics raise).
- every other library's log records under ERROR (nibabel's ``pixdim[1,2,3] should be non-zero`` for a
  truncated NIfTI file, which a bad file's one-line failure already reports): the command's handler
  shows warnings of Eagle-RAG's own packages and of its plugins only; nibabel and pydicom, which log
  through handlers of their own too, get the level ERROR.
- a traceback attached to a log record: the record is written on one line, the exception as
  ``Type: message`` at its end.

:func:`setup` is the first thing ``eagle-rag`` runs; :func:`wants_verbose` reads ``--verbose`` from
the command line before the command is parsed, because grpc is imported while plugins register.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import logging
import os
import sys
import warnings
from collections.abc import Callable, MutableMapping, Sequence
from types import ModuleType
from typing import Any

VERBOSE_FLAGS = ("--verbose", "-v")
QUIET_GRPC = {"GRPC_VERBOSITY": "NONE", "GRPC_TRACE": ""}
QUIET_LOGGERS = {"pymilvus": logging.CRITICAL, "milvus_lite": logging.CRITICAL, "numba": logging.WARNING,
                 "nibabel": logging.ERROR, "pydicom": logging.ERROR}
"""Library loggers and the level they get unless verbose (a locked folder is then reported in one line)."""
LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"


def wants_verbose(argv: Sequence[str]) -> bool:
    """True when ``--verbose`` (or ``-v``) comes before the command name, as the global option does."""
    for arg in argv:
        if not arg.startswith("-"):
            return False
        if arg in VERBOSE_FLAGS:
            return True
    return False


def quiet_grpc(environ: MutableMapping[str, str]) -> None:
    """Switch gRPC's C-core logging off in ``environ``, keeping any value already there."""
    for name, value in QUIET_GRPC.items():
        environ.setdefault(name, value)


class OneLineFormatter(logging.Formatter):
    """A log record on one line: an attached exception becomes `` (Type: message)``, no traceback."""

    def format(self, record: logging.LogRecord) -> str:
        exc = record.exc_info[1] if record.exc_info else None
        plain = logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None,
                                       "stack_info": None})
        text = super().format(plain)
        if exc is not None:
            text += f" ({type(exc).__name__}: {exc})"
        return " ".join(text.split("\n"))


OWN_PACKAGES = ("eagle_rag", "eagle_rag_biomed", "eagle_rag_datasets")
"""Top-level packages whose warnings the command line shows (with those of the installed plugins)."""


class OwnRecords(logging.Filter):
    """Lets through the records of ``packages`` (and the root logger's) at every level, and any record
    at ERROR or above; drops the other libraries' debug, info and warning records."""

    def __init__(self, packages: Sequence[str]) -> None:
        super().__init__()
        self.packages = frozenset(packages)

    def filter(self, record: logging.LogRecord) -> bool:
        top = record.name.split(".", 1)[0]
        return record.levelno >= logging.ERROR or record.name == "root" or top in self.packages


def own_packages() -> list[str]:
    """:data:`OWN_PACKAGES` and the top-level package of every plugin registered under ``eagle_rag.plugins``."""
    from importlib.metadata import entry_points

    plugins = [ep.value.split(":", 1)[0].split(".", 1)[0] for ep in entry_points(group="eagle_rag.plugins")]
    return list(dict.fromkeys([*OWN_PACKAGES, *plugins]))


def _quiet_library_loggers() -> None:
    for name, level in QUIET_LOGGERS.items():
        logging.getLogger(name).setLevel(level)
    # pymilvus gives some of its loggers their own level (pymilvus.milvus_client: INFO)
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if name.startswith("pymilvus.") and isinstance(logger, logging.Logger) and logger.level:
            logger.setLevel(logging.CRITICAL)


def _hide_numba_warnings() -> None:
    shown = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: str | None = None) -> None:
        if category.__module__.split(".")[0] == "numba":
            return
        shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show


class _AfterImport(importlib.abc.MetaPathFinder):
    """Calls ``callback`` once the module ``name`` has been executed (then leaves ``sys.meta_path``)."""

    def __init__(self, name: str, callback: Callable[[], None]) -> None:
        self.name, self.callback = name, callback

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None,
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        loader = spec.loader if spec is not None else None
        if spec is None or loader is None or not hasattr(loader, "exec_module"):
            return spec
        execute, callback = loader.exec_module, self.callback

        def exec_module(module: ModuleType) -> None:
            execute(module)
            callback()

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def after_import(name: str, callback: Callable[[], None]) -> None:
    """Run ``callback`` now when ``name`` is imported already, else right after its import."""
    if name in sys.modules:
        callback()
    else:
        sys.meta_path.insert(0, _AfterImport(name, callback))


def setup(verbose: bool, level: str | None = None) -> None:
    """Configure the process's logging and warnings for the command line (see the module docstring).

    ``level`` is the level of the log records shown (default: env ``EAGLE_RAG_LOG_LEVEL``, else WARNING).
    """
    level = level or os.environ.get("EAGLE_RAG_LOG_LEVEL", "WARNING")
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter(LOG_FORMAT) if verbose else OneLineFormatter(LOG_FORMAT))
    logging.basicConfig(level=level, handlers=[handler])
    if verbose:
        return
    handler.addFilter(OwnRecords(own_packages()))
    quiet_grpc(os.environ)
    _quiet_library_loggers()
    for library in ("pymilvus", "nibabel", "pydicom"):  # they configure their loggers when imported
        after_import(library, _quiet_library_loggers)
    _hide_numba_warnings()

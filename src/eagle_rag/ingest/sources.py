"""Finding and reading source files, with clear errors for what cannot be read."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from eagle_rag.errors import IngestError, InvalidRequest


def iter_source_files(paths: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """Expand folders recursively (sorted, hidden entries skipped). Returns (files, missing paths)."""
    files: list[Path] = []
    missing: list[Path] = []
    for path in paths:
        if path.is_dir():
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                files.extend(Path(root) / n for n in sorted(names) if not n.startswith("."))
        elif path.exists():
            files.append(path)
        else:
            missing.append(path)
    return files, missing


NO_SUCH_PATH = "no such file or folder"
"""The failure of a path that does not exist (in a report, with ``skip_missing``)."""


def missing_paths_error(paths: Sequence[Path | str]) -> InvalidRequest | None:
    """The InvalidRequest naming the paths of ``paths`` that do not exist (the first 5 in the message,
    every one in ``details["missing"]``); None when every path exists. ``Engine.ingest`` and the
    client's ``ingest`` raise it before anything is read or sent."""
    missing = [str(p) for p in paths if not Path(p).exists()]
    if not missing:
        return None
    more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
    return InvalidRequest(f"{NO_SUCH_PATH}: {', '.join(missing[:5])}{more}", {"field": "paths", "missing": missing})


NOT_REGULAR = "not a regular file"
"""Why a named pipe, socket or device is not read: opening a pipe would wait for a writer forever."""


def is_regular_file(path: Path) -> bool:
    """Whether ``path`` (symbolic links followed) is a regular file; False for a named pipe, a socket,
    a device, a folder, or a path that does not exist."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def check_regular_file(path: Path) -> None:
    """Raise IngestError ``<name>: not a regular file`` for an existing path that is no regular file
    (a named pipe, a socket, a device), before anything opens it."""
    if path.exists() and not is_regular_file(path):  # a missing file or a dangling link: reading reports it
        raise IngestError(f"{path.name}: {NOT_REGULAR}")


def read_source(path: Path, max_bytes: int) -> bytes:
    """The bytes of ``path``. Raises IngestError when it is too large, is no regular file, or cannot be read."""
    try:
        info = path.stat()
    except OSError as exc:
        raise IngestError(f"{path.name}: cannot read ({exc.strerror})") from exc
    if not stat.S_ISREG(info.st_mode):
        raise IngestError(f"{path.name}: {NOT_REGULAR}")
    size = info.st_size
    if size > max_bytes:
        raise IngestError(f"{path.name}: {size} bytes is over the limit of {max_bytes} bytes",
                          {"size": size, "limit": max_bytes})
    try:
        return path.read_bytes()
    except OSError as exc:
        raise IngestError(f"{path.name}: cannot read ({exc.strerror})") from exc


UPLOADS_DIR = "uploads"
"""Folder under ``data_dir`` where the HTTP API stores uploads (same value as ``eagle_rag.api.uploads``)."""


def allowed_ingest_roots(allowed_roots: Sequence[str], data_path: Path) -> list[Path]:
    """The resolved folders ingest may read from; empty when ``ingest.allowed_roots`` is unset (no limit).

    When roots are configured, the engine's own upload folder (``data_dir/uploads``) is allowed too.
    """
    if not allowed_roots:
        return []
    return [Path(r).expanduser().resolve() for r in allowed_roots] + [(data_path / UPLOADS_DIR).resolve()]


def check_inside_roots(path: Path, roots: Sequence[Path]) -> None:
    """Raise IngestError when ``path`` (symlinks and ``..`` resolved) lies outside every root.

    Does nothing when ``roots`` is empty. The message names the path as given, never where it resolves.
    """
    if not roots:
        return
    resolved = Path(path).expanduser().resolve()
    if not any(resolved == root or resolved.is_relative_to(root) for root in roots):
        raise IngestError(f"{Path(path).name}: path is outside the allowed ingest roots",
                          {"path": str(path)})

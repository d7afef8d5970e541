"""Where ``POST /ingest`` may read from: uploaded files, and server-side paths under allowed roots.

Uploads are streamed into ``<data_dir>/uploads/<kb_name>/<safe name>`` (through a hidden staging
file, then an atomic rename), so uploading the same file name to the same kb again replaces the
document instead of duplicating it. Server-side paths must resolve (symbolic links followed)
inside one of ``ingest.allowed_roots``; every file found under a folder is checked again, so a
link that points out of the root is refused too.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from eagle_rag import service
from eagle_rag.api.envelope import PathNotAllowed, PayloadTooLarge
from eagle_rag.errors import InvalidRequest
from eagle_rag.ingest.sources import iter_source_files

UPLOADS_DIR = "uploads"
_UNSAFE = re.compile(r"[^\w.\- ]+")
_COPY_CHUNK = 1 << 20


def safe_filename(name: str | None) -> str:
    """The base name of an uploaded file with unsafe characters replaced. Raises InvalidRequest."""
    base = PurePosixPath((name or "").replace("\\", "/")).name
    base = _UNSAFE.sub("_", base).strip(" .")
    if not base:
        raise InvalidRequest(f"upload {name!r} has no usable file name", {"field": "files"})
    return base[:200]


def validate_ingest_kb(kb_name: str) -> str:
    """Refuse a kb name made of dots only (``.``, ``..``): it would name a folder, not a kb."""
    service.validate_kb_name(kb_name)
    if not kb_name.strip("."):
        raise InvalidRequest(f"invalid kb name {kb_name!r}: it needs a letter, digit, '_' or '-'",
                             {"field": "kb_name"})
    return kb_name


def uploads_root(data_path: Path, kb_name: str) -> Path:
    """``<data_dir>/uploads/<kb_name>`` for a valid kb name (InvalidRequest otherwise)."""
    return data_path / UPLOADS_DIR / validate_ingest_kb(kb_name)


def save_upload(stream: BinaryIO, filename: str | None, target_dir: Path, max_bytes: int) -> Path:
    """Copy one upload to ``target_dir`` (atomically). Raises InvalidRequest or PayloadTooLarge."""
    name = safe_filename(filename)
    target_dir.mkdir(parents=True, exist_ok=True)
    fd, staging = tempfile.mkstemp(dir=target_dir, prefix=".upload-")
    try:
        written = 0
        with os.fdopen(fd, "wb") as out:
            while chunk := stream.read(_COPY_CHUNK):
                written += len(chunk)
                if written > max_bytes:
                    raise PayloadTooLarge(f"upload {name!r} is over the limit of {max_bytes} bytes",
                                          {"file": name, "limit": max_bytes})
                out.write(chunk)
        final = target_dir / name
        os.replace(staging, final)
        return final
    except BaseException:
        Path(staging).unlink(missing_ok=True)
        raise


def _inside(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def resolve_server_paths(raw_paths: Sequence[str], allowed_roots: Sequence[str]) -> list[Path]:
    """The files named by ``raw_paths`` (folders expanded), all inside ``allowed_roots``.

    A relative path is taken relative to the first root. Raises :class:`PathNotAllowed` (403)
    when server-side paths are off (no roots) or a path or file resolves outside every root, and
    InvalidRequest for an empty path or a NUL byte. The error names the path as given, never the
    resolved location.
    """
    if not allowed_roots:
        raise PathNotAllowed("server-side paths are disabled: set ingest.allowed_roots, or upload the files",
                             {"field": "paths"})
    roots = [Path(r).resolve() for r in allowed_roots]
    resolved: list[Path] = []
    for raw in raw_paths:
        if not raw.strip() or "\x00" in raw:
            raise InvalidRequest(f"invalid path {raw!r}", {"field": "paths"})
        candidate = Path(raw) if Path(raw).is_absolute() else roots[0] / raw
        path = candidate.resolve()
        if not _inside(path, roots):
            raise PathNotAllowed(f"path {raw!r} is outside the allowed ingest roots", {"path": raw})
        resolved.append(path)
    files, missing = iter_source_files(resolved)
    escaped = [f for f in files if not _inside(f.resolve(), roots)]
    if escaped:
        raise PathNotAllowed(f"{len(escaped)} file(s) link outside the allowed ingest roots",
                             {"count": len(escaped)})
    return [*files, *missing]


def remove_upload(source_uri: str, data_path: Path) -> None:
    """Delete an uploaded source file (only when it lies under ``<data_dir>/uploads``)."""
    root = (data_path / UPLOADS_DIR).resolve()
    path = Path(source_uri).resolve()
    if path.is_relative_to(root) and path.is_file():
        path.unlink(missing_ok=True)

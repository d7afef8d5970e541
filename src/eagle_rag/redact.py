"""Keep server paths out of what the API answers: error bodies, ingest reports, document records;
and keep secrets out of the settings that ``GET /config`` and ``eagle-rag config show`` print.

A path under the data folder becomes its name relative to that folder (an upload becomes the
name it was uploaded under); a path under an ingest root becomes its name relative to that root;
any other absolute path in a message becomes its last part. The full text goes to the server log
with the request id. :func:`mask_secret` hides a secret setting's value and a password inside a URL.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from eagle_rag.ingest.sources import UPLOADS_DIR

MASK = "**********"
_SECRET_KEY = re.compile(r"(api_key|password|secret|token)$")
_URL_PASSWORD = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^/@:\s]*:)(?P<password>[^/@\s]+)@")
_ABSOLUTE = re.compile(r"(?<![\w.:/])/(?:[^\s'\"<>()\[\],;:/]+/)*[^\s'\"<>()\[\],;:/]*")


def _under(path: str, root: str) -> str | None:
    root = root.rstrip("/")
    if root and (path == root or path.startswith(root + "/")):
        return path[len(root):].lstrip("/")
    return None


def _prefixes(data_path: Path, roots: Sequence[str]) -> list[str]:
    out: list[str] = []
    for base in (data_path, *map(Path, roots)):
        for form in (str(base), str(base.resolve())):
            if form not in out:
                out.append(form)
    return sorted(out, key=len, reverse=True)


def upload_name(relative: str) -> str | None:
    """The name a stored upload was sent under: ``uploads/<kb>/<hash>/<name>`` -> ``<name>``."""
    parts = PurePosixPath(relative).parts
    if len(parts) >= 3 and parts[0] == UPLOADS_DIR:
        return parts[-1]
    return None


def _relative(path: str, data_path: Path, roots: Sequence[str]) -> str | None:
    for prefix in _prefixes(data_path, roots):
        relative = _under(path, prefix)
        if relative is not None:
            return upload_name(relative) or relative or "."
    return None


def public_path(path: str, data_path: Path, roots: Sequence[str] = ()) -> str:
    """``path`` (a document's source) as a client may see it: relative to the data folder or an ingest
    root, an upload's name, else the last part of an absolute path. A relative path or a URI stays
    as it is."""
    if not path.startswith("/"):
        return path
    return _relative(path, data_path, roots) or PurePosixPath(path).name or path


def scrub_text(text: str, data_path: Path, roots: Sequence[str] = ()) -> str:
    """``text`` with every absolute path under the data folder or an ingest root made relative (other
    paths, such as a URL path or a path the client sent, stay as they are)."""
    return _ABSOLUTE.sub(lambda m: _relative(m.group(0), data_path, roots) or m.group(0), text)


def scrub(value: Any, data_path: Path, roots: Sequence[str] = ()) -> Any:
    """A JSON-like value with :func:`scrub_text` applied to every string in it."""
    if isinstance(value, str):
        return scrub_text(value, data_path, roots)
    if isinstance(value, dict):
        return {k: scrub(v, data_path, roots) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(v, data_path, roots) for v in value]
    return value


def mask_secret(key: str, value: Any) -> Any:
    """``value`` with secrets hidden: the whole value of a secret-named key, a password inside a URL."""
    if _SECRET_KEY.search(key) and value:
        return MASK
    if isinstance(value, str):
        return _URL_PASSWORD.sub(lambda m: f"{m['head']}{MASK}@", value)
    return value

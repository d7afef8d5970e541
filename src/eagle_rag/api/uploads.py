"""Where ``POST /ingest`` may read from: uploaded files, and server-side paths under allowed roots.

Uploads are streamed into ``<data_dir>/uploads/<kb_name>/<hash>/<safe name>`` (through a hidden
staging file, then an atomic rename), where ``<hash>`` is a digest of the name as sent: uploading
the same file name to the same kb again replaces the document instead of duplicating it, and two
names that read the same once unsafe characters are replaced (``★.md``, ``☃.md``: both ``_.md``)
stay two files. The name may be a relative path (``d1/note.md``; the Python client sends one for
files of an ingest that share a file name): it is kept as ``<hash>/note.md``. A name sent twice in one request
(two ``note.md`` from two folders) is two files too: its second file is hashed with its occurrence
number, so re-sending the same request replaces both documents. What one kb keeps is bounded by
``api.max_upload_bytes_per_kb``; an upload that could not be ingested is removed (:func:`remove_upload`).
With a shared registry (``serve`` replicas) the folder is only staging: every upload is removed once its
ingest is settled, since the document lives in the shared stores and no replica reads the file again.
Server-side paths must resolve (symbolic links followed) inside one of ``ingest.allowed_roots``;
every file found under a folder is checked again, so a link that points out of the root is refused too.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, BinaryIO

from eagle_rag import service
from eagle_rag.errors import InvalidRequest, StoreUnavailable
from eagle_rag.ingest.sources import iter_source_files
from eagle_rag.redact import UPLOADS_DIR
from eagle_rag.service.documents import remove_empty as _remove_empty
from eagle_rag.service.documents import remove_upload
from eagle_rag.service.envelope import PathNotAllowed, PayloadTooLarge

if TYPE_CHECKING:
    from eagle_rag.ingest.report import IngestReport

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
    service.require_kb_name(kb_name)
    if not kb_name.strip("."):
        raise InvalidRequest(f"invalid kb name {kb_name!r}: it needs a letter, digit, '_' or '-'",
                             {"field": "kb_name"})
    return kb_name


def uploads_root(data_path: Path, kb_name: str) -> Path:
    """``<data_dir>/uploads/<kb_name>`` for a valid kb name (InvalidRequest otherwise)."""
    return data_path / UPLOADS_DIR / validate_ingest_kb(kb_name)


class UploadQuotaExceeded(PayloadTooLarge):
    """The kb's uploads would pass ``api.max_upload_bytes_per_kb``."""

    code = "upload_quota_exceeded"


def upload_path(target_dir: Path, filename: str | None, occurrence: int = 1) -> Path:
    """Where an upload named ``filename`` is kept: ``<target_dir>/<12 hex of the name>/<safe name>``.

    ``occurrence`` is how many files of one request were sent under that name, this one included:
    from the second on, the number is part of the digest, so no file of the request replaces another."""
    name = safe_filename(filename)
    key = filename or ""
    if occurrence > 1:
        key = f"{key}\x00{occurrence}"
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return target_dir / digest / name


def stored_bytes(target_dir: Path) -> int:
    """Bytes of the uploads kept under ``target_dir`` (one kb's folder)."""
    if not target_dir.is_dir():
        return 0
    return sum(p.stat().st_size for p in target_dir.rglob("*") if p.is_file() and not p.name.startswith("."))


def save_upload(stream: BinaryIO, filename: str | None, target_dir: Path, max_bytes: int,
                quota: int = 0, occurrence: int = 1) -> Path:
    """Copy one upload under ``target_dir`` (atomically; see :func:`upload_path` for ``occurrence``).

    ``quota`` (0 = none) bounds the bytes the folder keeps, the file it replaces not counted.
    Raises InvalidRequest, PayloadTooLarge or UploadQuotaExceeded (nothing is kept then).
    """
    final = upload_path(target_dir, filename, occurrence)
    name = final.name
    room = max_bytes
    if quota:
        replaced = final.stat().st_size if final.is_file() else 0
        room = min(room, quota - stored_bytes(target_dir) + replaced)
    final.parent.mkdir(parents=True, exist_ok=True)
    fd, staging = tempfile.mkstemp(dir=final.parent, prefix=".upload-")
    try:
        written = 0
        with os.fdopen(fd, "wb") as out:
            while chunk := stream.read(_COPY_CHUNK):
                written += len(chunk)
                if written > room:
                    if written > max_bytes:
                        raise PayloadTooLarge(f"upload {name!r} is over the limit of {max_bytes} bytes",
                                              {"file": name, "limit": max_bytes})
                    raise UploadQuotaExceeded(
                        f"upload {name!r} would take this kb's uploads over api.max_upload_bytes_per_kb "
                        f"({quota} bytes); delete documents of the kb or raise the quota",
                        {"file": name, "quota": quota})
                out.write(chunk)
        os.replace(staging, final)
        return final
    except BaseException:
        Path(staging).unlink(missing_ok=True)
        _remove_empty(final.parent)
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
    try:
        files, missing = iter_source_files(resolved)
    except OSError as exc:  # a name too long for the file system, a folder that cannot be read
        raise InvalidRequest(f"a path cannot be read: {exc.strerror or type(exc).__name__}",
                             {"field": "paths"}) from None
    escaped = [f for f in files if not _inside(f.resolve(), roots)]
    if escaped:
        raise PathNotAllowed(f"{len(escaped)} file(s) link outside the allowed ingest roots",
                             {"count": len(escaped)})
    return [*files, *missing]


@dataclass
class UploadBatch:
    """The uploads of one ``POST /ingest``: saved before the ingest, settled after it.

    Settling removes every upload the ingest rejected as a whole (and, after a dry run or a failed
    ingest, every upload that was not there before), so rejected files never pile up; with ``keep``
    false (a shared registry), it removes every upload of the batch.
    """

    data_path: Path
    kb_name: str
    max_bytes: int
    quota: int = 0
    keep: bool = True
    saved: list[Path] = field(default_factory=list)
    fresh: set[Path] = field(default_factory=set)
    sent: dict[str, int] = field(default_factory=dict)
    """How many files of the batch came under each name."""

    def save(self, stream: BinaryIO, filename: str | None) -> Path:
        """Save one upload (see :func:`save_upload`); on a refusal the earlier ones of the batch go too.
        A name the batch already had is kept as another file (:func:`upload_path`)."""
        target = uploads_root(self.data_path, self.kb_name)
        occurrence = self.sent[filename or ""] = self.sent.get(filename or "", 0) + 1
        existed = upload_path(target, filename, occurrence).is_file()
        try:
            path = save_upload(stream, filename, target, self.max_bytes, self.quota, occurrence)
        except BaseException:
            self.abandon()
            raise
        self.saved.append(path)
        if not existed:
            self.fresh.add(path)
        return path

    def abandon(self) -> None:
        """Remove the uploads this batch added (the ingest did not run, or ran dry)."""
        for path in self.fresh:
            remove_upload(str(path), self.data_path)

    def settle(self, report: IngestReport, dry_run: bool = False) -> None:
        """Remove the uploads ``report`` rejected as a whole; after a dry run, the new ones too."""
        if dry_run:
            self.abandon()
            return
        failed = {f.path for f in report.failures}
        empty = {c.path for c in report.files_detail if not c.ingested and not c.skipped and c.failed}
        for path in self.saved:
            if not self.keep or str(path) in failed or str(path) in empty:
                remove_upload(str(path), self.data_path)


_STORE_ERRORS = frozenset({"MilvusException", "OperationalError", "DatabaseError", "InterfaceError"})


def store_failure(report: IngestReport, problems: Sequence[str] = ()) -> StoreUnavailable | None:
    """A 503 for an ingest that wrote nothing because a store failed (a driver error in a failure),
    naming the index's ``problems`` when a check found some; None for any other outcome."""
    failed = [f for f in report.failures if f.error.split(":", 1)[0] in _STORE_ERRORS]
    if not failed or report.documents:
        return None
    why = f": {'; '.join(problems)}" if problems else ""
    return StoreUnavailable(f"a store failed while writing {len(failed)} document(s){why}; nothing was ingested "
                            "and the server log has the details", {"failed": len(failed)})

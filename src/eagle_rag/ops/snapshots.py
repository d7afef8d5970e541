"""Snapshots of the embedded configuration: a consistent copy of every store of one data folder.

A snapshot is a folder ``<snapshot_dir>/<name>/`` (``snapshot_dir`` defaults to ``<data_dir>-snapshots``,
next to the data folder) holding ``files/``, a copy of the data folder, and ``manifest.json``: the
Eagle-RAG version and :data:`LAYOUT_VERSION` that wrote it, the document counts by status and the chunk
counts per collection and store, and the size and sha256 of every file.

What is copied: everything in the data folder (the SQLite registry, the Milvus Lite ``milvus.db``
folder with its collections and aliases, ``token_vectors.sqlite``, the tantivy ``lexical/`` indexes,
``uploads/``, and what plugins keep there: the biomed compound index, the datasets catalog caches)
except ``server.json``, the audit log (a history, not a store: a restore keeps the current one) and
SQLite's transient ``-wal``/``-shm``/``-journal`` files. SQLite databases are copied with SQLite's
online backup, so a reader never sees half a page.

Consistency: :func:`create_snapshot` runs under the writer lock it is given (the server's ingest and
delete lock): the vector collections are flushed and the open lexical indexes committed first, so the
copy is the state between two writes. Writes wait for the copy (seconds per GB); searches do not
(they only read). Hashing runs after the lock is released. The files are written to a hidden folder
and renamed into place, so a snapshot that is listed is complete.

Only the embedded configuration is covered: with a PostgreSQL registry or a Milvus server the stores
live elsewhere and :func:`require_embedded` refuses in one line (docs/deploy.md names their tools).
Restoring is :mod:`eagle_rag.ops.snapshot_restore`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eagle_rag import __version__
from eagle_rag.client.server_file import SERVER_FILE
from eagle_rag.errors import InvalidRequest, NotFound
from eagle_rag.types import DocumentStatus

if TYPE_CHECKING:
    from eagle_rag.kernel.runtime import Runtime as Engine
    from eagle_rag.settings import Settings

LAYOUT_VERSION = 1
"""The layout of the stores in a data folder (file names, Milvus Lite ``<name>__v<n>`` collections behind
aliases, the tantivy schema, the registry tables). A change that an older Eagle-RAG cannot read bumps it;
a snapshot is restored only by an Eagle-RAG of the same layout version."""
MANIFEST = "manifest.json"
FILES = "files"
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
SQLITE_HEADER = b"SQLite format 3\x00"
TRANSIENT_SUFFIXES = ("-wal", "-shm", "-journal")
HIDDEN_PREFIX = ".partial-"
HASH_BLOCK = 1 << 20
COPY_ATTEMPTS = 3


@dataclass(frozen=True)
class FileEntry:
    """One copied file: its path under ``files/`` (POSIX separators), size and sha256."""

    path: str
    bytes: int
    sha256: str


@dataclass(frozen=True)
class SnapshotManifest:
    """What ``manifest.json`` records (see the module docstring)."""

    name: str
    created_at: str
    eagle_rag_version: str
    layout_version: int
    profile: str
    documents: dict[str, int]
    chunks: dict[str, dict[str, int]]
    files: list[FileEntry] = field(default_factory=list)
    copy_s: float = 0.0
    """Seconds the writer lock was held (flush and copy)."""

    @property
    def total_bytes(self) -> int:
        return sum(f.bytes for f in self.files)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "total_bytes": self.total_bytes}

    def summary(self) -> dict[str, Any]:
        """The manifest as listed (``GET /snapshots``, ``snapshot list``): ``files`` as a count."""
        return {**self.to_dict(), "files": len(self.files)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SnapshotManifest:
        return cls(name=str(data["name"]), created_at=str(data["created_at"]),
                   eagle_rag_version=str(data["eagle_rag_version"]), layout_version=int(data["layout_version"]),
                   profile=str(data.get("profile", "")), documents=dict(data.get("documents") or {}),
                   chunks=dict(data.get("chunks") or {}),
                   files=[FileEntry(str(f["path"]), int(f["bytes"]), str(f["sha256"])) for f in data["files"]],
                   copy_s=float(data.get("copy_s", 0.0)))


def require_embedded(settings: Settings) -> None:
    """Raise InvalidRequest (one line) unless every store lives in the data folder."""
    if not settings.registry_url.startswith("sqlite") or not settings.milvus_uri.endswith(".db"):
        raise InvalidRequest("eagle-rag snapshot copies the embedded stores of a data folder; with a PostgreSQL "
                             "registry or a Milvus server use pg_dump and Milvus backup tooling instead (see "
                             "docs/deploy.md, Backups)", {"field": "snapshot"})


def check_name(name: str) -> str:
    """``name`` when it is a valid snapshot name (letters, digits, ``_ . -``, at most 64), else InvalidRequest."""
    if not NAME_PATTERN.fullmatch(name or ""):
        raise InvalidRequest(f"invalid snapshot name {name[:80]!r}: use 1 to 64 letters, digits, '_', '.' or '-', "
                             "starting with a letter or digit", {"field": "name"})
    return name


def default_name() -> str:
    return datetime.now(UTC).strftime("snap-%Y%m%dT%H%M%S%fZ")


def snapshot_folder(settings: Settings, name: str) -> Path:
    """The folder of an existing snapshot ``name``; NotFound when there is none."""
    folder = settings.snapshot_path / check_name(name)
    if not (folder / MANIFEST).is_file():
        raise NotFound(f"no snapshot named {name!r} in {settings.snapshot_path}", {"name": name})
    return folder


def read_manifest(folder: Path) -> SnapshotManifest:
    """The manifest of a snapshot folder; InvalidRequest when it cannot be read."""
    try:
        return SnapshotManifest.from_dict(json.loads((folder / MANIFEST).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InvalidRequest(f"the manifest of snapshot {folder.name!r} cannot be read: {exc}",
                             {"name": folder.name}) from exc


def list_snapshots(settings: Settings) -> list[SnapshotManifest]:
    """Every complete snapshot of ``settings.snapshot_path``, oldest first."""
    root = settings.snapshot_path
    if not root.is_dir():
        return []
    found = [read_manifest(p) for p in root.iterdir() if (p / MANIFEST).is_file() and NAME_PATTERN.fullmatch(p.name)]
    return sorted(found, key=lambda m: (m.created_at, m.name))


def delete_snapshot(settings: Settings, name: str) -> None:
    """Remove snapshot ``name`` (NotFound when there is none)."""
    shutil.rmtree(snapshot_folder(settings, name))


def excluded(settings: Settings) -> set[Path]:
    """The paths of the data folder that a snapshot leaves out (and a restore keeps)."""
    data = settings.data_path.resolve()
    out = {data / SERVER_FILE, Path(settings.audit.jsonl_path or data / "audit.jsonl").resolve(),
           settings.snapshot_path.resolve()}
    return out


def data_files(settings: Settings) -> Iterator[Path]:
    """The files of the data folder a snapshot copies, sorted (see :func:`excluded`)."""
    data = settings.data_path.resolve()
    skip = excluded(settings)
    for root, dirs, files in os.walk(data):
        here = Path(root)
        dirs[:] = sorted(d for d in dirs if here / d not in skip and not d.startswith((HIDDEN_PREFIX, ".restore")))
        for name in sorted(files):
            path = here / name
            if path in skip or name.endswith(TRANSIENT_SUFFIXES) or name.startswith((".server-", ".restore")):
                continue
            yield path


def _is_sqlite(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def copy_file(source: Path, target: Path) -> None:
    """Copy one file; a SQLite database through SQLite's online backup (consistent under readers)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if not _is_sqlite(source):
        shutil.copy2(source, target)
        return
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def store_counts(engine: Engine) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
    """(documents by status, chunks per collection: ``vectors`` and ``lexical``), as doctor counts them."""
    from eagle_rag.ingest.writer import vector_collections

    documents = {s.value: engine.registry.count(status=s) for s in DocumentStatus}
    chunks: dict[str, dict[str, int]] = {}
    for name in vector_collections(engine.ctx):
        vectors = engine.vectors.count(name) if engine.vectors.has_collection(name) else 0
        lexical = engine.lexical_for(name).count() if engine.has_lexical_index(name) else 0
        if vectors or lexical:
            chunks[name] = {"vectors": vectors, "lexical": lexical}
    return {k: v for k, v in documents.items() if v}, chunks


def _quiesce(engine: Engine) -> None:
    """Seal what is buffered: flush every vector collection, commit every open lexical index."""
    engine.flush()
    for index in engine.lexical.values():  # only the indexes this engine opened
        index.commit()


def _listing(settings: Settings) -> dict[Path, tuple[int, int]]:
    return {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in data_files(settings)}


def _copy_settled(settings: Settings, target: Path) -> list[str]:
    """Copy the data folder's files into ``target``; copy again (up to :data:`COPY_ATTEMPTS` times) while a
    store's background work (Milvus Lite sealing or indexing a flushed segment) changed a file meanwhile.
    Returns the copied paths, relative and POSIX."""
    data = settings.data_path.resolve()
    for attempt in range(COPY_ATTEMPTS):
        shutil.rmtree(target, ignore_errors=True)
        before = _listing(settings)
        try:
            for path in before:
                copy_file(path, target / path.relative_to(data))
        except FileNotFoundError:
            if attempt == COPY_ATTEMPTS - 1:
                raise
            continue  # a segment was replaced while it was copied
        if _listing(settings) == before:
            break
    return [p.relative_to(data).as_posix() for p in before]


def create_snapshot(engine: Engine, name: str | None = None,
                    lock: AbstractContextManager[Any] | None = None) -> SnapshotManifest:
    """Copy every store of ``engine``'s data folder into snapshot ``name`` (default: a UTC time stamp).

    ``lock`` is the writer lock (the server's ingest lock); it is held while the stores are flushed and
    copied, and released before the files are hashed. Returns the manifest.

    Raises:
        InvalidRequest: an invalid name, a name already taken, or a configuration whose stores are servers.
    """
    settings = engine.settings
    require_embedded(settings)
    name = check_name(name or default_name())
    root = settings.snapshot_path
    final = root / name
    if final.exists():
        raise InvalidRequest(f"a snapshot named {name!r} already exists in {root}", {"name": name})
    root.mkdir(parents=True, exist_ok=True)
    staging = root / f"{HIDDEN_PREFIX}{name}-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        with lock if lock is not None else nullcontext():
            started = time.monotonic()
            _quiesce(engine)
            documents, chunks = store_counts(engine)
            copied = _copy_settled(settings, staging / FILES)
            copy_s = time.monotonic() - started
        files = [FileEntry(rel, (staging / FILES / rel).stat().st_size, sha256_of(staging / FILES / rel))
                 for rel in copied]
        manifest = SnapshotManifest(name=name, created_at=datetime.now(UTC).isoformat(timespec="microseconds"),
                                    eagle_rag_version=__version__, layout_version=LAYOUT_VERSION,
                                    profile=settings.profile, documents=documents, chunks=chunks, files=files,
                                    copy_s=round(copy_s, 3))
        (staging / MANIFEST).write_text(json.dumps(manifest.to_dict(), indent=2), encoding="utf-8")
        os.replace(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return manifest

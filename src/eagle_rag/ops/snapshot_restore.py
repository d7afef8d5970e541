"""Restoring a snapshot (:mod:`eagle_rag.ops.snapshots`) into the data folder, whole or not at all.

Restore needs the data folder to itself (no server, no other process: the caller checks with
:func:`eagle_rag.client.server_file.ensure_folder_free`). It:

1. refuses, in one line, a snapshot of another :data:`~eagle_rag.ops.snapshots.LAYOUT_VERSION` or whose
   files do not match their manifest (size or sha256), before anything in the data folder changes;
2. copies the snapshot's files into ``<data_dir>/.restore-staging`` and checks their hashes there;
3. writes the journal ``<data_dir>/.restore-journal.json`` (the names of the staged entries), moves
   every current entry of the data folder into ``.restore-replaced`` (the audit log and
   ``server.json`` stay), moves the staged entries into place, then removes the journal and the
   replaced entries.

A restore killed in step 3 leaves the journal: :func:`finish_interrupted` (which every restore runs
first, and the index check reports) rolls it forward from the journal, so the folder ends as the
snapshot, never as a mix. Killed before step 3, the data folder is untouched (the staging is
discarded by the next restore).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from eagle_rag import __version__
from eagle_rag.errors import InvalidRequest
from eagle_rag.ops.snapshots import (
    FILES,
    LAYOUT_VERSION,
    SnapshotManifest,
    excluded,
    read_manifest,
    sha256_of,
    snapshot_folder,
)

if TYPE_CHECKING:
    from eagle_rag.settings import Settings

STAGING = ".restore-staging"
REPLACED = ".restore-replaced"
JOURNAL = ".restore-journal.json"
WORK_NAMES = frozenset({STAGING, REPLACED, JOURNAL})


def check_compatible(manifest: SnapshotManifest) -> None:
    """Raise InvalidRequest (one line) unless this Eagle-RAG reads the snapshot's store layout."""
    if manifest.layout_version != LAYOUT_VERSION:
        raise InvalidRequest(
            f"snapshot {manifest.name!r} was written by Eagle-RAG {manifest.eagle_rag_version} with store layout "
            f"{manifest.layout_version}; this Eagle-RAG {__version__} reads layout {LAYOUT_VERSION}: restore it "
            f"with Eagle-RAG {manifest.eagle_rag_version}",
            {"name": manifest.name, "layout_version": manifest.layout_version})


def check_files(manifest: SnapshotManifest, files: Path) -> None:
    """Raise InvalidRequest naming the first file of ``files`` that is missing or differs from the manifest."""
    for entry in manifest.files:
        path = files / entry.path
        if not path.is_file() or path.stat().st_size != entry.bytes or sha256_of(path) != entry.sha256:
            raise InvalidRequest(f"snapshot {manifest.name!r} is damaged: {entry.path} is missing or differs from "
                                 "its manifest (size or sha256)", {"name": manifest.name, "file": entry.path})


def _kept(settings: Settings) -> set[str]:
    """Top-level names of the data folder that a restore leaves in place."""
    data = settings.data_path.resolve()
    return {p.name for p in excluded(settings) if p.parent == data} | WORK_NAMES


def _swap(data: Path, staged: list[str], kept: set[str]) -> None:
    """Step 3 from the journal: idempotent, so an interrupted swap is finished by running it again."""
    staging, replaced = data / STAGING, data / REPLACED
    replaced.mkdir(exist_ok=True)
    for entry in sorted(data.iterdir()):
        still_staged = (staging / entry.name).exists()
        if entry.name in kept or (entry.name in staged and not still_staged):
            continue  # kept, or already the snapshot's
        target = replaced / entry.name
        if target.exists():
            shutil.rmtree(target) if target.is_dir() else target.unlink()
        os.replace(entry, target)
    for name in staged:
        if (staging / name).exists():
            os.replace(staging / name, data / name)
    (data / JOURNAL).unlink()
    shutil.rmtree(replaced, ignore_errors=True)
    shutil.rmtree(staging, ignore_errors=True)


def finish_interrupted(settings: Settings) -> bool:
    """Finish a restore that was killed while swapping (its journal is there); True when there was one."""
    data = settings.data_path
    journal = data / JOURNAL
    if not journal.is_file():
        return False
    staged = list(json.loads(journal.read_text(encoding="utf-8"))["entries"])
    _swap(data, staged, _kept(settings))
    return True


def restore_snapshot(settings: Settings, name: str) -> SnapshotManifest:
    """Replace the stores of the data folder with snapshot ``name``; returns its manifest.

    Raises:
        NotFound: no such snapshot.
        InvalidRequest: another store layout, a damaged snapshot, or a configuration whose stores are servers.
    """
    from eagle_rag.ops.snapshots import require_embedded

    require_embedded(settings)
    folder = snapshot_folder(settings, name)
    manifest = read_manifest(folder)
    check_compatible(manifest)
    data = settings.data_path
    data.mkdir(parents=True, exist_ok=True)
    finish_interrupted(settings)
    staging = data / STAGING
    shutil.rmtree(staging, ignore_errors=True)
    try:
        shutil.copytree(folder / FILES, staging) if (folder / FILES).is_dir() else staging.mkdir()
        check_files(manifest, staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    staged = sorted(p.name for p in staging.iterdir())
    tmp = data / f"{JOURNAL}.tmp"
    tmp.write_text(json.dumps({"snapshot": manifest.name, "entries": staged}), encoding="utf-8")
    os.replace(tmp, data / JOURNAL)
    _swap(data, staged, _kept(settings))
    return manifest

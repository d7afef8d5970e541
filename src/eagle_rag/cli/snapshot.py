"""``eagle-rag snapshot create|list|restore|delete``: snapshots of the data folder (:mod:`eagle_rag.ops.snapshots`).

``create``, ``list`` and ``delete`` ask the :class:`~eagle_rag.service.backend.Backend`: the server that
owns the data folder when one runs (``POST``/``GET``/``DELETE /snapshots``), else this process on the
folder. ``restore`` replaces the stores, so it needs the folder to itself and refuses in one line while
a server owns it; after restoring it runs the ``doctor`` check and exits 1 when that finds a problem.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from eagle_rag.cli.options import ApiKey, JsonOut, Local, Url

if TYPE_CHECKING:
    from eagle_rag.service.backend import Backend
    from eagle_rag.settings import Settings

snapshot_app = typer.Typer(help="Snapshots of the data folder: create, list, restore, delete.", no_args_is_help=True)
console = Console()

Name = Annotated[str, typer.Argument(help="the snapshot's name")]


def _settings() -> Settings:
    from eagle_rag.settings import load_settings

    return load_settings()


@contextmanager
def _backend(action: str, url: str | None, api_key: str | None, local: bool) -> Iterator[tuple[Settings, Backend]]:
    """The settings and the Backend of a snapshot command; the engine opens only for ``create`` (listing
    and deleting read the snapshot folder)."""
    from eagle_rag.service.backend import open_backend, resolve_target

    settings = _settings()
    with open_backend(settings, resolve_target(settings, url, api_key, local), action, lazy=True) as backend:
        yield settings, backend


def _size(total: int) -> str:
    return f"{total / 1e6:.1f} MB"


@snapshot_app.command("create")
def create(name: Annotated[str | None, typer.Argument(help="the snapshot's name (default: snap-<UTC time>)")] = None,
           url: Url = None, api_key: ApiKey = None, local: Local = False, json_out: JsonOut = False) -> None:
    """Copy every store of the data folder (registry, vector collections, lexical index, uploads, plugin
    stores) into a new snapshot under ``snapshot_dir``. Ingests wait while it copies; searches do not."""
    from eagle_rag.ops.snapshots import check_name

    if name is not None:
        check_name(name)
    with _backend("snapshot create", url, api_key, local) as (_, backend):
        manifest = backend.create_snapshot(name)
    if json_out:
        print(json.dumps(manifest, indent=2))
        return
    docs = sum(manifest["documents"].values())
    console.print(f"snapshot [bold]{manifest['name']}[/]: {len(manifest['files'])} files, "
                  f"{_size(manifest['total_bytes'])}, {docs} documents; writes waited {manifest['copy_s']:.2f} s")


@snapshot_app.command("list")
def list_(url: Url = None, api_key: ApiKey = None, local: Local = False, json_out: JsonOut = False) -> None:
    """The snapshots of the data folder, oldest first."""
    with _backend("snapshot list", url, api_key, local) as (settings, backend):
        rows = backend.snapshots()
    if json_out:
        print(json.dumps(rows, indent=2))
        return
    table = Table("name", "created", "version", "layout", "documents", "files", "size")
    for row in rows:
        table.add_row(row["name"], row["created_at"], row["eagle_rag_version"], str(row["layout_version"]),
                      str(sum(row["documents"].values())), str(row["files"]), _size(row["total_bytes"]))
    console.print(table if rows else f"no snapshot in {settings.snapshot_path}")


@snapshot_app.command("restore")
def restore(name: Name, json_out: JsonOut = False) -> None:
    """Replace every store of the data folder with snapshot NAME (the audit log stays). Needs the folder to
    itself: stop the server first. Refuses a snapshot of another store layout or a damaged one before
    anything changes; runs the doctor check afterwards (exit 1 when it finds a problem)."""
    from eagle_rag.cli.doctor import _show
    from eagle_rag.ops.snapshot_restore import restore_snapshot
    from eagle_rag.service.backend import Target, open_backend, require_local

    settings = _settings()
    require_local(settings, "snapshot restore")
    manifest = restore_snapshot(settings, name)
    if not json_out:
        console.print(f"restored snapshot [bold]{manifest.name}[/] ({manifest.created_at}, "
                      f"{sum(manifest.documents.values())} documents); checking the stores:")
    with open_backend(settings, Target(), "snapshot restore") as backend:  # the folder itself, as restored
        report = backend.doctor()
    _show(report, json_out)


@snapshot_app.command("delete")
def delete(name: Name, url: Url = None, api_key: ApiKey = None, local: Local = False) -> None:
    """Remove snapshot NAME."""
    from eagle_rag.ops.snapshots import check_name

    check_name(name)
    with _backend("snapshot delete", url, api_key, local) as (_, backend):
        backend.delete_snapshot(name)
    console.print(f"deleted snapshot {name}")


def register_snapshot_commands(app: typer.Typer) -> None:
    """Add ``snapshot`` to the ``eagle-rag`` command line."""
    app.add_typer(snapshot_app, name="snapshot")

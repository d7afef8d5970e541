"""``/snapshots``: the operator's snapshots of the data folder (:mod:`eagle_rag.ops.snapshots`), taken by the
server that owns it (``eagle-rag snapshot create|list|delete`` call these when a server is running).

``POST /snapshots`` takes the ingest lock while it flushes and copies the stores: ingests and deletes
wait for it, searches do not. Guarded like every other route (``api.api_key``, the cross-site and host
checks of :mod:`eagle_rag.service.guard`). There is no restore route: a restore replaces the stores the
server has open, so it runs with the server stopped (``eagle-rag snapshot restore``).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Body, Depends, Path

from eagle_rag.api.deps import ERROR_RESPONSES, get_engine, get_write_lock
from eagle_rag.ops import snapshots

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

router = APIRouter(tags=["health"])
NAME_PATTERN = snapshots.NAME_PATTERN.pattern
SnapshotName = Annotated[str, Path(pattern=NAME_PATTERN, description="the snapshot's name")]


@router.post("/snapshots", responses=ERROR_RESPONSES, response_model=dict[str, Any], operation_id="create_snapshot",
             summary="Copy every store of the data folder into a new snapshot (ingests wait, searches do not)")
def create_snapshot(name: Annotated[str | None, Body(embed=True, pattern=NAME_PATTERN,
                                                     description="default: snap-<UTC time>")] = None,
                    engine: Engine = Depends(get_engine),
                    lock: threading.Lock = Depends(get_write_lock)) -> dict[str, Any]:
    """The new snapshot's manifest (``eagle-rag snapshot create --json``). 400 for a name already taken or
    a server configuration (PostgreSQL, Milvus server), whose backups are the servers' own tools."""
    return snapshots.create_snapshot(engine, name, lock).to_dict()


@router.get("/snapshots", responses=ERROR_RESPONSES, response_model=list[dict[str, Any]],
            operation_id="list_snapshots", summary="The snapshots of the data folder, oldest first")
def list_snapshots(engine: Engine = Depends(get_engine)) -> list[dict[str, Any]]:
    """Each snapshot's manifest without its file list (``files`` is the number of files)."""
    return [m.summary() for m in snapshots.list_snapshots(engine.settings)]


@router.delete("/snapshots/{name}", responses=ERROR_RESPONSES, response_model=dict[str, Any],
               operation_id="delete_snapshot", summary="Remove a snapshot")
def delete_snapshot(name: SnapshotName, engine: Engine = Depends(get_engine)) -> dict[str, Any]:
    """404 when there is no such snapshot."""
    snapshots.delete_snapshot(engine.settings, name)
    return {"name": name, "deleted": True}

"""``GET /doctor``: the consistency check of :mod:`eagle_rag.ops.doctor`, run by the server that owns the
data folder (``eagle-rag doctor`` calls it when a server is running). Read-only: the repair needs
the folder to itself and is never run over HTTP."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends

from eagle_rag.api.deps import ERROR_RESPONSES, get_engine, get_write_lock
from eagle_rag.ops import doctor
from eagle_rag.service.health import stores_reachable

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

router = APIRouter(tags=["health"])


@router.get("/doctor", responses=ERROR_RESPONSES, response_model=dict[str, Any], operation_id="doctor",
            summary="Check that the registry, the vector store and the lexical index agree (read-only)")
def doctor_check(engine: Engine = Depends(get_engine),
                 lock: threading.Lock = Depends(get_write_lock)) -> dict[str, Any]:
    """The report of ``eagle-rag doctor --json``: ``ok``, document counts by status, chunk counts per
    collection and store, ``findings``. Runs between writes (it takes the ingest lock)."""
    with lock, stores_reachable(engine.settings):
        return doctor.check(engine).to_dict()

"""``POST /reindex``: a model change without downtime (:mod:`eagle_rag.ops.reindex`), run by the server that owns
the data folder (``eagle-rag reindex`` calls it while a server runs). The answer comes when the switch is
done; searches keep being answered meanwhile, ingests and deletes wait only for the catch-up and the switch
(the ingest lock). Guarded like every other route."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from eagle_rag.api.deps import ERROR_RESPONSES, get_engine, get_write_lock
from eagle_rag.ops import reindex

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

router = APIRouter(tags=["health"])


class ReindexBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    encoder: str | None = Field(None, max_length=1024, description="LABEL=MODEL to build and switch to; LABEL alone "
                                "with rollback or drop_old (optional when one label was reindexed)")
    collections: list[str] | None = Field(None, max_length=100, description="default: every collection of LABEL")
    dim: int | None = Field(None, ge=1, le=65536, description="the model's vector dimension (default: LABEL's)")
    rollback: bool = Field(False, description="point the aliases back to the old collections and the old model")
    drop_old: bool = Field(False, description="drop the collections the last switch kept for rollback")


@router.post("/reindex", responses=ERROR_RESPONSES, response_model=dict[str, Any], operation_id="reindex",
             summary="Rebuild the collections of an encoder label with another model, then switch to them")
def reindex_route(body: ReindexBody, engine: Engine = Depends(get_engine),
                  lock: threading.Lock = Depends(get_write_lock)) -> dict[str, Any]:
    """The report (``label``, ``model_ref``, ``phase``, ``rows`` per collection, ``embedded``, ``seconds``,
    ``resumed``), or with ``rollback``/``drop_old`` the record that was undone or finished."""
    return reindex.run_request(engine, body.encoder, body.collections, body.dim, roll_back=body.rollback,
                               drop=body.drop_old, lock=lock)

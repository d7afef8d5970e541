"""``POST /search``: a thin wrapper over :func:`eagle_rag.service.searching.search`."""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends, Request

from eagle_rag import service
from eagle_rag.api.deps import ERROR_RESPONSES, get_engine, request_id
from eagle_rag.api.models import SearchBatchBody, SearchBatchResponseModel, SearchBody, SearchResponseModel
from eagle_rag.api.overload import full_search_slot
from eagle_rag.errors import InvalidRequest
from eagle_rag.types import SearchRequest

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

router = APIRouter(tags=["search"])


def to_search_request(body: SearchBody) -> SearchRequest:
    """The service request for a body (the dataset-card options live on ``POST /datasets/search``).

    Raises InvalidRequest when ``image`` is not base64.
    """
    image = None
    if body.image is not None:
        try:
            image = base64.b64decode(body.image, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise InvalidRequest(f"image is not base64 ({exc})", {"field": "image"}) from exc
    return SearchRequest(
        query=body.query, top_k=body.top_k, kb_names=tuple(body.kb_names), document_ids=tuple(body.document_ids),
        tags=tuple(body.tags), mode=body.mode, explain=body.explain, has_image=body.has_image, offset=body.offset,
        source_types=tuple(body.source_types), chunk_types=tuple(body.chunk_types), sections=tuple(body.sections),
        doc_types=tuple(body.doc_types), published_from=body.published_from, published_to=body.published_to,
        image=image, recency=body.recency, max_per_document=body.max_per_document, diversity=body.diversity,
        facets=tuple(f.value for f in body.facets), min_relevance=body.min_relevance,
    )


def to_search_requests(bodies: list[SearchBody]) -> list[SearchRequest]:
    """The service requests of a batch; a body that cannot be one (an image that is not base64) fails
    the batch with InvalidRequest naming its index, as :func:`eagle_rag.service.searching.search_many` does."""
    requests = []
    for index, body in enumerate(bodies):
        try:
            requests.append(to_search_request(body))
        except InvalidRequest as exc:
            raise InvalidRequest(f"searches[{index}]: {exc.message}", {**exc.details, "index": index}) from exc
    return requests


@router.post("/search", response_model=SearchResponseModel, responses=ERROR_RESPONSES,
             summary="Search the index (hybrid BM25 + dense, fused by RRF)", operation_id="search")
def search(body: SearchBody, request: Request, engine: Engine = Depends(get_engine)) -> dict[str, Any]:
    """Hits plus what happened: ``total``, ``exhaustive`` (true when every match is returned) and,
    when empty, ``empty_reason`` and how many documents each filter excludes on its own.
    ``explain=true`` adds each hit's score trail. The engine runs in the threadpool."""
    with full_search_slot(request, [body.mode]):
        response = service.search(engine, to_search_request(body))
    out = response.to_dict()
    out["warnings"] = list(response.warnings)
    out["request_id"] = request_id(request)
    return out


@router.post("/search/batch", response_model=SearchBatchResponseModel, responses=ERROR_RESPONSES,
             summary="Several searches in one request (at most api.max_batch)", operation_id="search_batch")
def search_batch(body: SearchBatchBody, request: Request, engine: Engine = Depends(get_engine)) -> dict[str, Any]:
    """``results``: one ``/search`` answer per search, in order. Every search is checked before any
    runs: one bad search is a 400 (422 for a value of the wrong type or an unknown field) whose
    ``details.index`` names it."""
    with full_search_slot(request, [b.mode for b in body.searches]):
        responses = service.search_many(engine, to_search_requests(body.searches))
    rid = request_id(request)
    return {"results": [{**response.to_dict(), "warnings": list(response.warnings), "request_id": rid}
                        for response in responses],
            "request_id": rid}

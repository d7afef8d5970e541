"""``POST /search``: a thin wrapper over :func:`eagle_rag.service.search`."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends, Request

from eagle_rag import service
from eagle_rag.api.deps import ERROR_RESPONSES, get_engine, request_id
from eagle_rag.api.models import SearchBody, SearchResponseModel
from eagle_rag.types import SearchRequest

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

router = APIRouter(tags=["search"])
_REQUEST_FIELDS = {f.name for f in dataclasses.fields(SearchRequest)}
_OPTION_DEFAULTS = {"strict": False, "synonyms": True}


def to_search_request(body: SearchBody) -> tuple[SearchRequest, list[str]]:
    """The service request for a body, and a warning for each option the core search cannot apply.

    ``strict`` and ``synonyms`` are passed on when :class:`SearchRequest` has such fields; until
    then a non-default value is reported (never silently ignored).
    """
    kwargs: dict[str, Any] = {
        "query": body.query, "top_k": body.top_k, "kb_names": tuple(body.kb_names),
        "document_ids": tuple(body.document_ids), "tags": tuple(body.tags), "mode": body.mode,
        "explain": body.explain, "has_image": body.has_image,
    }
    warnings: list[str] = []
    for name, default in _OPTION_DEFAULTS.items():
        value = getattr(body, name)
        if name in _REQUEST_FIELDS:
            kwargs[name] = value
        elif value != default:
            warnings.append(f"{name}={str(value).lower()} applies to POST /datasets/search only; "
                            "the core search did not use it")
    return SearchRequest(**kwargs), warnings


@router.post("/search", response_model=SearchResponseModel, responses=ERROR_RESPONSES,
             summary="Search the index (hybrid BM25 + dense, fused by RRF)", operation_id="search")
def search(body: SearchBody, request: Request, engine: Engine = Depends(get_engine)) -> dict[str, Any]:
    """Hits plus what happened: ``total``, ``exhaustive`` (true when every match is returned) and,
    when empty, ``empty_reason`` and how many documents each filter excludes on its own.
    ``explain=true`` adds each hit's score trail. The engine runs in the threadpool."""
    search_request, warnings = to_search_request(body)
    response = service.search(engine, search_request)
    out = response.to_dict()
    out["warnings"] = warnings
    out["request_id"] = request_id(request)
    return out

"""The API key as a FastAPI dependency (the rules are :mod:`eagle_rag.service.guard`'s)."""

from __future__ import annotations

from collections.abc import Callable, Collection

from fastapi import Request, Security
from fastapi.security import APIKeyHeader

from eagle_rag.service.envelope import Unauthorized
from eagle_rag.service.guard import API_KEY_HEADER, PUBLIC_PATHS, given_key, key_matches

api_key_header = APIKeyHeader(name=API_KEY_HEADER, auto_error=False,
                              description="required when the server sets api.api_key")


def api_key_dependency(expected: str, public_paths: Collection[str] = PUBLIC_PATHS) -> Callable[..., None]:
    """A FastAPI dependency that raises :class:`Unauthorized` unless the request carries the key."""

    def require_api_key(request: Request, given: str | None = Security(api_key_header)) -> None:
        if request.url.path in public_paths:
            return
        if not key_matches(given if given is not None else given_key(request.headers), expected):
            raise Unauthorized(f"missing or wrong {API_KEY_HEADER} header", {"header": API_KEY_HEADER})

    return require_api_key

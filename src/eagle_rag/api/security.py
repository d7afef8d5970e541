"""Optional API key: the ``X-API-Key`` header, compared in constant time. Off when the key is empty."""

from __future__ import annotations

import hmac
from collections.abc import Callable, Collection

from fastapi import Request, Security
from fastapi.security import APIKeyHeader

from eagle_rag.api.envelope import Unauthorized

API_KEY_HEADER = "X-API-Key"
PUBLIC_PATHS = frozenset({"/health"})

api_key_header = APIKeyHeader(name=API_KEY_HEADER, auto_error=False,
                              description="required when the server sets api.api_key")


def key_matches(given: str | None, expected: str) -> bool:
    """True when ``given`` equals ``expected`` (constant-time comparison of the UTF-8 bytes)."""
    if given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), expected.encode("utf-8"))


def api_key_dependency(expected: str, public_paths: Collection[str] = PUBLIC_PATHS) -> Callable[..., None]:
    """A FastAPI dependency that raises :class:`Unauthorized` unless the header carries the key."""

    def require_api_key(request: Request, given: str | None = Security(api_key_header)) -> None:
        if request.url.path in public_paths:
            return
        if not key_matches(given, expected):
            raise Unauthorized(f"missing or wrong {API_KEY_HEADER} header",
                               {"header": API_KEY_HEADER})

    return require_api_key

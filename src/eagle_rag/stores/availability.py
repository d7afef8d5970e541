"""A store that cannot be reached becomes one clear :class:`~eagle_rag.errors.StoreUnavailable`.

Driver errors for a store that is down (a refused or timed-out connection to PostgreSQL, a Milvus
URI nobody answers on) carry multi-line messages and links; front ends show this one line instead
(``the registry at postgresql+psycopg://app@db:5432/eagle is unreachable: connection refused``).
Credentials in URLs are never shown.
"""

from __future__ import annotations

import re
from typing import Any

from eagle_rag.errors import StoreUnavailable

_MILVUS_UNAVAILABLE = re.compile(r"fail(ed)? connecting|server unavailable|UNAVAILABLE|connection refused",
                                 re.IGNORECASE)
MAX_REASON_CHARS = 200


def redact_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (``postgresql://u:***@host/db``)."""
    return re.sub(r"(://[^/:@]+:)[^@/]+@", r"\1***@", url)


def one_line(exc: BaseException) -> str:
    """The first meaningful line of an exception message, without driver boilerplate."""
    text = str(getattr(exc, "orig", None) or exc)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    reason = lines[0] if lines else type(exc).__name__
    reason = re.sub(r"^\(\S+\)\s*", "", reason)  # "(psycopg.OperationalError) ..."
    message = re.search(r"message=(.*?)\)>?$", reason)
    if message:  # "<MilvusException: (code=2, message=...)>"
        reason = message.group(1)
    refused = re.search(r"connection refused|timeout expired|timed out|could not translate host name",
                        text, re.IGNORECASE)
    if refused and refused.group(0).lower() not in reason.lower():
        reason = f"{reason} ({refused.group(0).lower()})"
    return reason[:MAX_REASON_CHARS]


def is_unavailable(exc: BaseException) -> bool:
    """True for an error that means the store cannot be reached (not a bad request)."""
    if isinstance(exc, StoreUnavailable):
        return True
    name = type(exc).__name__
    if name in {"OperationalError", "InterfaceError"} and "sqlalchemy" in type(exc).__module__:
        return bool(getattr(exc, "connection_invalidated", False)) or _looks_like_connection(exc)
    if name == "MilvusException":
        return getattr(exc, "code", None) == 2 or bool(_MILVUS_UNAVAILABLE.search(str(exc)))
    return False


def _looks_like_connection(exc: BaseException) -> bool:
    text = str(exc).lower()
    return any(part in text for part in ("connection", "could not connect", "timeout", "server closed",
                                         "could not translate host"))


def unavailable(store: str, target: str, exc: BaseException) -> StoreUnavailable:
    """A :class:`StoreUnavailable` naming the store, its (redacted) address and the reason."""
    return StoreUnavailable(f"the {store} at {redact_url(target)} is unreachable: {one_line(exc)}",
                            {"store": store, "target": redact_url(target)})


def as_unavailable(exc: BaseException, milvus_uri: str = "", registry_url: str = "") -> StoreUnavailable:
    """``exc`` (an error for which :func:`is_unavailable` holds) as a one-line StoreUnavailable,
    naming the store's address when it is given."""
    if isinstance(exc, StoreUnavailable):
        return exc
    if type(exc).__name__ == "MilvusException":
        return unavailable("Milvus server", milvus_uri or "its URI", exc)
    return unavailable("document registry", registry_url or "its URL", exc)


def settings_unavailable(exc: BaseException, settings: Any) -> StoreUnavailable:
    """:func:`as_unavailable` with the addresses of ``settings`` (a :class:`~eagle_rag.settings.Settings`)."""
    return as_unavailable(exc, settings.milvus_uri, settings.registry_url)

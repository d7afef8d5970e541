"""Who may call a server (the HTTP API, MCP over HTTP): the optional key, the cross-site and DNS-rebinding
guard, the exposure rule.

- **API key** (``api.api_key``): the ``X-API-Key`` header (or ``Authorization: Bearer <key>``),
  compared in constant time. Off when the key is empty. ``/health`` stays public; the schema and
  docs pages (``/openapi.json``, ``/docs``, ``/redoc``) need the key unless ``api.public_docs``.
- **Cross-site writes.** A browser sends a POST or DELETE from any page it shows, without asking
  first when the body is a form, and always names the page's origin in ``Origin``. Such a request
  (any method but GET, HEAD and OPTIONS, with an ``Origin``) is refused (403 ``cross_site_refused``)
  unless the origin is in ``api.cors_origins`` / ``api.allowed_origins``, or it is the server's own
  origin: the ``Host`` the browser sent, when that host is a loopback name, ``api.host`` or one of
  ``api.allowed_hosts``. A page of another site that re-points its own name at 127.0.0.1 (DNS
  rebinding) names that site in both headers, so it is refused too. A request that carries the
  right key passes. Programs (curl, the Python client) send no ``Origin`` and are not affected.
- **Host names.** Without an API key, every request (every route and method, ``/health`` included)
  must name in ``Host`` a loopback name, ``api.host``, one of ``api.allowed_hosts``, or the address
  the connection reached; anything else is refused (403 ``host_refused``). A DNS-rebinding page
  reaches a loopback server under its own name, so it cannot read ``GET /config`` or ``/documents``
  either. With a key, the key decides.
- **Exposure.** Binding a server to anything but a loopback address without a key is refused
  unless the operator says ``--insecure-no-key`` (:func:`exposure_refusal`).
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from eagle_rag.service.envelope import Forbidden, Unauthorized

API_KEY_HEADER = "X-API-Key"
PUBLIC_PATHS = frozenset({"/health"})
DOCS_PATHS = frozenset({"/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})


class CrossSiteRefused(Forbidden):
    """A browser request from a page of another origin, or naming a host this server is not."""

    code = "cross_site_refused"


class HostRefused(Forbidden):
    """A request naming in ``Host`` a name this server does not answer for (no API key is set)."""

    code = "host_refused"


def key_matches(given: str | None, expected: str) -> bool:
    """True when ``given`` equals ``expected`` (constant-time comparison of the UTF-8 bytes)."""
    if given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), expected.encode("utf-8"))


def given_key(headers: Headers) -> str | None:
    """The key a request carries: ``X-API-Key``, else the token of ``Authorization: Bearer``."""
    key = headers.get(API_KEY_HEADER)
    if key is not None:
        return key
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def is_loopback(host: str) -> bool:
    """True for ``localhost``, ``127.x.x.x`` and ``::1`` (brackets allowed)."""
    name = host.strip("[]").lower()
    return name in LOOPBACK_HOSTS or name.startswith("127.")


def exposure_refusal(host: str, api_key: str, insecure_no_key: bool) -> str | None:
    """Why a server may not bind to ``host`` (one line), or None when it may.

    Any address but a loopback one reaches other machines: it needs ``api.api_key``, or the
    operator's explicit ``--insecure-no-key``.
    """
    if is_loopback(host) or api_key or insecure_no_key:
        return None
    return (f"refusing to serve on {host} without an API key: set EAGLE_RAG_API__API_KEY, bind to 127.0.0.1, "
            "or pass --insecure-no-key")


def _host_name(host_header: str) -> str:
    """``example.org`` of ``example.org:8000``, ``::1`` of ``[::1]:8000``."""
    return (urlsplit(f"//{host_header}").hostname or "").lower()


def _origin(value: str) -> str:
    return value.strip().rstrip("/").lower()


@dataclass(frozen=True)
class GuardPolicy:
    """What :class:`RequestGuard` checks. ``allowed_hosts`` are host names (no port)."""

    api_key: str = ""
    allowed_origins: frozenset[str] = frozenset()
    allowed_hosts: frozenset[str] = LOOPBACK_HOSTS
    key_paths: frozenset[str] = frozenset()
    """Paths that need the key here (the routes' own dependency cannot see them: the docs pages)."""
    key_everywhere: bool = False
    """Every path needs the key (the MCP transport, which has no dependency of its own)."""
    guard_every_method: bool = False
    """Apply the cross-site check to GET too (the MCP transport streams answers over GET)."""

    @classmethod
    def build(cls, api_key: str, origins: Iterable[str], hosts: Iterable[str], bind_host: str, *,
              public_docs: bool = False, mcp: bool = False) -> GuardPolicy:
        """The policy of a server bound to ``bind_host`` with these settings."""
        names = set(LOOPBACK_HOSTS) | {h.strip("[]").lower() for h in hosts if h}
        if bind_host.strip("[]") not in WILDCARD_HOSTS:
            names.add(bind_host.strip("[]").lower())
        key_paths = frozenset() if public_docs or not api_key else DOCS_PATHS
        return cls(api_key, frozenset(_origin(o) for o in origins if o and o != "*"), frozenset(names),
                   key_paths, key_everywhere=mcp and bool(api_key), guard_every_method=mcp)

    def refusal(self, method: str, path: str, headers: Headers,
                server_host: str = "") -> tuple[int, dict[str, object]] | None:
        """``(status, error body)`` when the request is refused, else None. ``server_host`` is the
        address the connection reached (the ASGI scope's ``server``)."""
        key_ok = bool(self.api_key) and key_matches(given_key(headers), self.api_key)
        if self.api_key and not key_ok and (self.key_everywhere or path in self.key_paths):
            unauthorized = Unauthorized(f"missing or wrong {API_KEY_HEADER} header", {"header": API_KEY_HEADER})
            return unauthorized.http_status, unauthorized.to_dict()
        if not self.api_key and "host" in headers:
            host = _host_name(headers["host"])
            if host not in self.allowed_hosts and host != server_host.strip("[]").lower():
                refused = HostRefused(
                    f"refused a request for host {headers['host'][:200]!r}: without api.api_key this server "
                    "answers only for its own address, localhost and api.allowed_hosts (DNS-rebinding guard)",
                    {"host": headers["host"][:200]})
                return refused.http_status, refused.to_dict()
        if key_ok or (method in SAFE_METHODS and not self.guard_every_method):
            return None
        origin = headers.get("origin")
        if origin is None or self._origin_allowed(origin, headers.get("host", "")):
            return None
        error = CrossSiteRefused(
            f"refused a browser request from origin {origin[:200]!r} for host {headers.get('host', '')[:200]!r}: "
            "only the server's own loopback origin and the configured api.cors_origins / api.allowed_origins "
            f"may write; send the {API_KEY_HEADER} header to call from elsewhere",
            {"origin": origin[:200]})
        return error.http_status, error.to_dict()

    def _origin_allowed(self, origin: str, host_header: str) -> bool:
        wanted = _origin(origin)
        if wanted in self.allowed_origins:
            return True
        parts = urlsplit(wanted)
        own = parts.scheme in ("http", "https") and parts.netloc == host_header.lower()
        return own and _host_name(host_header) in self.allowed_hosts


class RequestGuard:
    """Pure ASGI layer applying a :class:`GuardPolicy`; refusals leave in the one error shape."""

    def __init__(self, app: ASGIApp, policy: GuardPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            server = scope.get("server") or ("",)
            refused = self.policy.refusal(scope.get("method", "GET"), scope.get("path", ""), Headers(scope=scope),
                                          str(server[0] or ""))
            if refused is not None:
                status, body = refused
                await JSONResponse(body, status_code=status)(scope, receive, send)
                return
        await self.app(scope, receive, send)

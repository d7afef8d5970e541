"""The web console at ``/`` and offline API docs at ``/docs`` (Swagger UI) and ``/redoc`` (ReDoc).

Everything is served from ``api/static`` (plain HTML, CSS and ES modules, no build step; the
Swagger UI and ReDoc bundles are vendored under ``static/vendor`` with their licences), so the
pages work on a machine with no internet. These are plain Starlette routes outside the OpenAPI
schema and outside the API key: the page holds no data; it asks for the key and sends it with
each API call (``X-API-Key``).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).parent / "static"
STATIC_URL = "/static"
VENDOR_URL = f"{STATIC_URL}/vendor"
FAVICON_URL = f"{STATIC_URL}/favicon.svg"
CONSOLE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
"""The console page runs only its own files: even a value rendered wrongly could not run a script."""


def _openapi_url(request: Request) -> str:
    return f"{request.scope.get('root_path', '')}{request.app.openapi_url}"


async def console_page(request: Request) -> Response:
    """``GET /``: the console (a query in the URL, ``/?q=...``, runs when the page loads)."""
    return FileResponse(STATIC_DIR / "index.html", media_type="text/html",
                        headers={"Content-Security-Policy": CONSOLE_CSP, "Cache-Control": "no-cache"})


async def swagger_page(request: Request) -> Response:
    """``GET /docs``: Swagger UI from the vendored bundle (no CDN, no online validator badge)."""
    return get_swagger_ui_html(openapi_url=_openapi_url(request), title=f"{request.app.title} - Swagger UI",
                               swagger_js_url=f"{VENDOR_URL}/swagger-ui/swagger-ui-bundle.js",
                               swagger_css_url=f"{VENDOR_URL}/swagger-ui/swagger-ui.css",
                               swagger_favicon_url=FAVICON_URL, swagger_ui_parameters={"validatorUrl": None})


async def redoc_page(request: Request) -> Response:
    """``GET /redoc``: ReDoc from the vendored bundle, without web fonts."""
    return get_redoc_html(openapi_url=_openapi_url(request), title=f"{request.app.title} - ReDoc",
                          redoc_js_url=f"{VENDOR_URL}/redoc/redoc.standalone.js",
                          redoc_favicon_url=FAVICON_URL, with_google_fonts=False)


def install_console(app: FastAPI) -> None:
    """Add ``/``, ``/docs``, ``/redoc`` and the static files to ``app`` (built with ``docs_url=None``
    and ``redoc_url=None``, so FastAPI's CDN-backed pages are not there)."""
    app.add_route("/", console_page, methods=["GET"], include_in_schema=False)
    app.add_route("/docs", swagger_page, methods=["GET"], include_in_schema=False)
    app.add_route("/redoc", redoc_page, methods=["GET"], include_in_schema=False)
    app.mount(STATIC_URL, StaticFiles(directory=STATIC_DIR), name="static")

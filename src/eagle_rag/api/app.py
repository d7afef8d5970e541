"""The FastAPI app factory: ``create_app(engine)``.

Layers, outermost first: request context (X-Request-ID, access log, metrics, catch-all 500) ->
CORS (only when ``api.cors_origins`` is set) -> body limits -> error handlers -> routes (core,
then each plugin's through the ``eagle_api_register`` hook). An optional API key
(``api.api_key``) guards every route but ``/health``.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from fastapi import Depends, FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.utils import get_openapi

from eagle_rag import __version__
from eagle_rag.api.deps import ERROR_RESPONSES
from eagle_rag.api.errors import install_error_handlers
from eagle_rag.api.metrics import HttpMetrics
from eagle_rag.api.middleware import BodyLimitMiddleware, RequestContextMiddleware
from eagle_rag.api.routes_browse import router as browse_router
from eagle_rag.api.routes_console import install_console
from eagle_rag.api.routes_doctor import router as doctor_router
from eagle_rag.api.routes_documents import router as documents_router
from eagle_rag.api.routes_health import router as health_router
from eagle_rag.api.routes_reindex import router as reindex_router
from eagle_rag.api.routes_search import router as search_router
from eagle_rag.api.routes_snapshots import router as snapshots_router
from eagle_rag.api.routes_tools import router as tools_router
from eagle_rag.api.security import api_key_dependency
from eagle_rag.service.guard import API_KEY_HEADER, GuardPolicy, RequestGuard

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

DESCRIPTION = """Eagle-RAG: the offline biomedical retrieval engine.

Every error has one shape: `{"error": {"code", "message", "details"}}`. Every answer carries an
`X-Request-ID` header (the caller's, when it sends a plain one). When the server sets
`api.api_key` (env `EAGLE_RAG_API__API_KEY`), send it in the `X-API-Key` header (not needed for
`/health`)."""

_VALIDATION_REF = "#/components/schemas/HTTPValidationError"
_ERROR_REF = "#/components/schemas/ErrorResponse"


def _replace_validation_refs(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: (_ERROR_REF if k == "$ref" and v == _VALIDATION_REF else _replace_validation_refs(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_replace_validation_refs(v) for v in node]
    return node


def _openapi(app: FastAPI) -> dict[str, Any]:
    """The schema, with FastAPI's default 422 body (of plugin routes) replaced by the one error shape."""
    if app.openapi_schema is None:
        schema = get_openapi(title=app.title, version=app.version, description=app.description,
                             routes=app.routes, tags=app.openapi_tags)
        schema = _replace_validation_refs(schema)
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for name in ("HTTPValidationError", "ValidationError"):
            components.pop(name, None)
        app.openapi_schema = schema
    return app.openapi_schema


def create_app(engine: Engine) -> FastAPI:
    """An app serving ``engine`` (the caller owns the engine and closes it)."""
    cfg = engine.settings.api
    key = cfg.api_key.get_secret_value()
    dependencies = [Depends(api_key_dependency(key))] if key else []
    app = FastAPI(title="Eagle-RAG", version=__version__, description=DESCRIPTION, dependencies=dependencies,
                  docs_url=None, redoc_url=None,
                  openapi_tags=[
                      {"name": "search", "description": "the one search service"},
                      {"name": "documents", "description": "ingest, read and delete documents"},
                      {"name": "health", "description": "liveness, plugins, metrics"},
                      {"name": "tools", "description": "the read-only MCP tools, over HTTP"}])
    metrics = HttpMetrics(engine.audit)
    app.state.engine = engine
    app.state.metrics = metrics
    app.state.write_lock = threading.Lock()
    install_error_handlers(app)
    # browse first: its /documents/{id}/chunks must win over the document routes, whose id may hold a '/'
    for router in (search_router, browse_router, documents_router, health_router, doctor_router, snapshots_router,
                   reindex_router, tools_router):
        app.include_router(router)
    install_console(app)
    engine.pm.hook.eagle_api_register(api=app, engine=engine, error_responses=ERROR_RESPONSES)
    app.add_middleware(BodyLimitMiddleware, max_body=cfg.max_body_bytes, max_upload=cfg.max_upload_bytes,
                       body_timeout_s=cfg.body_timeout_s, max_batch=cfg.max_batch)
    if cfg.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=cfg.cors_origins,
                           allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["Content-Type", API_KEY_HEADER, "X-Request-ID"],
                           expose_headers=["X-Request-ID"])
    app.add_middleware(RequestGuard, policy=GuardPolicy.build(
        key, [*cfg.cors_origins, *cfg.allowed_origins], cfg.allowed_hosts, cfg.host, public_docs=cfg.public_docs))
    app.add_middleware(RequestContextMiddleware, metrics=metrics)
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app

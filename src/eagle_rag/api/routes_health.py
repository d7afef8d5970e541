"""``GET /health`` (and ``HEAD``), ``GET /health/plugins`` and ``GET /metrics``."""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse

from eagle_rag import __version__
from eagle_rag.api.deps import ERROR_RESPONSES, get_engine
from eagle_rag.api.errors import public_body
from eagle_rag.api.health import check_stores, run_probe
from eagle_rag.api.metrics import CONTENT_TYPE
from eagle_rag.api.models import HealthModel, PluginsHealthModel
from eagle_rag.kernel.plugin_manager import hooks_by_plugin
from eagle_rag.service.health import cached_index_state

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

router = APIRouter(tags=["health"])
RECENT_DECISIONS = 50


@router.get("/health", response_model=HealthModel, responses=ERROR_RESPONSES,
            summary="Liveness and the state of each store", operation_id="health")
def health(request: Request, engine: Engine = Depends(get_engine)) -> dict[str, Any]:
    """Always 200 while the process serves: ``status`` is ``degraded`` when a store is down or slow
    (each store gets ``api.health_timeout_s``), a store's file is gone, the stores' chunk counts
    disagree with the registry (checked at most every few seconds; see :mod:`eagle_rag.service.health`)
    or a plugin stage failed; ``reasons`` says which. Public even when an API key is set."""
    stores = check_stores(engine, engine.settings.api.health_timeout_s)
    plugins = engine.audit.degraded_plugins()
    reasons = [f"{name}: {s['state']}" + (f" ({s['error']})" if s.get("error") else "")
               for name, s in stores.items() if s["state"] != "ok"]
    if not reasons:  # the stores answer: do their counts agree with the registry? (bounded like a probe)
        check = run_probe(lambda: {"problems": list(cached_index_state(engine).problems)},
                          engine.settings.api.health_timeout_s)
        reasons += check["info"].get("problems", []) if check["state"] == "ok" else [f"index check: {check['error']}"]
    reasons += [f"plugin {name}: {info['last']}" for name, info in plugins.items()]
    body = {"status": "degraded" if reasons else "ok", "version": __version__, "profile": engine.settings.profile,
            "stores": stores,
            "degraded_plugins": plugins, "reasons": reasons, "image_models": engine.encoders.image_models()}
    return public_body(request, body)


@router.head("/health", include_in_schema=False)
def health_head(request: Request, engine: Engine = Depends(get_engine)) -> Response:
    """``HEAD /health`` (monitors): the status and headers of ``GET /health``; the server sends no body."""
    return JSONResponse(health(request, engine))


@router.get("/health/plugins", response_model=PluginsHealthModel, responses=ERROR_RESPONSES,
            summary="Loaded plugins, the hooks each answers, recent decisions, audit counts",
            operation_id="health_plugins")
def health_plugins(request: Request, engine: Engine = Depends(get_engine)) -> dict[str, Any]:
    """The plugins and their hooks, the MCP tools, the latest audit decisions and the audit counts; paths
    in decisions (an uploaded file that failed) are shown as ``/search`` hits show them (``public_path``)."""
    from eagle_rag.service.core_tools import build_tool_registry
    from eagle_rag.service.tools import ToolRegistrationError

    hooks = hooks_by_plugin(engine.pm)
    try:
        tools, tools_error = build_tool_registry(engine).names(), None
    except ToolRegistrationError as exc:
        tools, tools_error = [], str(exc)
    return public_body(request, {
        "profile": engine.settings.profile,
        "default_namespace": engine.settings.plugins.default_namespace,
        "plugins": [{"name": name, "hooks": names} for name, names in sorted(hooks.items())],
        "mcp_tools": tools,
        "mcp_error": tools_error,
        "recent_decisions": [json.loads(json.dumps(dataclasses.asdict(d), default=str))
                             for d in engine.audit.ring.recent(RECENT_DECISIONS)],
        "audit": engine.audit.stats(),
    })


_METRICS_EXAMPLE = ('# TYPE eagle_rag_http_requests_total counter\n'
                    'eagle_rag_http_requests_total{method="POST",route="/search",status="200"} 12.0\n')


@router.get("/metrics", responses={**ERROR_RESPONSES, 200: {
                "description": "Prometheus text format 0.0.4",
                "content": {"text/plain": {"schema": {"type": "string"}, "example": _METRICS_EXAMPLE}}}},
            summary="Prometheus metrics (text exposition format)", operation_id="metrics",
            response_class=Response)
def metrics(request: Request) -> Response:
    return Response(content=request.app.state.metrics.render(), media_type=CONTENT_TYPE)

"""The HTTP API (FastAPI): ``create_app(engine)``; ``eagle-rag serve`` runs it with uvicorn.

Plugins add routes through the ``eagle_api_register(api, engine, error_responses)`` hook; they pass
``responses=error_responses`` to document the one error shape.
"""

from __future__ import annotations

from eagle_rag.api.app import create_app
from eagle_rag.api.deps import ERROR_RESPONSES
from eagle_rag.service.envelope import error_body

__all__ = ["ERROR_RESPONSES", "create_app", "error_body"]

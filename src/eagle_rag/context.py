"""The context every hook call receives."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from eagle_rag.audit import PluginAudit
from eagle_rag.settings import Settings


@dataclass
class HookContext:
    """Plugin namespace, settings, audit, and ``extra``: state shared across one request.

    ``extra`` is per request (e.g. ``extra["retrieval_intent"]``); make a fresh context per
    request with :meth:`for_request`. ``services`` holds engine objects plugins may use
    (``registry``, ``vectors``, ``lexical``, ``encoders``, ``embed``).
    """

    namespace: str
    settings: Settings
    audit: PluginAudit
    extra: dict[str, Any] = field(default_factory=dict)
    services: dict[str, Any] = field(default_factory=dict)
    request_id: str = ""

    def for_request(self, namespace: str | None = None) -> HookContext:
        return HookContext(
            namespace=namespace or self.namespace,
            settings=self.settings,
            audit=self.audit,
            extra={},
            services=self.services,
            request_id=uuid.uuid4().hex[:16],
        )

    def plugin_options(self, name: str) -> dict[str, Any]:
        return self.settings.plugin_options(name)

    def log_decision(self, category: str, plugin: str = "core", summary: str = "", **data: Any) -> None:
        self.audit.log_decision(category, plugin=plugin, summary=summary,
                                request_id=self.request_id, **data)

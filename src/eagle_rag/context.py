"""The context every hook call receives, and the typed engine services it carries."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from eagle_rag.kernel.audit import PluginAudit
from eagle_rag.settings import Settings

if TYPE_CHECKING:
    import pluggy

    from eagle_rag.encoders.registry import EncoderRegistry
    from eagle_rag.protocols import DocumentRegistry, LexicalIndex, VectorStore
    from eagle_rag.stores.token_vectors import TokenVectorStore

T = TypeVar("T")


class ServiceUnavailable(LookupError):
    """A service that this context was built without was asked for (e.g. a unit test's context)."""


class _Missing:
    """Stands in for a service a context was built without; any use raises :class:`ServiceUnavailable`."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        raise ServiceUnavailable(f"service {self._name!r} is not available in this context")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise ServiceUnavailable(f"service {self._name!r} is not available in this context")

    def __repr__(self) -> str:
        return f"<missing service {self._name}>"


def _missing(name: str) -> Any:
    return field(default_factory=lambda: _Missing(name))


@dataclass
class Services:
    """The engine objects hooks may use, built once per engine and shared by every request.

    A context built for a unit test may leave some out: using one raises
    :class:`ServiceUnavailable`, and :meth:`has` says beforehand. ``extensions`` holds each
    plugin's own long-lived objects (options, side stores) under the plugin's name; read them with
    :meth:`extension`, which checks their type.
    """

    pm: pluggy.PluginManager = _missing("pm")
    encoders: EncoderRegistry = _missing("encoders")
    registry: DocumentRegistry = _missing("registry")
    vectors: VectorStore = _missing("vectors")
    lexical_for: Callable[[str], LexicalIndex] = _missing("lexical_for")
    tokens: TokenVectorStore = _missing("tokens")
    extensions: dict[str, object] = field(default_factory=dict)

    def has(self, name: str) -> bool:
        """True when the service ``name`` (``"vectors"``, ``"registry"``, ...) was provided."""
        return not isinstance(getattr(self, name, None), _Missing | type(None))

    def extension(self, name: str, kind: type[T]) -> T | None:
        """The object a plugin stored under ``name``, or None; raises TypeError for another type."""
        value = self.extensions.get(name)
        if value is not None and not isinstance(value, kind):
            raise TypeError(f"extension {name!r} is a {type(value).__name__}, not a {kind.__name__}")
        return value

    def set_extension(self, name: str, value: object) -> None:
        self.extensions[name] = value


@dataclass
class HookContext:
    """Plugin namespace, settings, audit, the engine :class:`Services` and ``extra``.

    ``extra`` is state of one request shared across its hook calls (e.g. the search mode); make a
    fresh context per request with :meth:`for_request`.
    """

    namespace: str
    settings: Settings
    audit: PluginAudit
    extra: dict[str, Any] = field(default_factory=dict)
    services: Services = field(default_factory=Services)
    request_id: str = ""
    warnings: list[str] = field(default_factory=list)
    query_vectors: dict[tuple[str, str, str], list[float]] = field(default_factory=dict)
    """Vectors of this request's query texts by (encoder label, kind, text), embedded once per request."""

    def for_request(self, namespace: str | None = None) -> HookContext:
        return HookContext(
            namespace=namespace or self.namespace,
            settings=self.settings,
            audit=self.audit,
            extra={},
            services=self.services,
            request_id=uuid.uuid4().hex[:16],
        )

    def warn(self, message: str) -> None:
        """Tell the caller of this request that its answer is degraded (once per distinct message)."""
        if message not in self.warnings:
            self.warnings.append(message)

    def plugin_options(self, name: str) -> dict[str, Any]:
        return self.settings.plugin_options(name)

    def log_decision(self, category: str, plugin: str = "core", summary: str = "", **data: Any) -> None:
        self.audit.log_decision(category, plugin=plugin, summary=summary,
                                request_id=self.request_id, **data)

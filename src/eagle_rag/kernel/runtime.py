"""The runtime: settings, plugins, encoders and stores wired together for one process.

Building a Runtime is cheap: stores connect and models load on first use. The service modules, the
ingest executors and the operations take a Runtime; :class:`eagle_rag.engine.Engine` adds the public
methods (``search``, ``ingest``, ``warm_up``) on top, so nothing below the engine imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from eagle_rag.context import HookContext, Services
from eagle_rag.encoders.factory import default_registry
from eagle_rag.encoders.registry import EncoderRegistry
from eagle_rag.encoders.versions import STATE_PREFIX, EncoderVersion, apply_encoder_versions
from eagle_rag.ingest.orchestrator import IngestOrchestrator
from eagle_rag.kernel.audit_sinks import build_audit
from eagle_rag.kernel.plugin_manager import build_plugin_manager
from eagle_rag.protocols import LexicalIndex
from eagle_rag.retrieve.orchestrator import RetrieverOrchestrator
from eagle_rag.settings import Settings, load_settings
from eagle_rag.stores.availability import is_unavailable
from eagle_rag.stores.lexical_indexes import LexicalIndexes
from eagle_rag.stores.milvus import MilvusVectorStore
from eagle_rag.stores.registry import SqlDocumentRegistry
from eagle_rag.stores.token_vectors import TokenVectorStore, token_vectors_url


def build_encoders(settings: Settings) -> EncoderRegistry:
    """The core encoder registry configured from ``settings.encoders`` (nothing loads yet)."""
    enc = settings.encoders
    return default_registry(enc.mode, settings.allow_deterministic, threads=enc.threads or None,
                            batch_size=enc.batch_size,
                            rerank_max_passage_tokens=settings.search.cross_encoder_max_tokens,
                            text_model=enc.text_model, multilingual_model=enc.multilingual_model,
                            rerank_model=enc.rerank_model)


class Runtime:
    """The stores, encoders and plugins of one process. Use as a context manager or call :meth:`close`."""

    def __init__(self, settings: Settings | None = None, extra_plugins: Iterable[tuple[str, object]] = ()) -> None:
        self.settings = settings or load_settings()
        self.settings.data_path.mkdir(parents=True, exist_ok=True)
        self.pm = build_plugin_manager(self.settings, extra_plugins)
        self.audit = build_audit(self.settings)
        self.encoders = build_encoders(self.settings)
        self.registry = SqlDocumentRegistry(self.settings.registry_url)
        self.vectors = MilvusVectorStore(self.settings.milvus_uri, db_name=self.settings.milvus.db_name,
                                         token=self.settings.milvus.credentials())
        self.tokens = TokenVectorStore(token_vectors_url(self.settings))
        self.lexical = LexicalIndexes(self.settings, self.vectors)
        self.lexical_for: Callable[[str], LexicalIndex] = self.lexical.get
        """The lexical index of one collection, opened once (see :mod:`eagle_rag.stores.lexical_indexes`)."""
        self.has_lexical_index: Callable[[str], bool] = self.lexical.exists
        """True when the collection's lexical index exists (asking never creates one)."""
        self.ctx = HookContext(
            namespace=self.settings.plugins.default_namespace, settings=self.settings, audit=self.audit,
            services=Services(pm=self.pm, encoders=self.encoders, registry=self.registry,
                              vectors=self.vectors, lexical_for=self.lexical_for, tokens=self.tokens),
        )
        self.pm.hook.eagle_register(ctx=self.ctx, encoders=self.encoders)
        # labels eagle-rag reindex moved to another model (asked again by service.health.check_servers)
        self.versions_applied = self.load_encoder_versions()
        self.ingestor = IngestOrchestrator(self.pm)
        self.retriever = RetrieverOrchestrator(self.pm)

    def encoder_versions(self) -> list[EncoderVersion]:
        """Every encoder version ``eagle-rag reindex`` recorded in the registry (``reindex/<label>``)."""
        registry = self.registry
        return [EncoderVersion.from_json(raw) for key in registry.state_keys(STATE_PREFIX)
                if (raw := registry.get_state(key)) is not None]

    def load_encoder_versions(self) -> bool:
        """Give each label ``eagle-rag reindex`` moved its recorded model (read from the registry here, so
        opening an engine reaches the registry from this file alone). Returns False when the registry
        cannot be reached: :func:`eagle_rag.service.health.check_servers` asks again before a request."""
        try:
            found = self.encoder_versions()
        except Exception as exc:
            if is_unavailable(exc):
                return False
            raise
        apply_encoder_versions(found, self.encoders, self.settings)
        return True

    def request_context(self, namespace: str | None = None) -> HookContext:
        return self.ctx.for_request(namespace)

    def flush(self) -> None:
        """Seal the rows of every vector collection, sentence rows included (after a bulk write)."""
        from eagle_rag.ingest.writer import vector_collections

        for name in vector_collections(self.ctx):
            if self.vectors.has_collection(name):
                self.vectors.flush(name)

    def close(self) -> None:
        self.retriever.close()
        self.lexical.close()
        self.vectors.close()
        self.tokens.close()
        self.registry.close()

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


"""The engine: settings, plugins, encoders and stores wired together for one process.

Building an Engine is cheap: stores connect and models load on first use, or all at once in
:meth:`Engine.warm_up`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from eagle_rag.context import HookContext, Services
from eagle_rag.encoders.factory import default_registry
from eagle_rag.encoders.registry import EncoderRegistry
from eagle_rag.errors import InvalidRequest
from eagle_rag.ingest.executors import Executor, RayOptions
from eagle_rag.ingest.orchestrator import IngestOrchestrator, IngestReport, ProgressFn, StageProgressFn
from eagle_rag.ingest.ray_executor import ray_ingest
from eagle_rag.ingest.sources import missing_paths_error
from eagle_rag.kernel.audit_sinks import build_audit
from eagle_rag.kernel.plugin_manager import build_plugin_manager
from eagle_rag.ops.reindex import apply_encoder_versions
from eagle_rag.protocols import LexicalIndex
from eagle_rag.retrieve.orchestrator import RetrieverOrchestrator
from eagle_rag.service import health as index_health
from eagle_rag.settings import Settings, load_settings
from eagle_rag.stores.availability import is_unavailable, settings_unavailable
from eagle_rag.stores.lexical import TantivyLexicalIndex
from eagle_rag.stores.milvus import MilvusVectorStore
from eagle_rag.stores.milvus_capabilities import Feature
from eagle_rag.stores.milvus_lexical import SUFFIX as MILVUS_LEXICAL_SUFFIX
from eagle_rag.stores.milvus_lexical import MilvusLexicalIndex
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


class Engine:
    """One Eagle-RAG instance. Use as a context manager or call :meth:`close`."""

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
        self._lexical: dict[str, LexicalIndex] = {}
        self._lexical_lock = threading.Lock()
        self.ctx = HookContext(
            namespace=self.settings.plugins.default_namespace, settings=self.settings, audit=self.audit,
            services=Services(pm=self.pm, encoders=self.encoders, registry=self.registry,
                              vectors=self.vectors, lexical_for=self.lexical_for, tokens=self.tokens),
        )
        self.pm.hook.eagle_register(ctx=self.ctx, encoders=self.encoders)
        self._versions_applied = apply_encoder_versions(self)  # labels eagle-rag reindex moved to another model
        self.ingestor = IngestOrchestrator(self.pm)
        self.retriever = RetrieverOrchestrator(self.pm)

    def lexical_for(self, collection: str) -> LexicalIndex:
        """The lexical index of one collection, opened once: a tantivy folder under ``lexical_path``
        or, with ``lexical.backend: milvus``, a BM25 collection next to the vectors."""
        with self._lexical_lock:
            index = self._lexical.get(collection)
            if index is None:
                index = _LEXICAL_BACKENDS[self.settings.lexical.backend](self, collection)
                self._lexical[collection] = index
            return index

    def has_lexical_index(self, collection: str) -> bool:
        """True when the collection's lexical index exists (asking never creates one)."""
        if self.settings.lexical.backend == "milvus":
            return bool(self.vectors.has_collection(f"{collection}{MILVUS_LEXICAL_SUFFIX}"))
        return (self.settings.lexical_path / collection).exists()

    def check_servers(self) -> None:
        """Connect to a Milvus server and refuse settings it cannot run, before serving anything.

        Raises:
            ServerUnsupported: ``lexical.backend: milvus`` on a server without the BM25 function (2.3).
            StoreUnavailable: the server cannot be reached.
        """
        if not self._versions_applied:  # the registry was down when the engine opened
            self._versions_applied = apply_encoder_versions(self)
        if self.vectors.is_lite:
            return
        try:
            if self.settings.lexical.backend == "milvus":
                self.vectors.require(Feature.BM25_FUNCTION, "lexical.backend")
            else:
                self.vectors.capabilities  # noqa: B018 - connect and read the version
        except Exception as exc:
            if is_unavailable(exc):
                raise settings_unavailable(exc, self.settings) from exc
            raise

    def request_context(self, namespace: str | None = None) -> HookContext:
        return self.ctx.for_request(namespace)

    def ingest(self, paths: Sequence[Path | str], kb_name: str = "default",
               progress: ProgressFn | None = None, *, dry_run: bool = False,
               max_errors: int | None = None, skip_missing: bool = False,
               executor: Executor | str = Executor.LOCAL, ray: RayOptions | None = None,
               stage_progress: StageProgressFn | None = None) -> IngestReport:
        """Ingest files and folders record by record; see :mod:`eagle_rag.ingest.orchestrator`.

        ``progress`` is called with (records read, None); ``stage_progress`` (local executor) with
        ``("preparing", records, records of the batch)`` and ``("embedding", chunks, chunks of the batch)``
        while a batch is written, so a caller can show the ingest moving after it has read a batch.

        ``dry_run`` parses and validates only (nothing is written); ``max_errors`` overrides
        ``ingest.max_record_errors``, the bad records a file may have before it stops.
        ``executor`` ``ray`` runs the same stages on Ray Data (:mod:`eagle_rag.ingest.ray_executor`,
        options ``ray``) and reports the same way.

        Returns the report. A file that could not be ingested (empty, unreadable, of an unsupported
        type, not a regular file, no record ingested) is a failure in ``report.failures`` and a bad
        record one in ``report.record_failures``, even when nothing at all was ingested: no
        :class:`~eagle_rag.errors.IngestError` is raised for them (check ``report.any_failed``).
        :class:`eagle_rag.client.http.EagleClient.ingest` behaves the same.

        Raises:
            InvalidRequest: a path does not exist (before anything is read or written), unless
                ``skip_missing`` is set: such a path is then a failure in the report.
            StoreUnavailable: a store cannot be reached.
        """
        from eagle_rag.service.searching import validate_kb_name

        validate_kb_name(kb_name)
        if max_errors is not None and max_errors < 0:
            raise InvalidRequest("max_errors must be 0 or more", {"field": "max_errors"})
        given = [Path(p) for p in paths]
        missing = missing_paths_error(given)
        if missing is not None and not skip_missing:
            raise missing
        self.check_servers()
        ctx = self.request_context()
        with index_health.ingesting(self):
            if Executor.from_str(str(executor)) is Executor.RAY:
                report = ray_ingest(self, given, kb_name, progress, dry_run=dry_run, max_errors=max_errors,
                                    options=ray)
            else:
                report = self.ingestor.ingest_paths(ctx, given, kb_name, progress, dry_run=dry_run,
                                                    max_errors=max_errors, stage_progress=stage_progress)
        if report.chunks:
            self.flush()
        return report

    def flush(self) -> None:
        """Seal the rows of every vector collection, sentence rows included (after a bulk write)."""
        from eagle_rag.ingest.writer import vector_collections

        for name in vector_collections(self.ctx):
            if self.vectors.has_collection(name):
                self.vectors.flush(name)

    def warm_up(self) -> Any:
        """Load the models, vocabularies and stores the first query would load, and run each once,
        so the first query costs what the hundredth does; returns a
        :class:`eagle_rag.ops.warm_up.WarmUpReport`. ``eagle-rag serve`` calls it before it reports ready."""
        from eagle_rag.ops.warm_up import warm_up

        return warm_up(self)

    def search(self, request: Any) -> Any:
        from eagle_rag.service.searching import search

        return search(self, request)

    def close(self) -> None:
        self.retriever.close()
        for index in self._lexical.values():
            index.close()
        self.vectors.close()
        self.tokens.close()
        self.registry.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _tantivy(engine: Engine, collection: str) -> LexicalIndex:
    return TantivyLexicalIndex(engine.settings.lexical_path / collection)


def _milvus(engine: Engine, collection: str) -> LexicalIndex:
    return MilvusLexicalIndex(engine.vectors, collection)


_LEXICAL_BACKENDS: dict[str, Callable[[Engine, str], LexicalIndex]] = {"tantivy": _tantivy, "milvus": _milvus}

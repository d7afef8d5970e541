"""Is the index whole? A cheap check of the stores against the registry, cached for a few seconds.

``GET /health`` reports it and every search carries it in ``warnings`` (and in ``empty_reason``
when nothing is found), so a missing store file never reads as "nothing matched". The check:

- the embedded stores' files are where the settings say (``milvus.db``, ``registry.db``, ``lexical/``);
  a store deleted under a running server keeps answering from memory until it fails;
- when the registry lists complete documents, the vector store and the lexical index hold chunks;
  when it lists none, they hold none (a registry that was deleted and re-created);
- each collection's vector and lexical counts agree (skipped while a document is being written);
- no document is left ``pending`` while this process runs no ingest (an ingest that was killed, here
  or in another replica: a replica cannot tell another one's running ingest from a dead one);
- every store answered: a store that cannot be reached is kept as :attr:`IndexState.unavailable`,
  and a search raises it (503 ``store_unavailable``) instead of calling the index empty.

Counting is cheap (a count query per store and collection); ``eagle-rag doctor`` does the full,
per-document comparison.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from eagle_rag.errors import EagleError, ServerUnsupported
from eagle_rag.ops.snapshot_restore import JOURNAL as RESTORE_JOURNAL
from eagle_rag.stores.availability import is_unavailable, one_line, settings_unavailable
from eagle_rag.stores.milvus_capabilities import Feature
from eagle_rag.stores.topology import mix_refusal, parallel_writes, shares_registry
from eagle_rag.types import DocumentStatus, SearchResponse

if TYPE_CHECKING:
    from eagle_rag.kernel.runtime import Runtime as Engine
    from eagle_rag.settings import Settings

CACHE_TTL_S = 3.0
"""How long one check answers for (``/health`` and searches share it)."""


@dataclass(frozen=True)
class IndexState:
    """The problems found (empty: the index is whole) and the counts they came from."""

    problems: tuple[str, ...]
    documents: int = 0
    vector_chunks: int = 0
    lexical_chunks: int = 0
    checked_at: float = 0.0
    pending: int = 0
    """Documents left ``pending`` (an ingest is running or was interrupted)."""
    unavailable: EagleError | None = None
    """The store that could not be reached (StoreUnavailable), or a server too old for the settings
    (ServerUnsupported), as the error a search raises (None: every store answered)."""

    @property
    def degraded(self) -> bool:
        return bool(self.problems)

    def summary(self) -> str:
        """One sentence naming every problem."""
        return "the index is degraded: " + "; ".join(self.problems) + " (run eagle-rag doctor)"


def _missing_files(engine: Engine) -> list[str]:
    settings = engine.settings
    out: list[str] = []
    held = engine.registry.count()
    if not settings.milvus.uri and held and not Path(settings.milvus_uri).exists():
        out.append("the vector store file milvus.db is missing from the data folder")
    if not settings.registry.url and not (settings.data_path / "registry.db").exists():
        out.append("the registry file registry.db is missing from the data folder")
    if settings.lexical.backend == "tantivy" and held and not settings.lexical_path.exists():
        out.append("the lexical index folder lexical/ is missing from the data folder")
    if (settings.data_path / RESTORE_JOURNAL).exists():
        out.append("a snapshot restore was interrupted: run the same eagle-rag snapshot restore again to finish it")
    return out


_ingesting: weakref.WeakKeyDictionary[Engine, int] = weakref.WeakKeyDictionary()


@contextmanager
def ingesting(engine: Engine) -> Iterator[None]:
    """Mark an ingest of ``engine`` as running: its pending documents are not a problem meanwhile."""
    with _lock:
        _ingesting[engine] = _ingesting.get(engine, 0) + 1
        _cache.pop(engine, None)
    try:
        yield
    finally:
        with _lock:
            _ingesting[engine] -= 1
            _cache.pop(engine, None)


def _ingest_running(engine: Engine) -> bool:
    with _lock:
        return _ingesting.get(engine, 0) > 0


__all__ = ["check_index", "check_servers", "mix_refusal", "parallel_writes", "shares_registry", "stores_reachable"]
"""Also the deployment questions a front end asks: :func:`~eagle_rag.stores.topology.mix_refusal` (may this
mix of shared and private stores serve?), :func:`~eagle_rag.stores.topology.shares_registry` and
:func:`~eagle_rag.stores.topology.parallel_writes` (may write actors write at once?)."""


@contextmanager
def stores_reachable(settings: Settings) -> Iterator[None]:
    """Run the block; a store that cannot be reached becomes one StoreUnavailable naming the settings."""
    try:
        yield
    except Exception as exc:
        if is_unavailable(exc):
            raise settings_unavailable(exc, settings) from exc
        raise


def check_servers(engine: Engine) -> None:
    """Connect to a Milvus server and refuse settings it cannot run, before serving anything.

    Raises:
        ServerUnsupported: ``lexical.backend: milvus`` on a server without the BM25 function (2.3).
        StoreUnavailable: the server cannot be reached.
    """
    if not engine.versions_applied:  # the registry was down when the engine opened: ask again
        engine.versions_applied = engine.load_encoder_versions()
    if engine.vectors.is_lite:
        return
    try:
        if engine.settings.lexical.backend == "milvus":
            engine.vectors.require(Feature.BM25_FUNCTION, "lexical.backend")
        else:
            engine.vectors.capabilities  # noqa: B018 - connect and read the version
    except Exception as exc:
        if is_unavailable(exc):
            raise settings_unavailable(exc, engine.settings) from exc
        raise


def check_index(engine: Engine) -> IndexState:
    """Compare the stores with the registry now (no cache). Never raises: a failure is a problem."""
    now = time.monotonic()
    try:
        check_servers(engine)
        problems = _missing_files(engine)
        documents = engine.registry.count(status=DocumentStatus.COMPLETE)
        pending = engine.registry.count(status=DocumentStatus.PENDING)
        vector_total = lexical_total = 0
        for profile in engine.encoders.collections():
            name = profile.name
            vectors = engine.vectors.count(name) if engine.vectors.has_collection(name) else 0
            lexical = engine.lexical_for(name).count() if engine.has_lexical_index(name) else None
            vector_total += vectors
            lexical_total += lexical or 0
            if lexical is not None and lexical != vectors and not pending:
                problems.append(f"collection {name}: the vector store holds {vectors} chunks, the lexical "
                                f"index {lexical}")
        if documents and not vector_total:
            problems.append(f"the registry lists {documents} complete documents but the vector store holds "
                            "no chunk")
        if documents and not lexical_total:
            problems.append(f"the registry lists {documents} complete documents but the lexical index holds "
                            "no chunk")
        if not documents and not pending and (vector_total or lexical_total):
            problems.append(f"the registry lists no document but the stores hold {max(vector_total, lexical_total)} "
                            "chunks (the registry was deleted or replaced)")
        if pending and not _ingest_running(engine):
            problems.append(f"{pending} documents are pending: an ingest was interrupted, or runs in another "
                            "process (ingest the same files again, or eagle-rag doctor --repair)")
        return IndexState(tuple(problems), documents, vector_total, lexical_total, now, pending)
    except Exception as exc:  # noqa: BLE001 - a store that cannot be counted is the finding
        down: EagleError | None = exc if isinstance(exc, ServerUnsupported) else \
            settings_unavailable(exc, engine.settings) if is_unavailable(exc) else None
        problem = down.message if down is not None else f"a store could not be read: {type(exc).__name__}: " \
            f"{one_line(exc)}"
        return IndexState((problem,), checked_at=now, unavailable=down)


_cache: weakref.WeakKeyDictionary[Engine, IndexState] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def cached_index_state(engine: Engine, ttl_s: float = CACHE_TTL_S) -> IndexState:
    """:func:`check_index`, answered from a cache for ``ttl_s`` seconds."""
    with _lock:
        state = _cache.get(engine)
        if state is not None and time.monotonic() - state.checked_at < ttl_s:
            return state
    state = check_index(engine)
    with _lock:
        _cache[engine] = state
    return state


def invalidate(engine: Engine) -> None:
    """Forget the cached check of ``engine`` (the next one reads the stores)."""
    with _lock:
        _cache.pop(engine, None)


def annotate(engine: Engine, response: SearchResponse) -> SearchResponse:
    """``response`` with the index's problems added to ``warnings``. An empty answer from a degraded
    index says only that nothing was found in what could be read, and is not ``exhaustive``: a
    missing store file or uncounted chunks never read as "nothing matched".

    Raises:
        StoreUnavailable: a store could not be reached (the answer would not be one).
    """
    state = cached_index_state(engine)
    if state.unavailable is not None:
        raise state.unavailable
    if not state.degraded:
        return response
    if response.hits or response.empty_reason is None:
        return replace(response, warnings=(*response.warnings, state.summary()))
    reason = f"nothing was found, but the answer cannot be trusted: {state.summary()}"
    return replace(response, warnings=(*response.warnings, state.summary()), empty_reason=reason, exhaustive=False)

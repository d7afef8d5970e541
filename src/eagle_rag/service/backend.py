"""The :class:`Backend` every front end calls, and where a command sends its work.

A Backend answers every command that runs either in this process or through a server the same way:
search, ingest, get and delete a document, the kb names, the doctor check, snapshots (create, list,
delete), reindex and the MCP tools. :func:`open_backend` gives the in-process one
(:class:`~eagle_rag.service.local_backend.LocalBackend`, over an :class:`~eagle_rag.engine.Engine`) or
the one over a server's HTTP API (:class:`~eagle_rag.service.remote_backend.RemoteBackend`, over an
:class:`~eagle_rag.client.EagleClient`), and the caller never asks which it got. What runs only on the
folder itself (``doctor --repair``, ``snapshot restore``, ``demo``, ``eval beir``, ``calibrate``) calls
:func:`require_local` first. A framework retriever, which needs search only, takes a :class:`Searcher`
(an engine or a client) from :func:`borrow_backend`.

A command goes through the HTTP API of a server when one is named (``--url`` or ``EAGLE_RAG_URL``,
with ``--api-key`` or ``EAGLE_RAG_API_KEY``) or when a live ``eagle-rag serve`` owns the data folder
(``<data_dir>/server.json``); otherwise, or with ``--local``, it opens the folder itself, after
checking that no server or other process holds it (:func:`eagle_rag.client.server_file.ensure_folder_free`).
Plugins reach this through :mod:`eagle_rag.plugin_api.commands` (``resolve_target`` / ``open_backend``, and
``open_remote`` for a server's client, to call their own routes on it).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, closing, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from eagle_rag.client.server_file import (
    ServerInfo,
    ensure_folder_free,
    live_server,
    remove_server_file,
    server_url,
    write_server_file,
)
from eagle_rag.errors import InvalidRequest

if TYPE_CHECKING:
    from pathlib import Path

    from eagle_rag.client.http import EagleClient as EagleClient
    from eagle_rag.ingest.executors import Executor, RayOptions
    from eagle_rag.ingest.orchestrator import IngestReport
    from eagle_rag.ops.doctor import DoctorReport
    from eagle_rag.ops.progress import CommandProgress
    from eagle_rag.service.tools import ToolSource
    from eagle_rag.settings import Settings
    from eagle_rag.types import SearchRequest, SearchResponse


@runtime_checkable
class Searcher(Protocol):
    """What a framework retriever searches through: an :class:`~eagle_rag.engine.Engine` or an
    :class:`~eagle_rag.client.EagleClient` (both answer a request with the same response)."""

    def search(self, request: SearchRequest) -> SearchResponse:
        """The answer to ``request`` (:func:`eagle_rag.service.searching.search`)."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class Backend(Protocol):
    """What a command may ask, in this process or through a server: both answer with the same types and
    dict shapes (those of the HTTP API) and raise the same :class:`~eagle_rag.errors.EagleError`
    subclasses."""

    def search(self, request: SearchRequest) -> SearchResponse:
        """The answer to ``request`` (:func:`eagle_rag.service.searching.search`)."""
        ...

    def ingest(self, paths: Sequence[Path], kb_name: str = "default", *, dry_run: bool = False,
               max_errors: int | None = None, executor: Executor | str = "local", ray: RayOptions | None = None,
               progress: CommandProgress | None = None) -> IngestReport:
        """Ingest files and folders (uploaded to a server); failures are in the report, as
        :meth:`eagle_rag.engine.Engine.ingest` gives them. ``progress`` is shown while this process
        ingests (a server's ingest shows none); ``executor`` ``ray`` runs in this process only."""
        ...

    def get_document(self, document_id: str, kb_name: str | None = None) -> dict[str, Any]:
        """``GET /kbs/{kb}/documents/{id}``. Raises NotFound, AmbiguousDocument."""
        ...

    def delete_document(self, document_id: str, kb_name: str | None = None) -> dict[str, Any]:
        """``{"document_id", "kb_name", "deleted": true}``. Raises NotFound, AmbiguousDocument."""
        ...

    def kb_names(self) -> list[str] | None:
        """The kbs that hold documents, sorted (None when a server's list cannot be read)."""
        ...

    def doctor(self, repair: bool = False) -> DoctorReport:
        """The consistency check of :mod:`eagle_rag.ops.doctor`; ``repair`` (this process only) fixes
        what it found."""
        ...

    def create_snapshot(self, name: str | None = None) -> dict[str, Any]:
        """A new snapshot of the data folder: its manifest (``SnapshotManifest.to_dict``)."""
        ...

    def snapshots(self) -> list[dict[str, Any]]:
        """The snapshots, oldest first (``SnapshotManifest.summary``)."""
        ...

    def delete_snapshot(self, name: str) -> dict[str, Any]:
        """``{"name", "deleted": true}``. Raises NotFound."""
        ...

    def reindex(self, encoder: str | None, collections: list[str] | None = None, dim: int | None = None, *,
                rollback: bool = False, drop_old: bool = False) -> dict[str, Any]:
        """The answer of :func:`eagle_rag.ops.reindex.run_request` (``POST /reindex``)."""
        ...

    def tool_source(self) -> ToolSource:
        """The MCP tools: this engine's, or the server's (with a ``notice`` when its profile differs)."""
        ...

    def close(self) -> None: ...


__all__ = ["Backend", "EagleClient", "Searcher", "Target", "borrow_async_backend", "borrow_backend",
           "ensure_folder_free", "ingest_report", "live_server", "open_backend", "open_remote", "remove_server_file",
           "require_local", "resolve_target", "server_url", "write_server_file"]

URL_ENV = "EAGLE_RAG_URL"
API_KEY_ENV = "EAGLE_RAG_API_KEY"


@dataclass(frozen=True)
class Target:
    """Where a command runs: ``url`` None is this process, on the data folder directly."""

    url: str | None = None
    api_key: str | None = None
    server: ServerInfo | None = None
    """The server found in ``server.json`` (None when the URL was given, or for local access)."""

    @property
    def remote(self) -> bool:
        return self.url is not None

    def describe(self) -> str:
        if self.url is None:
            return "local"
        return f"server {self.url}" + (f" (PID {self.server.pid})" if self.server else "")


def resolve_target(settings: Settings, url: str | None = None, api_key: str | None = None, local: bool = False,
                   environ: Mapping[str, str] | None = None) -> Target:
    """The target of a command: ``--local``, else ``url`` / ``EAGLE_RAG_URL``, else the live server of
    the data folder, else local. Raises InvalidRequest for ``--local`` together with a URL."""
    env = os.environ if environ is None else environ
    if local:
        if url:
            raise InvalidRequest("--local and --url exclude each other: choose one", {"field": "local"})
        return Target()
    key = api_key or env.get(API_KEY_ENV) or None
    chosen = url or env.get(URL_ENV) or None
    if chosen:
        return Target(url=chosen, api_key=key)
    server = live_server(settings.data_path)
    if server is not None:
        return Target(url=server.url, api_key=key, server=server)
    return Target()


def require_local(settings: Settings, action: str) -> None:
    """Raise FolderInUse unless this process may open the data folder (see the module docstring)."""
    ensure_folder_free(settings.data_path, settings.milvus_uri, action)


@contextmanager
def open_backend(settings: Settings, target: Target, action: str = "this command", *, lazy: bool = False,
                 **client_options: Any) -> Iterator[Backend]:
    """The :class:`Backend` of ``target``, closed on exit: over an
    :class:`~eagle_rag.client.http.EagleClient` for a server (``client_options``: ``timeout``,
    ``retries``), else over an :class:`~eagle_rag.engine.Engine` on the folder, which is checked and
    opened here, or with ``lazy`` only when an operation needs the engine (listing or deleting a
    snapshot reads the folder's files and does not). Raises FolderInUse when the folder is held."""
    if target.url is not None:
        from eagle_rag.client.http import EagleClient
        from eagle_rag.service.remote_backend import RemoteBackend

        with EagleClient(target.url, api_key=target.api_key, **client_options) as client:
            yield RemoteBackend(client, settings.profile)
        return
    from eagle_rag.service.local_backend import LocalBackend

    if lazy:
        with closing(LocalBackend(settings, action=action)) as backend:
            yield backend
        return
    from eagle_rag.engine import Engine

    require_local(settings, action)
    with Engine(settings) as engine:  # opened here, not in LocalBackend: a search's walk stays short
        yield LocalBackend(settings, engine, action)


@contextmanager
def open_remote(target: Target, **options: Any) -> Iterator[EagleClient]:
    """The HTTP client of a remote ``target`` (``options``: ``timeout``, ``retries``), closed on exit: what
    :func:`borrow_backend` searches through, and a plugin's routes on a server (the datasets catalog's
    ``datasets_search`` / ``datasets_check``). Raises InvalidRequest for a local target."""
    if target.url is None:
        raise InvalidRequest("this target is the local data folder, not a server", {"field": "url"})
    from eagle_rag.client.http import EagleClient

    with EagleClient(target.url, api_key=target.api_key, **options) as client:
        yield client


@contextmanager
def borrow_backend(engine: Any | None, url: str | None, api_key: str | None = None,
                   timeout: float = 60.0) -> Iterator[Any]:  # a Searcher
    """``engine`` itself when given (left open: its owner closes it), else the client of the server at
    ``url`` (closed on exit): what a framework retriever searches through."""
    if engine is not None:
        yield engine
        return
    with open_remote(Target(url=url, api_key=api_key), timeout=timeout) as client:
        yield client


@asynccontextmanager
async def borrow_async_backend(url: str, api_key: str | None = None, timeout: float = 60.0) -> AsyncIterator[Any]:
    """The asynchronous client of the server at ``url`` (closed on exit)."""
    from eagle_rag.client.http import AsyncEagleClient

    async with AsyncEagleClient(url, api_key=api_key, timeout=timeout) as client:
        yield client


def ingest_report(body: dict[str, Any]) -> IngestReport:
    """The :class:`~eagle_rag.ingest.orchestrator.IngestReport` of a server's JSON answer."""
    from eagle_rag.client.http import ingest_report as from_json

    return from_json(body)

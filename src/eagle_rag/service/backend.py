"""The :class:`Backend` every front end calls, and where a command sends its work.

A Backend answers a search the same way in this process (:class:`~eagle_rag.engine.Engine`) or
through a server (:class:`~eagle_rag.client.EagleClient`): a front end opens one with
:func:`open_backend` (or :func:`borrow_backend`) and calls it, without asking which it got. Commands a
server answers that have no in-process method yet (doctor, snapshots, reindex) take the client from
:func:`open_remote`; no front end constructs a client itself.

A command goes through the HTTP API of a server when one is named (``--url`` or ``EAGLE_RAG_URL``,
with ``--api-key`` or ``EAGLE_RAG_API_KEY``) or when a live ``eagle-rag serve`` owns the data folder
(``<data_dir>/server.json``); otherwise, or with ``--local``, it opens the folder itself, after
checking that no server or other process holds it (:func:`eagle_rag.client.server_file.ensure_folder_free`).
Plugins reach this through :mod:`eagle_rag.plugin_api.commands` (``resolve_target`` / ``open_backend``).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
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
    from eagle_rag.client.http import EagleClient as EagleClient
    from eagle_rag.ingest.orchestrator import IngestReport
    from eagle_rag.settings import Settings
    from eagle_rag.types import SearchRequest, SearchResponse

@runtime_checkable
class Backend(Protocol):
    """What a front end may ask, in this process or through a server: both answer with the same types
    and raise the same :class:`~eagle_rag.errors.EagleError` subclasses."""

    def search(self, request: SearchRequest) -> SearchResponse:
        """The answer to ``request`` (:func:`eagle_rag.service.searching.search`)."""
        ...

    def close(self) -> None: ...


__all__ = ["Backend", "EagleClient", "Target", "borrow_async_backend", "borrow_backend", "ensure_folder_free",
           "ingest_report", "live_server", "open_backend", "open_remote", "remove_server_file", "require_local",
           "resolve_target", "server_url", "write_server_file"]

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
def open_backend(settings: Settings, target: Target, action: str = "this command") -> Iterator[Any]:  # a Backend
    """An :class:`~eagle_rag.client.http.EagleClient` for a remote target, else an
    :class:`~eagle_rag.engine.Engine` on the folder (closed on exit). Both answer ``search(request)``
    with a :class:`~eagle_rag.types.SearchResponse`. Raises FolderInUse when the folder is held."""
    if target.url is not None:
        from eagle_rag.client.http import EagleClient

        with EagleClient(target.url, api_key=target.api_key) as client:
            yield client
        return
    from eagle_rag.engine import Engine

    require_local(settings, action)
    with Engine(settings) as engine:
        yield engine


@contextmanager
def open_remote(target: Target, **options: Any) -> Iterator[EagleClient]:
    """The HTTP client of a remote ``target`` (``options``: ``timeout``, ``retries``), closed on exit: for
    the commands a server answers that have no in-process counterpart on :class:`Backend` (doctor,
    snapshots, reindex, the tool list). Raises InvalidRequest for a local target."""
    if target.url is None:
        raise InvalidRequest("this target is the local data folder, not a server", {"field": "url"})
    from eagle_rag.client.http import EagleClient

    with EagleClient(target.url, api_key=target.api_key, **options) as client:
        yield client


@contextmanager
def borrow_backend(engine: Any | None, url: str | None, api_key: str | None = None,
                   timeout: float = 60.0) -> Iterator[Any]:
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

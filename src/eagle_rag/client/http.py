"""The Python HTTP client of an Eagle-RAG server (httpx): :class:`EagleClient` and :class:`AsyncEagleClient`.

``search`` takes what :class:`~eagle_rag.types.SearchRequest` takes and returns the same
:class:`~eagle_rag.types.SearchResponse` as ``Engine.search``; errors come back as the same classes
as in-process (the error shape's ``code`` picks the class: ``invalid_request`` ->
:class:`~eagle_rag.errors.InvalidRequest`, ``not_found`` -> :class:`~eagle_rag.errors.NotFound`, ...).
Connection errors, 503 answers and 429 answers (a busy server) are retried ``retries`` times with
exponential backoff (waiting ``backoff``, then twice as long, ...), or as long as the answer's
``Retry-After`` asks when that is longer (at most ``max_wait`` seconds a wait); no other 4xx is
retried. A server that never answers raises :class:`~eagle_rag.errors.ServerUnreachable`.

    with EagleClient("http://127.0.0.1:8000") as client:
        response = client.search("imatinib dosing", top_k=3)
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from eagle_rag import __version__
from eagle_rag.errors import IngestError, InvalidRequest, ServerUnreachable, from_envelope
from eagle_rag.ingest.records import RecordFailure
from eagle_rag.ingest.report import FileCounts, FileFailure, IngestReport
from eagle_rag.ingest.sources import (
    NO_SUCH_PATH,
    NOT_REGULAR,
    is_regular_file,
    iter_source_files,
    missing_paths_error,
)
from eagle_rag.types import SearchMode, SearchRequest, SearchResponse

API_KEY_HEADER = "X-API-Key"
RETRY_STATUSES = frozenset({429, 503})
"""Answers worth asking again: the server is busy (429) or a store is down for a moment (503)."""
MAX_WAIT_S = 30.0
"""The longest wait between two tries, whatever ``Retry-After`` asks."""
UPLOAD_BATCH = 50
"""Files sent per ``POST /ingest`` (the server's ``api.max_ids_per_request`` is 100 by default)."""
_NOT_OVER_HTTP = {"namespace": None, "exhaustive": False}
_SENT_WHEN_SET = {"recency": None, "max_per_document": None, "diversity": None, "facets": ()}
"""Fields left out of a body at their default, so a server older than them still answers."""
_CONNECTION_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError, httpx.ReadError)


def search_body(request: SearchRequest) -> dict[str, Any]:
    """The ``POST /search`` body of a request. Raises InvalidRequest for a field HTTP does not carry."""
    body: dict[str, Any] = {}
    for f in dataclasses.fields(request):
        value = getattr(request, f.name)
        if f.name in _NOT_OVER_HTTP:
            if value != _NOT_OVER_HTTP[f.name]:
                raise InvalidRequest(f"{f.name} cannot be set over HTTP", {"field": f.name})
            continue
        if f.name in _SENT_WHEN_SET and value == _SENT_WHEN_SET[f.name]:
            continue
        if isinstance(value, SearchMode):
            value = value.value
        elif isinstance(value, tuple | list | set | frozenset):
            value = list(value)
        elif isinstance(value, str) and f.name in {"kb_names", "document_ids", "tags", "source_types",
                                                   "chunk_types", "sections", "doc_types", "facets"}:
            value = [value]
        body[f.name] = value
    return body


def as_request(query: str | SearchRequest, options: dict[str, Any]) -> SearchRequest:
    """``query`` when it is a request already (then no options), else ``SearchRequest(query, **options)``."""
    if isinstance(query, SearchRequest):
        if options:
            raise InvalidRequest("pass a SearchRequest or a query with options, not both", {"field": "query"})
        return query
    try:
        return SearchRequest(query=query, **options)
    except TypeError as exc:
        raise InvalidRequest(str(exc), {"field": "options"}) from exc


def ingest_report(body: dict[str, Any]) -> IngestReport:
    """The :class:`IngestReport` of a ``POST /ingest`` answer."""
    def failures(key: str) -> list[FileFailure]:
        return [FileFailure(path=str(f["path"]), error=str(f["error"])) for f in body.get(key) or ()]

    return IngestReport(files=int(body.get("files", 0)), documents=int(body.get("documents", 0)),
                        chunks=int(body.get("chunks", 0)), skipped_unchanged=int(body.get("skipped_unchanged", 0)),
                        replaced=int(body.get("replaced", 0)), failures=failures("failures"),
                        seconds=float(body.get("seconds", 0.0)), skipped_files=int(body.get("skipped_files", 0)),
                        warnings=failures("warnings"),
                        record_failures=[RecordFailure(**r) for r in body.get("record_failures") or ()],
                        files_detail=[FileCounts(**f) for f in body.get("files_detail") or ()],
                        dry_run=bool(body.get("dry_run", False)))


def merge_reports(reports: Sequence[IngestReport]) -> IngestReport:
    """One report for several ``POST /ingest`` batches."""
    total = IngestReport()
    for r in reports:
        total.files += r.files
        total.documents += r.documents
        total.chunks += r.chunks
        total.skipped_unchanged += r.skipped_unchanged
        total.replaced += r.replaced
        total.failures.extend(r.failures)
        total.seconds += r.seconds
        total.skipped_files += r.skipped_files
        total.warnings.extend(r.warnings)
        total.record_failures.extend(r.record_failures)
        total.files_detail.extend(r.files_detail)
        total.dry_run = total.dry_run or r.dry_run
    return total


def upload_base(given: Sequence[Path]) -> Path | None:
    """The folder the names of uploads are relative to: the folder given, the folder of the file
    given, or the deepest folder that holds every path given; None when none exists."""
    folders = [os.path.abspath(p if p.is_dir() else p.parent) for p in given if p.exists()]
    return Path(os.path.commonpath(folders)) if folders else None


def upload_batches(files: Sequence[Path | str]) -> tuple[list[list[tuple[str, Path]]], list[FileFailure]]:
    """The files under ``files`` (folders expanded) in batches of :data:`UPLOAD_BATCH`, each with the
    name it is sent under, and failures for the paths that do not exist or are no regular file.

    A file is sent under its own name (``note.md``), which keeps the server's document ids of earlier
    uploads; files of one ingest that share a name are sent under their paths relative to
    :func:`upload_base` (``d1/note.md`` and ``d2/note.md``), so none replaces another. A file met
    twice is sent once."""
    given = [Path(f) for f in files]
    found, missing = iter_source_files(given)
    failures = [FileFailure(path=str(m), error=NO_SUCH_PATH) for m in missing]
    regular: dict[str, Path] = {}
    for path in found:
        if not is_regular_file(path):  # a named pipe would block the upload forever
            failures.append(FileFailure(path=str(path), error=f"{path.name}: {NOT_REGULAR}"))
            continue
        regular.setdefault(os.path.realpath(path), path)
    shared = Counter(p.name for p in regular.values())
    base = upload_base(given)
    items = [((Path(os.path.abspath(p)).relative_to(base).as_posix() if base and shared[p.name] > 1 else p.name), p)
             for p in regular.values()]
    return [items[i:i + UPLOAD_BATCH] for i in range(0, len(items), UPLOAD_BATCH)], failures


@dataclass(frozen=True)
class _Call:
    """One HTTP request: how to send it and how to read a 2xx answer."""

    method: str
    path: str
    decode: Callable[[Any], Any]
    json: Any = None
    data: dict[str, Any] | None = None
    upload: Sequence[tuple[str, Path]] = ()
    """Files to send: (the name they are sent under, the file)."""
    report_on_failure: bool = False
    """A 422 ``ingest_failed`` carrying the ingest report (nothing at all was ingested) is read as that
    report, as ``Engine.ingest`` returns it, not raised."""


def _decode_answer(response: httpx.Response, call: _Call) -> Any:
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.status_code >= 400:
        error = from_envelope(body, response.status_code)
        report = error.details.get("report")
        if call.report_on_failure and isinstance(error, IngestError) and isinstance(report, dict):
            return call.decode(report)
        raise error
    return call.decode(body)


def _ingest_calls(paths: Sequence[str], files: Sequence[Path | str], kb_name: str, dry_run: bool = False,
                  max_errors: int | None = None, skip_missing: bool = False) -> tuple[list[_Call], list[FileFailure]]:
    """The ``POST /ingest`` calls of an ingest, and the failures of the files that are not sent.
    Raises InvalidRequest (before anything is sent) when no file or path is given, or when a file
    does not exist and ``skip_missing`` is not set."""
    if not paths and not files:
        raise InvalidRequest("give files to upload or server-side paths", {"fields": ["files", "paths"]})
    missing = None if skip_missing else missing_paths_error(files)
    if missing is not None:
        raise missing
    form: dict[str, Any] = {"kb_name": kb_name, **({"dry_run": "true"} if dry_run else {}),
                            **({"max_errors": str(max_errors)} if max_errors is not None else {})}
    calls = []
    if paths:
        calls.append(_Call("POST", "/ingest", ingest_report, data={**form, "paths": list(paths)},
                           report_on_failure=True))
    batches, not_sent = upload_batches(files) if files else ([], [])
    calls += [_Call("POST", "/ingest", ingest_report, data=dict(form), upload=batch, report_on_failure=True)
              for batch in batches]
    return calls, not_sent


def _with_missing(report: IngestReport, missing: list[FileFailure]) -> IngestReport:
    report.failures.extend(missing)
    return report


def _tool_path(name: str) -> str:
    if not isinstance(name, str) or not name:
        raise InvalidRequest("a tool name must be a non-empty string", {"field": "name"})
    return "/tools/" + quote(name, safe="")


def _unreachable(url: str, exc: Exception) -> ServerUnreachable:
    return ServerUnreachable(f"no Eagle-RAG server answers at {url}: {type(exc).__name__}: {exc}"[:300],
                             {"url": url})


def retry_after_s(response: httpx.Response) -> float | None:
    """The seconds of a ``Retry-After: <seconds>`` header; None when absent or not a number of seconds."""
    raw = response.headers.get("Retry-After", "").strip()
    try:
        seconds = float(raw)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


class _Base:
    def __init__(self, url: str, api_key: str | None, timeout: float, retries: int, backoff: float,
                 max_wait: float = MAX_WAIT_S) -> None:
        if not url.startswith(("http://", "https://")):
            raise InvalidRequest(f"invalid server URL {url!r}: use http://host:port or https://...", {"field": "url"})
        self.url = url.rstrip("/")
        self.retries = max(0, retries)
        self.backoff = backoff
        self.max_wait = max_wait
        self.timeout = timeout
        self.headers = {"User-Agent": f"eagle-rag-client/{__version__}"}
        if api_key:
            self.headers[API_KEY_HEADER] = api_key

    def _search_call(self, query: str | SearchRequest, options: dict[str, Any]) -> _Call:
        return _Call("POST", "/search", SearchResponse.from_dict, json=search_body(as_request(query, options)))

    def _batch_call(self, requests: Sequence[str | SearchRequest], options: dict[str, Any]) -> _Call:
        bodies = [search_body(as_request(r, options)) for r in requests]
        return _Call("POST", "/search/batch",
                     lambda body: [SearchResponse.from_dict(r) for r in body["results"]], json={"searches": bodies})

    @staticmethod
    def _document_path(document_id: str, kb_name: str | None = None) -> str:
        """``/kbs/{kb}/documents/{id}``, or the alias ``/documents/{id}`` without a kb."""
        if not isinstance(document_id, str) or not document_id:
            raise InvalidRequest("document_id must be a non-empty string", {"field": "document_id"})
        if kb_name is None:
            return "/documents/" + quote(document_id, safe="")
        if not isinstance(kb_name, str) or not kb_name:
            raise InvalidRequest("kb_name must be a non-empty string", {"field": "kb_name"})
        return f"/kbs/{quote(kb_name, safe='')}/documents/{quote(document_id, safe='')}"

    def _delay(self, attempt: int, response: httpx.Response | None) -> float:
        """The wait before try ``attempt + 1``: the backoff, or the answer's ``Retry-After`` when longer,
        never more than ``max_wait``."""
        wait = self.backoff * (2 ** attempt)
        asked = retry_after_s(response) if response is not None else None
        return float(min(max(wait, asked or 0.0), self.max_wait))


class EagleClient(_Base):
    """A synchronous client. Use as a context manager or call :meth:`close`."""

    def __init__(self, url: str, api_key: str | None = None, timeout: float = 60.0, *, retries: int = 3,
                 backoff: float = 0.25, max_wait: float = MAX_WAIT_S,
                 transport: httpx.BaseTransport | None = None) -> None:
        super().__init__(url, api_key, timeout, retries, backoff, max_wait)
        self._http = httpx.Client(base_url=self.url, headers=self.headers, timeout=timeout, transport=transport)

    def _send(self, call: _Call) -> Any:
        response: httpx.Response | None
        for attempt in range(self.retries + 1):
            try:
                with ExitStack() as stack:
                    files = [("files", (name, stack.enter_context(p.open("rb")))) for name, p in call.upload]
                    response = self._http.request(call.method, call.path, json=call.json, data=call.data,
                                                  files=files or None)
            except _CONNECTION_ERRORS as exc:
                if attempt == self.retries:
                    raise _unreachable(self.url, exc) from exc
                response = None
            else:
                if response.status_code not in RETRY_STATUSES or attempt == self.retries:
                    return _decode_answer(response, call)
            time.sleep(self._delay(attempt, response))
        raise AssertionError("unreachable")  # pragma: no cover

    def search(self, query: str | SearchRequest, **options: Any) -> SearchResponse:
        """``POST /search``: ``search("imatinib", top_k=3, kb_names=["demo"])`` or ``search(SearchRequest(...))``."""
        result: SearchResponse = self._send(self._search_call(query, options))
        return result

    def search_many(self, requests: Sequence[str | SearchRequest], **options: Any) -> list[SearchResponse]:
        """``POST /search/batch``: one response per request, in order (at most the server's ``api.max_batch``).

        ``options`` (what :class:`SearchRequest` takes: ``top_k=2``, ``kb_names=["demo"]``, ...) apply to
        every query given as a string: ``search_many(["warfarin", "imatinib"], top_k=2)``. A
        :class:`SearchRequest` carries its own (options with one raise InvalidRequest)."""
        result: list[SearchResponse] = self._send(self._batch_call(requests, options))
        return result

    def ingest(self, files: Sequence[Path | str] = (), *, paths: Sequence[str] = (),
               kb_name: str = "default", dry_run: bool = False, max_errors: int | None = None,
               skip_missing: bool = False) -> IngestReport:
        """Upload ``files`` (folders expanded, in batches) and/or ingest server-side ``paths`` (inside the
        server's ``ingest.allowed_roots``); ``dry_run``, ``max_errors`` and ``skip_missing`` as for
        :meth:`eagle_rag.engine.Engine.ingest`, with the same outcomes:

        - a file of ``files`` that does not exist raises InvalidRequest before anything is sent
          (with ``skip_missing``, it is a failure in the report; the server checks ``paths`` itself
          and reports a missing one as a failure);
        - a file that could not be ingested (empty, unreadable, unsupported, not a regular file) is a
          failure in ``report.failures``, a bad record one in ``report.record_failures``, even when
          nothing at all was ingested (the server's 422 ``ingest_failed`` becomes the report it
          carries): IngestError is not raised, so check ``report.any_failed``.

        Raises InvalidRequest, StoreUnavailable, ServerUnreachable and the server's other errors."""
        calls, not_sent = _ingest_calls(paths, files, kb_name, dry_run, max_errors, skip_missing)
        return _with_missing(merge_reports([self._send(c) for c in calls]), not_sent)

    def get_document(self, document_id: str, kb_name: str | None = None) -> dict[str, Any]:
        """``GET /kbs/{kb}/documents/{id}``: the registry record. Without ``kb_name``, the document of the
        one kb that holds the id. Raises NotFound, AmbiguousDocument (several kbs hold it)."""
        result: dict[str, Any] = self._send(_Call("GET", self._document_path(document_id, kb_name), dict))
        return result

    def delete_document(self, document_id: str, kb_name: str | None = None) -> dict[str, Any]:
        """``DELETE /kbs/{kb}/documents/{id}``: ``{"document_id", "kb_name", "deleted": true}``; without
        ``kb_name`` as :meth:`get_document`. Raises NotFound, AmbiguousDocument."""
        result: dict[str, Any] = self._send(_Call("DELETE", self._document_path(document_id, kb_name), dict))
        return result

    def datasets_search(self, query: str, top_k: int = 10, **options: Any) -> dict[str, Any]:
        """``POST /datasets/search`` (the datasets plugin's catalog): options as that endpoint takes them."""
        result: dict[str, Any] = self._send(_Call("POST", "/datasets/search", dict,
                                                  json={"query": query, "top_k": top_k, **options}))
        return result

    def datasets_check(self, ids: Sequence[str]) -> dict[str, Any]:
        """``POST /datasets/check``: which ids the catalog knows."""
        result: dict[str, Any] = self._send(_Call("POST", "/datasets/check", dict, json={"ids": list(ids)}))
        return result

    def mcp_tools(self) -> list[dict[str, Any]]:
        """``GET /tools``: the server's read-only MCP tools (name, title, description, namespace, input_schema)."""
        result: list[dict[str, Any]] = self._send(_Call("GET", "/tools", lambda body: list(body["tools"])))
        return result

    def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """``POST /tools/{name}``: the tool's answer. Raises the typed error of its error envelope."""
        result: dict[str, Any] = self._send(_Call("POST", _tool_path(name), dict, json=dict(arguments or {})))
        return result

    def kbs(self) -> list[dict[str, Any]]:
        """``GET /kbs``: each kb that holds documents, with its document counts by status."""
        result: list[dict[str, Any]] = self._send(_Call("GET", "/kbs", lambda body: body["kbs"]))
        return result

    def health(self) -> dict[str, Any]:
        """``GET /health``: status, version and the state of each store."""
        result: dict[str, Any] = self._send(_Call("GET", "/health", dict))
        return result

    def doctor(self) -> dict[str, Any]:
        """``GET /doctor``: the consistency report (read-only)."""
        result: dict[str, Any] = self._send(_Call("GET", "/doctor", dict))
        return result

    def create_snapshot(self, name: str | None = None) -> dict[str, Any]:
        """``POST /snapshots``: a snapshot of the server's data folder; returns its manifest."""
        result: dict[str, Any] = self._send(_Call("POST", "/snapshots", dict, json={"name": name}))
        return result

    def snapshots(self) -> list[dict[str, Any]]:
        """``GET /snapshots``: the server's snapshots, oldest first (``files`` is a count)."""
        result: list[dict[str, Any]] = self._send(_Call("GET", "/snapshots", list))
        return result

    def delete_snapshot(self, name: str) -> dict[str, Any]:
        """``DELETE /snapshots/{name}``."""
        result: dict[str, Any] = self._send(_Call("DELETE", f"/snapshots/{quote(name, safe='')}", dict))
        return result

    def reindex(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /reindex`` (:mod:`eagle_rag.ops.reindex`) with the body's ``encoder``, ``collections``, ``dim``,
        ``rollback``, ``drop_old``. The answer comes when the switch is done: give the client a timeout that
        fits the corpus (``eagle-rag reindex`` uses hours)."""
        result: dict[str, Any] = self._send(_Call("POST", "/reindex", dict, json=body))
        return result

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> EagleClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncEagleClient(_Base):
    """The asyncio twin of :class:`EagleClient` (same methods, awaited). Use ``async with`` or ``aclose``."""

    def __init__(self, url: str, api_key: str | None = None, timeout: float = 60.0, *, retries: int = 3,
                 backoff: float = 0.25, max_wait: float = MAX_WAIT_S,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        super().__init__(url, api_key, timeout, retries, backoff, max_wait)
        self._http = httpx.AsyncClient(base_url=self.url, headers=self.headers, timeout=timeout, transport=transport)

    async def _send(self, call: _Call) -> Any:
        response: httpx.Response | None
        for attempt in range(self.retries + 1):
            try:
                with ExitStack() as stack:
                    files = [("files", (name, stack.enter_context(p.open("rb")))) for name, p in call.upload]
                    response = await self._http.request(call.method, call.path, json=call.json, data=call.data,
                                                        files=files or None)
            except _CONNECTION_ERRORS as exc:
                if attempt == self.retries:
                    raise _unreachable(self.url, exc) from exc
                response = None
            else:
                if response.status_code not in RETRY_STATUSES or attempt == self.retries:
                    return _decode_answer(response, call)
            await asyncio.sleep(self._delay(attempt, response))
        raise AssertionError("unreachable")  # pragma: no cover

    async def search(self, query: str | SearchRequest, **options: Any) -> SearchResponse:
        result: SearchResponse = await self._send(self._search_call(query, options))
        return result

    async def search_many(self, requests: Sequence[str | SearchRequest], **options: Any) -> list[SearchResponse]:
        """As :meth:`EagleClient.search_many`."""
        result: list[SearchResponse] = await self._send(self._batch_call(requests, options))
        return result

    async def ingest(self, files: Sequence[Path | str] = (), *, paths: Sequence[str] = (),
                     kb_name: str = "default", dry_run: bool = False, max_errors: int | None = None,
                     skip_missing: bool = False) -> IngestReport:
        """As :meth:`EagleClient.ingest`."""
        calls, not_sent = _ingest_calls(paths, files, kb_name, dry_run, max_errors, skip_missing)
        return _with_missing(merge_reports([await self._send(c) for c in calls]), not_sent)

    async def get_document(self, document_id: str, kb_name: str | None = None) -> dict[str, Any]:
        result: dict[str, Any] = await self._send(_Call("GET", self._document_path(document_id, kb_name), dict))
        return result

    async def delete_document(self, document_id: str, kb_name: str | None = None) -> dict[str, Any]:
        result: dict[str, Any] = await self._send(_Call("DELETE", self._document_path(document_id, kb_name), dict))
        return result

    async def datasets_search(self, query: str, top_k: int = 10, **options: Any) -> dict[str, Any]:
        result: dict[str, Any] = await self._send(_Call("POST", "/datasets/search", dict,
                                                        json={"query": query, "top_k": top_k, **options}))
        return result

    async def mcp_tools(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = await self._send(_Call("GET", "/tools", lambda body: list(body["tools"])))
        return result

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result: dict[str, Any] = await self._send(_Call("POST", _tool_path(name), dict, json=dict(arguments or {})))
        return result

    async def kbs(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = await self._send(_Call("GET", "/kbs", lambda body: body["kbs"]))
        return result

    async def health(self) -> dict[str, Any]:
        result: dict[str, Any] = await self._send(_Call("GET", "/health", dict))
        return result

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncEagleClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


"""Bounding the expensive stage: ``mode=full`` searches (cross-encoder reranking) run at most
``api.max_concurrent_rerank`` at a time; up to ``api.rerank_queue`` more wait for a slot, and any
beyond that is answered at once with 429 ``too_many_requests`` and a ``Retry-After`` header, so a
burst of clients is told to come back instead of timing out while the server still works for them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING

from fastapi import Request

from eagle_rag.errors import EagleError
from eagle_rag.types import SearchMode

if TYPE_CHECKING:
    from eagle_rag.settings import ApiSettings


class TooManyRequests(EagleError):
    """Every slot and queue place of an expensive stage is taken; try again after ``retry_after_s``."""

    code = "too_many_requests"
    http_status = 429

    def __init__(self, message: str, retry_after_s: int, details: dict[str, object] | None = None) -> None:
        super().__init__(message, {**(details or {}), "retry_after_s": retry_after_s})
        self.headers = {"Retry-After": str(retry_after_s)}


class StageGate:
    """``slots`` callers at a time, ``queue`` more waiting; :meth:`slot` refuses the rest."""

    def __init__(self, name: str, slots: int, queue: int, retry_after_s: int) -> None:
        self.name = name
        self.slots = slots
        self.queue = queue
        self.retry_after_s = retry_after_s
        self._semaphore = threading.BoundedSemaphore(slots)
        self._lock = threading.Lock()
        self._inside = 0

    @property
    def inside(self) -> int:
        """Callers running or waiting now."""
        return self._inside

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Run the body in a slot, waiting in the queue when needed. Raises TooManyRequests."""
        with self._lock:
            if self._inside >= self.slots + self.queue:
                raise TooManyRequests(
                    f"too many {self.name} requests at once ({self.slots} running, {self.queue} waiting); "
                    f"retry after {self.retry_after_s} s", self.retry_after_s,
                    {"running": self.slots, "queued": self.queue})
            self._inside += 1
        try:
            with self._semaphore:
                yield
        finally:
            with self._lock:
                self._inside -= 1


_create_lock = threading.Lock()


def rerank_gate(request: Request) -> StageGate:
    """The app's gate of ``mode=full`` searches (made on first use from ``api`` settings)."""
    state = request.app.state
    with _create_lock:
        gate: StageGate | None = getattr(state, "rerank_gate", None)
        if gate is None:
            cfg: ApiSettings = state.engine.settings.api
            gate = StageGate("mode=full search", cfg.max_concurrent_rerank, cfg.rerank_queue, cfg.retry_after_s)
            state.rerank_gate = gate
    return gate


def full_search_slot(request: Request, modes: Iterable[SearchMode]) -> AbstractContextManager[None]:
    """A slot of :func:`rerank_gate` when one of ``modes`` is ``full``; no bound otherwise."""
    if any(mode is SearchMode.FULL for mode in modes):
        return rerank_gate(request).slot()
    return nullcontext()

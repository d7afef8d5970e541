"""Trace the files one real request crosses on its way to the stores (``sys.setprofile``).

A *walk* is every stack of first-party frames (``src/eagle_rag*``) that reaches a store module
(``eagle_rag/stores/``), cut above the entry file (the HTTP route or the CLI command) and below the
first store frame, with consecutive frames of one file merged; the stores are the destination, one
stop (``eagle_rag/stores/``) whichever store module answers. Its files are the files on those
stacks; its *returns* count how often a reader comes back to a file already left to follow its next
call: for every file, the distinct files it calls on the walk, minus one. A straight chain
``route -> service -> retrieve -> stores`` has 4 files and 0 returns; a hub that calls three files
on the way to the stores adds 2.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"
STORES = "eagle_rag/stores/"


@dataclass
class Walk:
    """The files and calls of a traced walk (paths relative to ``src/``)."""

    entry: str
    edges: set[tuple[str, str]] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    entered: set[str] = field(default_factory=set)
    """Every first-party file a function of which ran during the trace (on the way to the stores or not)."""

    @property
    def returns(self) -> int:
        out: dict[str, int] = {}
        for caller, _ in self.edges:
            out[caller] = out.get(caller, 0) + 1
        return sum(n - 1 for n in out.values())

    def add(self, stack: list[str]) -> None:
        if self.entry not in stack:
            return
        stack = stack[stack.index(self.entry):]
        self.files.update(stack)
        self.edges.update(zip(stack, stack[1:], strict=False))

    def summary(self) -> str:
        return f"{len(self.files)} files, {self.returns} returns"


def _first_party(filename: str, cache: dict[str, str | None]) -> str | None:
    rel = cache.get(filename, "")
    if rel == "":
        path = Path(filename)
        rel = str(path.relative_to(SRC)) if path.is_absolute() and path.is_relative_to(SRC) else None
        cache[filename] = rel
    return rel


def trace(entry: str, fn: Callable[[], Any]) -> tuple[Walk, Any]:
    """Run ``fn`` with every thread profiled; returns the walk from ``entry`` (a path under ``src/``)."""
    walk, cache, lock = Walk(entry), {}, threading.Lock()
    parent = threading.local()  # the stack that submitted a pool task, seen from the task's thread

    def files_of(frame: FrameType | None) -> list[str]:
        """The first-party files of ``frame``'s stack, outermost first, after those of the submitter."""
        inner: list[str] = []
        while frame is not None:
            name = _first_party(frame.f_code.co_filename, cache)
            if name is not None and (not inner or inner[-1] != name):
                inner.append(name)
            frame = frame.f_back
        outer: list[str] = getattr(parent, "stack", [])
        stack = inner[::-1]
        if outer and stack and outer[-1] == stack[0]:
            stack = stack[1:]
        return [*outer, *stack]

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event != "call":
            return
        rel = _first_party(frame.f_code.co_filename, cache)
        if rel is None:
            return
        walk.entered.add(rel)
        if not rel.startswith(STORES):
            return
        stack = files_of(frame.f_back)
        inside = next((i for i, name in enumerate(stack) if name.startswith(STORES)), len(stack))
        stack = [*stack[:inside], STORES]
        with lock:
            walk.add(stack)

    submit = ThreadPoolExecutor.submit

    def traced_submit(pool: ThreadPoolExecutor, task: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        outer = files_of(sys._getframe(1))

        def run() -> Any:
            parent.stack = outer
            try:
                return task(*args, **kwargs)
            finally:
                parent.stack = []

        return submit(pool, run)

    ThreadPoolExecutor.submit = traced_submit  # type: ignore[method-assign]
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        result = fn()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
        ThreadPoolExecutor.submit = submit  # type: ignore[method-assign]
    return walk, result

"""Progress of a long command (``ingest``, ``demo``, ``eval beir``, ``eval datasets``).

On a terminal it is a rich progress bar. When stderr is not a terminal (a log file, a pipe, CI) a
bar renders nothing useful, so a plain line goes to stderr instead, every
``EAGLE_RAG_PROGRESS_SECONDS`` seconds (default :data:`PLAIN_EVERY_S`), the first one once that
time has passed, and a last one at the end when any was written. A line is written on time even
while the count stands still, so a quiet log always means a short command; a stage of the work
that counts something else (an ingest prepares the records of a batch it has read, then embeds
their chunks) adds its own count to the line (:meth:`CommandProgress.stage`)::

    ingest: 1200/5183 documents, 41 s
    ingest: 74 records, preparing 30/74 records, 9 s
    ingest: 74 records, embedding 120/380 chunks, 15 s

``EAGLE_RAG_PROGRESS=1`` forces the bar, ``EAGLE_RAG_PROGRESS=0`` switches progress off.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from types import TracebackType
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

STAGE_UNITS = {"preparing": "records", "embedding": "chunks"}
"""What each stage of :meth:`CommandProgress.stage` counts."""
PLAIN_EVERY_S = 5.0
"""Seconds between two plain progress lines (env ``EAGLE_RAG_PROGRESS_SECONDS``)."""


def plain_interval(environ: dict[str, str] | None = None) -> float:
    """Seconds between plain lines: ``EAGLE_RAG_PROGRESS_SECONDS`` when it is a number >= 0."""
    raw = (os.environ if environ is None else environ).get("EAGLE_RAG_PROGRESS_SECONDS", "")
    try:
        value = float(raw)
    except ValueError:
        return PLAIN_EVERY_S
    return value if value >= 0 else PLAIN_EVERY_S


class CommandProgress:
    """``update(done, total)`` as work goes on; a context manager around the work.

    ``label`` names the step ("ingest"), ``unit`` what is counted ("documents").
    """

    def __init__(self, label: str, unit: str, total: int | None = None, console: Console | None = None,
                 stream: TextIO | None = None, every_s: float | None = None) -> None:
        self.label, self.unit, self.total = label, unit, total
        self.console = console or Console(stderr=True)
        self.stream = stream or sys.stderr
        self.every_s = plain_interval() if every_s is None else every_s
        mode = os.environ.get("EAGLE_RAG_PROGRESS", "")
        self.bar: Progress | None = None
        self.plain = mode != "0" and not (mode == "1" or self.console.is_terminal)
        if mode != "0" and not self.plain:
            self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeRemainingColumn(), console=self.console, transient=False)
        self._task: TaskID | None = None
        self._started = self._last = time.monotonic()
        self._done = 0
        self._stage = ""
        self._lines = 0
        self._written = -1
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def __enter__(self) -> CommandProgress:
        self._started = self._last = time.monotonic()
        if self.bar is not None:
            self.bar.start()
            self._task = self.bar.add_task(f"{self.label} ({self.unit})", total=self.total)
        elif self.plain and self.every_s > 0:
            self._stop.clear()
            self._ticker = threading.Thread(target=self._tick, name="eagle-progress", daemon=True)
            self._ticker.start()
        return self

    def _tick(self) -> None:
        """Write the line when ``every_s`` passed without one (the work may not call update for long)."""
        while not self._stop.wait(max(0.05, self.every_s - (time.monotonic() - self._last))):
            with self._lock:
                if time.monotonic() - self._last >= self.every_s:
                    self._write()

    def update(self, done: int, total: int | None = None) -> None:
        """``done`` units of ``total`` (None: the total given at the start, or unknown)."""
        self._done = done
        if total is not None:
            self.total = total
        if self.bar is not None and self._task is not None:
            self.bar.update(self._task, completed=done, total=self.total)
        elif self.plain and time.monotonic() - self._last >= self.every_s:
            with self._lock:
                self._write()

    def advance(self, step: int = 1) -> None:
        self.update(self._done + step)

    def stage(self, name: str, done: int, total: int | None = None) -> None:
        """A stage of the work that counts something else while the main count stands (``preparing``
        records, ``embedding`` chunks: :data:`STAGE_UNITS`): the line and the bar then say
        ``embedding 120/380 chunks``."""
        unit = STAGE_UNITS.get(name, "")
        self._stage = f"{name} {done}/{total} {unit}" if total else f"{name} {done} {unit}"
        if self.bar is not None and self._task is not None:
            self.bar.update(self._task, description=f"{self.label} ({self.unit}), {self._stage}")
        elif self.plain and time.monotonic() - self._last >= self.every_s:
            with self._lock:
                self._write()

    def line(self) -> str:
        """The plain line: ``LABEL: DONE[/TOTAL] UNIT[, STAGE], SECONDS s``."""
        count = f"{self._done}/{self.total}" if self.total is not None else str(self._done)
        stage = f", {self._stage}" if self._stage else ""
        return f"{self.label}: {count} {self.unit}{stage}, {time.monotonic() - self._started:.0f} s"

    def _write(self) -> None:
        self.stream.write(self.line() + "\n")
        self.stream.flush()
        self._last = time.monotonic()
        self._lines += 1
        self._written = self._done

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._ticker is not None:
            self._stop.set()
            self._ticker.join()
            self._ticker = None
        if self.bar is not None:
            self.bar.stop()
        elif self.plain and self._lines and kind is None and self._written != self._done:
            self._write()

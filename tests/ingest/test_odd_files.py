"""Files that once went wrong at ingest: a named pipe (it blocked the ingest forever), the same file
given twice (counted twice for one document), a Markdown file of one heading (called empty)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from eagle_rag.engine import Engine
from eagle_rag.ingest.report import IngestReport
from eagle_rag.settings import load_settings
from eagle_rag.types import SearchMode, SearchRequest
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    settings = load_settings(environ=GENERAL, overrides={"data_dir": str(tmp_path_factory.mktemp("odd-data")),
                                                         "encoders": {"mode": "deterministic"},
                                                         "plugins": {"enabled": []}})
    with Engine(settings) as eng:
        yield eng


def ingest_within(engine: Engine, paths: list[Path], kb: str, pipe: Path, seconds: float = 30) -> IngestReport:
    """``engine.ingest`` that fails the test instead of hanging when it waits on ``pipe``."""
    done: list[IngestReport] = []
    worker = threading.Thread(target=lambda: done.append(engine.ingest(paths, kb_name=kb)), daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():  # a writer that opens and closes the pipe lets the blocked reader go on
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(seconds)
        pytest.fail(f"the ingest waited on the named pipe {pipe.name} for {seconds} s")
    return done[0]


def test_a_named_pipe_is_reported_as_not_a_regular_file_and_the_rest_ingested(engine, tmp_path):
    folder = tmp_path / "l3"
    folder.mkdir()
    (folder / "a.txt").write_text("numbat\n")
    pipe = folder / "fifo.txt"
    os.mkfifo(pipe)
    report = ingest_within(engine, [folder], "pipes", pipe)
    assert (report.files, report.documents) == (2, 1)
    assert [(f.path, f.error) for f in report.failures] == [(str(pipe), "fifo.txt: not a regular file")]
    alone = ingest_within(engine, [pipe], "pipes", pipe)
    assert (alone.documents, [f.error for f in alone.failures]) == (0, ["fifo.txt: not a regular file"])
    hits = engine.search(SearchRequest(query="numbat", mode=SearchMode.BM25, kb_names=("pipes",))).hits
    assert [h.text for h in hits] == ["numbat"]


def test_a_file_given_twice_is_read_once_and_counted_once(engine, tmp_path):
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nWombat burrows.\n")
    report = engine.ingest([note, note, tmp_path], kb_name="twice")
    assert (report.files, report.documents, report.added, report.failures) == (1, 1, 1, [])
    assert engine.registry.count(kb_name="twice") == 1


def test_a_markdown_file_of_one_heading_is_indexed(engine, tmp_path):
    heading = tmp_path / "h.md"
    heading.write_text("# Only a heading about fooximab\n")
    report = engine.ingest([heading], kb_name="headings")
    assert (report.files, report.documents, report.failures) == (1, 1, [])
    [hit] = engine.search(SearchRequest(query="fooximab", mode=SearchMode.BM25, kb_names=("headings",))).hits
    assert hit.text == "Only a heading about fooximab" and hit.path == "Only a heading about fooximab"

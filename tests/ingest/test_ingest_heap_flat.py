"""A real ingest's own Python heap does not grow with the records already written (issue 24).

One JSONL file of ``5 * N`` records goes through ``Engine.ingest`` on real stores (Milvus Lite, tantivy,
SQLite registry; the deterministic encoder). ``tracemalloc`` takes the heap after ``N`` records and
after ``5 * N``, both at the same point of a batch, and compares what the pipeline holds: the reader,
the duplicate-id check, the report, the batches, the registry and lexical clients. Two things are
left out on purpose, since they are not the pipeline's (docs/architecture.md#ingest-memory):

- Milvus Lite (and pymilvus/grpc under it): the embedded store runs inside the process and keeps its
  loaded collections in memory; a Milvus server (``milvus.uri``) holds them in its own process;
- the deterministic stand-in encoder's cache of token vectors (bounded at 8,192 tokens; every
  record here brings a token of its own).

Each measure runs in a fresh interpreter (this module run as a script): in the test process, what
earlier tests left behind can allocate between the two looks too (one suite run measured +60 kB where
the check alone measures -12 to -18 kB).

The memory measured outside Python (tantivy's writer, SQLite's page cache) is in bench/HISTORY.md
(``bench/bench_ingest_memory.py --write --store-process``).
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from eagle_rag.engine import Engine
from eagle_rag.ingest import orchestrator
from eagle_rag.settings import load_settings
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration
BATCH = 32
N = 4 * BATCH  # records before the first look; the second comes after 5 * N
PER_RECORD_BYTES = 64  # allowed heap growth per record written between the two looks
WORDS = ["kinase", "receptor", "antibody", "cohort", "survival", "toxicity", "metformin", "insulin"]
NOT_THE_PIPELINE = ["*/milvus_lite/*", "*/pymilvus/*", "*/grpc/*", "*/google/protobuf/*",
                    "*/eagle_rag/encoders/deterministic.py", tracemalloc.__file__]


def _corpus(path: Path, records: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for i in range(1, records + 1):
            text = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(40))
            fh.write(json.dumps({"_id": f"d{i}", "title": f"Record {i}", "text": f"{text} marker{i}"}) + "\n")


def _pipeline_heap() -> int:
    gc.collect()
    snapshot = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(False, pattern) for pattern in NOT_THE_PIPELINE])
    return sum(stat.size for stat in snapshot.statistics("filename"))


def _heap_growth(tmp_path: Path, hold: Callable[[int], None] = lambda _: None) -> tuple[int, int]:
    """(heap after 5 * N records - heap after N, documents written); ``hold(i)`` runs at every tick."""
    orchestrator.DOCS_PER_BATCH = BATCH
    orchestrator.PROGRESS_EVERY = 1
    warm, corpus = tmp_path / "warm.jsonl", tmp_path / "corpus.jsonl"
    _corpus(warm, BATCH)
    _corpus(corpus, 5 * N + BATCH)
    settings = load_settings(environ=GENERAL, overrides={"data_dir": str(tmp_path / "data"), "plugins": {"enabled": []},
                                                        "encoders": {"mode": "deterministic"}})
    heap: dict[int, int] = {}

    def progress(done: int, _total: int | None) -> None:
        hold(done)
        if done in (N + 1, 5 * N + 1):  # the same point of a batch: N (5 N) records written, none pending
            heap[done] = _pipeline_heap()

    tracemalloc.start(1)
    try:
        with Engine(settings) as eng:
            eng.ingest([warm], kb_name="warm")  # collections created, indexes opened
            report = eng.ingest([corpus], kb_name="kb", progress=progress)
    finally:
        tracemalloc.stop()
    return heap[5 * N + 1] - heap[N + 1], report.documents


def _heap_growth_in_a_fresh_process(tmp_path: Path, leak: bool = False) -> tuple[int, int]:
    """:func:`_heap_growth` in a new interpreter (``leak``: keep about 200 bytes per record)."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.run([sys.executable, "-m", "tests.ingest.test_ingest_heap_flat", str(tmp_path), str(int(leak))],
                          cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    answer = json.loads(proc.stdout.strip().splitlines()[-1])
    return answer["growth"], answer["documents"]


def _keep_about_200_bytes(kept: list[bytes]) -> Callable[[int], None]:
    return lambda i: kept.append(b"x" * 160 + str(i).encode())


def test_ingest_heap_does_not_grow_with_records_written(tmp_path: Path) -> None:
    growth, documents = _heap_growth_in_a_fresh_process(tmp_path)
    assert documents == 5 * N + BATCH
    assert growth < PER_RECORD_BYTES * 4 * N, f"{growth} bytes over {4 * N} records written"


def test_the_check_sees_a_per_record_leak(tmp_path: Path) -> None:
    """The same measure catches 200 bytes kept per record (a list of every id seen, say)."""
    growth, _ = _heap_growth_in_a_fresh_process(tmp_path, leak=True)
    assert growth >= PER_RECORD_BYTES * 4 * N


if __name__ == "__main__":  # one measure, printed as JSON: python -m tests.ingest.test_ingest_heap_flat DIR LEAK
    kept: list[bytes] = []
    hold = _keep_about_200_bytes(kept) if sys.argv[2] == "1" else (lambda _: None)
    growth, documents = _heap_growth(Path(sys.argv[1]), hold)
    print(json.dumps({"growth": growth, "documents": documents}))

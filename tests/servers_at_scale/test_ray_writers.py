"""The Ray ingest against server stores: a pool of write actors writes in parallel.

The stores are the session's milvus-lite gRPC server (vectors and ``lexical.backend: milvus``) and a
fresh PostgreSQL database (registry): every store is a server, so ``ingest --executor ray`` writes
through a pool of write actors (``RayOptions.writers``) instead of the driver. A corpus of RECORDS
synthetic records, BATCH documents a batch, is ingested on a local Ray of 2 CPUs with 2 write actors,
both of which are killed (SIGKILL) as soon as the registry shows a document ``pending`` (a write has
begun and not ended): Ray restarts them and runs their batches again. Afterwards the stores must hold
what a local ingest of the same corpus into embedded stores holds (documents complete with the same
hashes and chunk counts, chunk ids, texts, vectors at cosine >= 0.9999, lexical rows, each once),
``doctor`` finds nothing, and the report is the local one. The encoders are the hash encoders and no
plugin runs, so the test costs the pipeline and the stores, not a model.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from eagle_rag.engine import Engine
from eagle_rag.ingest.executors import Executor, RayOptions
from eagle_rag.ingest.writer import vector_collections
from eagle_rag.ops import doctor
from eagle_rag.settings import load_settings
from eagle_rag.testing.ingest_compare import Snapshot, differences, snapshot
from tests.ingest.test_ray_ingest import kill_processes, report_view

pytestmark = pytest.mark.integration
RECORDS, BATCH, WRITERS = 48, 6, 2  # 8 write batches over 2 write actors
WRITE_ACTOR = "ray::MapWorker(MapBatches(WriteActor))"
WORDS = ["kinase", "inhibitor", "trial", "dose", "receptor", "tumour", "insulin", "statin", "warfarin", "metformin",
         "cohort", "placebo", "antibody", "plasma", "renal", "hepatic", "cardiac", "neuron", "gene", "mutation"]
BASE: dict[str, Any] = {"encoders": {"mode": "deterministic"}, "plugins": {"enabled": []},
                        "ingest": {"sentence_collections": [], "token_vector_collections": []}}


def write_corpus(path: Path) -> Path:
    rng = random.Random(40)
    path.write_text("".join(json.dumps({"id": f"r{i:03d}", "title": f"Record {i}",
                                        "text": " ".join(rng.choices(WORDS, k=30 + 40 * (i % 3)))}) + "\n"
                            for i in range(RECORDS)), encoding="utf-8")
    return path


@dataclass
class Runs:
    local_report: dict[str, Any]
    ray_report: dict[str, Any]
    local: Snapshot
    ray: Snapshot
    findings: list[Any]
    killed: list[int]


@pytest.fixture(scope="module")
def runs(local_ray: None, milvus_lite_server_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    from tests.milvus_servers import fresh_postgres_database

    tmp = tmp_path_factory.mktemp("ray_writers")
    corpus = write_corpus(tmp / "corpus.jsonl")
    with Engine(load_settings(environ={}, overrides={**BASE, "data_dir": str(tmp / "local")})) as engine:
        local_report = report_view(engine.ingest([corpus], kb_name="w"))
        local = snapshot(engine)
    killed: list[int] = []
    with fresh_postgres_database("eagle_ray_writers") as registry:
        servers = {**BASE, "data_dir": str(tmp / "ray"), "milvus": {"uri": milvus_lite_server_uri},
                   "lexical": {"backend": "milvus"}, "registry": {"url": registry}}
        stop = threading.Event()
        killer = threading.Thread(target=kill_mid_write, args=(registry, stop, killed), daemon=True)
        with Engine(load_settings(environ={}, overrides=servers)) as engine:
            try:
                killer.start()
                report = engine.ingest([corpus], kb_name="w", executor=Executor.RAY,
                                       ray=RayOptions(actors=1, writers=WRITERS, batch_docs=BATCH))
                stop.set()
                killer.join()
                yield Runs(local_report, report_view(report), local, snapshot(engine), doctor.check(engine).findings,
                           killed)
            finally:
                stop.set()
                for collection in vector_collections(engine.ctx):
                    engine.vectors.drop_collection(collection)
                    if engine.has_lexical_index(collection):
                        engine.lexical_for(collection).drop()


def kill_mid_write(registry: str, stop: threading.Event, killed: list[int]) -> None:
    """Once the registry holds a ``pending`` document (a write actor is between step 1 and the flip to
    complete, eagle_rag.ingest.writer), SIGKILL every write actor and record their pids."""
    import sqlalchemy

    db = sqlalchemy.create_engine(registry)
    try:
        query = sqlalchemy.text("SELECT count(*) FROM documents WHERE status = 'pending'")
        while not stop.is_set():
            try:
                with db.connect() as conn:
                    pending = conn.execute(query).scalar()
            except sqlalchemy.exc.ProgrammingError:  # the table is not there yet
                pending = 0
            if pending:
                killed.extend(kill_processes(WRITE_ACTOR))
                return
            time.sleep(0.01)
    finally:
        db.dispose()


def test_parallel_writers_leave_what_the_local_ingest_leaves_after_they_were_killed(runs: Runs) -> None:
    assert len(runs.killed) == WRITERS, "two write actors should have been running when a write had begun"
    assert runs.ray_report == runs.local_report
    assert runs.local_report["documents"] == RECORDS and runs.local_report["chunks"] >= RECORDS
    assert differences(runs.ray, runs.local) == []
    assert set(runs.ray.documents) == {f"w/r{i:03d}" for i in range(RECORDS)}
    assert all(status == "complete" for status, _, _ in runs.ray.documents.values())
    assert all(len(ids) == len(set(ids)) == runs.local.chunks for ids in runs.ray.lexical.values())
    assert runs.findings == []

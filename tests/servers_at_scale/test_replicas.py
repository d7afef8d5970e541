"""Two ``eagle-rag serve`` replicas, each with its own (empty) data folder, on one milvus-lite gRPC server
(vectors and ``lexical.backend: milvus``) and one PostgreSQL registry: what one writes the other serves, a
replica killed mid-ingest loses nothing once the file is sent to the other, and a Milvus outage is 503
``store_unavailable`` with ``Retry-After`` through both until the server is back.

The corpus is 1,000 synthetic records (the deterministic hash encoder; the SciFact figures of the same
configuration are in bench/bench_servers.py).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from eagle_rag.engine import Engine
from eagle_rag.settings import load_settings
from tests.milvus_servers import (
    MilvusProcess,
    fresh_postgres_database,
    milvus_lite_server,
    unavailable,
    wait_until,
)
from tests.servers import free_port, health_ok, wait_ready

pytestmark = pytest.mark.integration
RECORDS = 1000
WORDS = ["tumour", "melanoma", "kinase", "receptor", "antibody", "trial", "cohort", "mouse", "survival", "dose",
         "toxicity", "gene", "protein", "cell", "therapy", "risk", "metformin", "aspirin", "insulin", "glucose"]
HEALTH_TIMEOUT_S = 2.0
NOTE = "# Warfarin replica note\n\nWarfarin bleeding risk rises with aspirin; check the INR weekly.\n"


@dataclass
class Replica:
    name: str
    data: Path
    env: dict[str, str]
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.port = free_port()
        log = self.data.parent / f"{self.name}.log"
        with log.open("ab") as out:
            self.proc = subprocess.Popen([sys.executable, "-c", "from eagle_rag.cli.app import main; main()", "serve",
                                          "--host", "127.0.0.1", "--port", str(self.port)],
                                         env=self.env, stdout=out, stderr=subprocess.STDOUT)
        wait_ready(self.proc, lambda: health_ok(self.url), log, 180)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def client(self, timeout: float = 120) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=timeout)


@dataclass
class Cluster:
    milvus: MilvusProcess
    a: Replica
    b: Replica
    corpus: Path
    registry_url: str


def _corpus(path: Path) -> Path:
    rng = random.Random(39)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(RECORDS):
            text = " ".join(rng.choices(WORDS, k=40)) + f" marker{i:04d}"
            fh.write(json.dumps({"id": f"r{i:04d}", "title": f"Record {i}", "text": text}) + "\n")
    return path


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    root = tmp_path_factory.mktemp("replicas")
    milvus = milvus_lite_server(root / "milvus")
    (root / "milvus").mkdir()
    try:
        milvus.start()
    except AssertionError as exc:
        unavailable(f"the milvus-lite server did not start: {str(exc)[-1500:]}")
    with fresh_postgres_database(f"eagle_replicas_{os.getpid()}") as registry:
        base = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
        base.update({"EAGLE_RAG_ENCODERS__MODE": "deterministic", "EAGLE_RAG_PLUGINS__ENABLED": "[]",
                     "EAGLE_RAG_LOG_LEVEL": "WARNING", "OMP_NUM_THREADS": "1", "EAGLE_RAG_API__WARM_UP": "false",
                     "EAGLE_RAG_MILVUS__URI": milvus.uri, "EAGLE_RAG_REGISTRY__URL": registry,
                     "EAGLE_RAG_LEXICAL__BACKEND": "milvus", "EAGLE_RAG_API__HEALTH_TIMEOUT_S": str(HEALTH_TIMEOUT_S),
                     # no plugin runs here, so nothing writes token vectors: the (biomed) default profile's
                     # token collections are cleared, or doctor would ask for them
                     "EAGLE_RAG_INGEST__TOKEN_VECTOR_COLLECTIONS": "[]",
                     "EAGLE_RAG_INGEST__SENTENCE_COLLECTIONS": "[]"})
        replicas = []
        for name in ("a", "b"):
            data = root / name / "data"
            data.mkdir(parents=True)
            replicas.append(Replica(name, data, {**base, "EAGLE_RAG_DATA_DIR": str(data)}))
        try:
            for replica in replicas:
                replica.start()
            yield Cluster(milvus, replicas[0], replicas[1], _corpus(root / "records.jsonl"), registry)
        finally:
            for replica in replicas:
                replica.stop()
            milvus.stop()


def _upload(client: httpx.Client, kb: str, path: Path) -> httpx.Response:
    return client.post("/ingest", data={"kb_name": kb}, files={"files": (path.name, path.read_bytes())})


def _hits(client: httpx.Client, query: str, **extra: object) -> list[tuple[str, str]]:
    answer = client.post("/search", json={"query": query, "top_k": 10, **extra})
    assert answer.status_code == 200, answer.text
    return [(h["document_id"], h["id"]) for h in answer.json()["hits"]]


def test_what_one_replica_writes_the_other_serves(cluster: Cluster, tmp_path: Path) -> None:
    note = tmp_path / "warfarin.md"
    note.write_text(NOTE, encoding="utf-8")
    with cluster.a.client() as a, cluster.b.client() as b:
        assert _upload(a, "notes", note).json()["documents"] == 1
        assert not list((cluster.a.data / "uploads").rglob("*.md"))  # staging only: the document is in the stores
        found = b.post("/search", json={"query": "warfarin INR weekly", "kb_names": ["notes"]}).json()
        assert found["hits"] and "Warfarin bleeding risk" in found["hits"][0]["text"], found
        doc = found["hits"][0]["document_id"]
        for query, mode in (("warfarin bleeding", "hybrid"), ("aspirin risk", "bm25"), ("INR", "dense")):
            assert _hits(a, query, mode=mode) == _hits(b, query, mode=mode)
        deleted = b.delete(f"/kbs/notes/documents/{doc}")
        assert deleted.status_code == 200, deleted.text
        assert a.get(f"/kbs/notes/documents/{doc}").status_code == 404
        after = a.post("/search", json={"query": "warfarin INR weekly"}).json()
        assert doc not in [h["document_id"] for h in after["hits"]], after


def _complete(client: httpx.Client, kb: str) -> dict[str, int]:
    kbs = {k["name"]: k for k in client.get("/kbs").json()["kbs"]}
    return kbs.get(kb, {"complete": 0, "pending": 0})


def _clean_chunk_count(corpus: Path, root: Path) -> int:
    """Chunks of a clean, embedded ingest of the same file (Milvus Lite, tantivy, SQLite)."""
    ingest = {"token_vector_collections": [], "sentence_collections": []}
    settings = load_settings(environ={}, overrides={"data_dir": str(root / "clean"), "ingest": ingest,
                                                    "encoders": {"mode": "deterministic"}, "plugins": {"enabled": []}})
    with Engine(settings) as engine:
        return engine.ingest([corpus], kb_name="records").chunks


def test_a_replica_killed_mid_ingest_loses_nothing_once_the_other_ingests(cluster: Cluster, tmp_path: Path) -> None:
    """SIGKILL replica A while it ingests 1,000 records, send the same file to B: every record is complete and
    found once, doctor finds nothing, and the chunk count equals a clean ingest's."""
    def send_to_a() -> None:
        with suppress(httpx.HTTPError), cluster.a.client() as a:
            _upload(a, "records", cluster.corpus)

    sent = threading.Thread(target=send_to_a, daemon=True)
    sent.start()
    try:
        _kill_a_and_ingest_through_b(cluster, sent, tmp_path)
    finally:
        if cluster.a.proc is None:
            cluster.a.start()


def _kill_a_and_ingest_through_b(cluster: Cluster, sent: threading.Thread, tmp_path: Path) -> None:
    with cluster.b.client() as b:
        assert wait_until(lambda: _complete(b, "records")["complete"] + _complete(b, "records")["pending"] > 0, 120)
        cluster.a.stop(signal.SIGKILL)
        sent.join(30)
        before = _complete(b, "records")
        assert before["complete"] < RECORDS, "the ingest finished before the kill: nothing was tested"
        if before["pending"]:  # the index check is cached for 3 s (index_health.CACHE_TTL_S)
            assert wait_until(lambda: b.get("/health").json()["status"] == "degraded", 10)
            health = b.get("/health").json()
            assert any("documents are pending" in reason for reason in health["reasons"]), health
        report = _upload(b, "records", cluster.corpus)
        assert report.status_code == 200, report.text
        after = _complete(b, "records")
        assert (after["documents"], after["complete"], after["pending"]) == (RECORDS, RECORDS, 0), after
        doctor = b.get("/doctor").json()
        assert doctor["findings"] == [], doctor["findings"][:5]
        counted = b.get("/health").json()["stores"]["lexical"]["info"]
        expected = _clean_chunk_count(cluster.corpus, tmp_path)
        assert counted["eagle_text"] == expected == RECORDS  # one chunk a record, none twice
        for i in random.Random(7).sample(range(RECORDS), 8):
            found = b.post("/search", json={"query": f"marker{i:04d}", "mode": "bm25", "top_k": 5,
                                            "kb_names": ["records"]}).json()["hits"]
            assert [h["document_id"] for h in found].count(f"r{i:04d}") == 1, found


def test_a_milvus_outage_is_503_with_retry_after_through_both_replicas(cluster: Cluster) -> None:
    """Searches through both replicas while the Milvus server is stopped: 200 or 503 store_unavailable with
    Retry-After, none slower than api.health_timeout_s (plus the client's own slack), no 500; /health says
    degraded; both answer again on their own once the server is back."""
    statuses: list[tuple[str, int, float, str]] = []
    stop = threading.Event()

    def load(replica: Replica) -> None:
        with replica.client(timeout=30) as client:
            while not stop.is_set():
                started = time.monotonic()
                answer = client.post("/search", json={"query": "kinase receptor dose", "top_k": 5})
                code = answer.json()["error"]["code"] if answer.status_code >= 400 else ""
                if answer.status_code == 503:
                    assert answer.headers["Retry-After"] == "5"
                statuses.append((replica.name, answer.status_code, time.monotonic() - started, code))

    threads = [threading.Thread(target=load, args=(r,), daemon=True) for r in (cluster.a, cluster.b)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)
    cluster.milvus.stop()
    try:
        time.sleep(4.0)
        for replica in (cluster.a, cluster.b):
            with replica.client(timeout=30) as client:
                started = time.monotonic()
                health = client.get("/health")
                assert time.monotonic() - started < HEALTH_TIMEOUT_S + 3.0
                assert health.json()["status"] == "degraded", health.text
    finally:
        cluster.milvus.start()
    recovered = {r.name: wait_until(lambda r=r: _search_ok(r), 90) for r in (cluster.a, cluster.b)}
    stop.set()
    for thread in threads:
        thread.join(60)
    assert recovered == {"a": True, "b": True}
    during = [s for s in statuses if s[1] != 200]
    assert during, "no search ran during the outage"
    assert {(status, code) for _, status, _, code in during} == {(503, "store_unavailable")}, during[:5]
    assert max(seconds for _, _, seconds, _ in statuses) < HEALTH_TIMEOUT_S + 8.0
    assert {name for name, *_ in during} == {"a", "b"}


def _search_ok(replica: Replica) -> bool:
    with replica.client(timeout=30) as client:
        answer = client.post("/search", json={"query": "kinase receptor dose", "top_k": 5})
        return answer.status_code == 200 and bool(answer.json()["hits"])

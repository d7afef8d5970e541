"""Faults: an ingest killed with SIGKILL resumes and loses nothing; stores that are down give one
clear line (never a traceback or a hang) and a degraded ``/health``.

The kill test runs ``eagle-rag ingest`` in a subprocess, kills it after seeded random delays,
restarts it until it finishes, then checks with the doctor that every document is complete with
exactly its chunks, and that searches find them. ``bench/bench_faults.py`` does the same with more
kills on a larger corpus.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.engine import Engine
from eagle_rag.ops import doctor
from eagle_rag.settings import load_settings
from eagle_rag.types import DocumentStatus, SearchMode, SearchRequest
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration

RECORDS = 600
KILLS = 2
SEED = 7
WORDS = ["tumour", "melanoma", "kinase", "receptor", "antibody", "trial", "cohort", "mouse", "survival", "dose",
         "toxicity", "gene", "protein", "cell", "therapy", "risk", "metformin", "aspirin", "insulin", "glucose"]


def _corpus(root: Path) -> Path:
    rng = random.Random(SEED)
    root.mkdir()
    with (root / "records.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(RECORDS):
            text = " ".join(rng.choices(WORDS, k=60)) + f" marker{i:04d}"
            fh.write(json.dumps({"id": f"r{i:04d}", "title": f"Record {i}", "text": text}) + "\n")
    for i in range(3):
        sections = "\n\n".join(f"## Part {j}\n" + " ".join(rng.choices(WORDS, k=300)) for j in range(6))
        (root / f"long{i}.md").write_text(f"# Long document {i}\n\n{sections}\n", encoding="utf-8")
    (root / "zh.md").write_text("# 二甲双胍\n\n## 不良反应\n常见胃肠道反应，如恶心、腹泻。\n", encoding="utf-8")
    return root


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
    env.update({**GENERAL, "EAGLE_RAG_DATA_DIR": str(data_dir), "EAGLE_RAG_ENCODERS__MODE": "deterministic",
                "EAGLE_RAG_PLUGINS__ENABLED": "[]", **extra})
    return env


def _cli(*args: str, env: dict[str, str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eagle_rag.cli.app", *args], env=env, cwd=cwd, text=True,
                          capture_output=True, timeout=timeout)


def _settings(data_dir: Path) -> object:
    return load_settings(environ=GENERAL, overrides={"data_dir": str(data_dir), "encoders": {"mode": "deterministic"},
                                                     "plugins": {"enabled": []}})


def _pending(registry: Path) -> int:
    """Documents the registry holds as ``pending`` (a batch in flight); 0 while it cannot be read."""
    if not registry.exists():
        return 0
    try:
        with closing(sqlite3.connect(f"file:{registry}?mode=ro", uri=True, timeout=0.05)) as db:
            return int(db.execute("SELECT count(*) FROM documents WHERE status = 'pending'").fetchone()[0])
    except sqlite3.Error:  # not created yet, or locked by the writer for a moment
        return 0


def _kill_mid_batch(proc: subprocess.Popen[str], registry: Path, delay: float) -> bool:
    """SIGKILL ``proc`` ``delay`` seconds after a batch is seen in flight. False when it finished first."""
    while proc.poll() is None:
        if _pending(registry):
            time.sleep(delay)
            if proc.poll() is not None:
                return False
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=30)
            return True
        time.sleep(0.005)
    return False


def test_killed_ingest_resumes_and_loses_nothing(tmp_path: Path) -> None:
    """Kills are timed by progress, not by the clock: each run is killed at a seeded random delay after
    the registry shows a batch in flight, so the test holds on a fast machine as on a slow one."""
    corpus, data = _corpus(tmp_path / "corpus"), tmp_path / "data"
    env = _env(data)
    rng = random.Random(SEED)
    killed = 0
    for _attempt in range(KILLS + 5):
        proc = subprocess.Popen([sys.executable, "-m", "eagle_rag.cli.app", "ingest", str(corpus), "--kb", "faults"],
                                env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if killed < KILLS and _kill_mid_batch(proc, data / "registry.db", rng.uniform(0.0, 0.05)):
            killed += 1
            continue
        out, errors = proc.communicate(timeout=180)
        assert proc.returncode == 0, errors
        break
    else:
        pytest.fail("the ingest never finished")
    assert killed >= 1  # at least one run died mid-batch and was resumed
    with Engine(_settings(data)) as engine:  # type: ignore[arg-type]
        report = doctor.check(engine)
        assert report.findings == [], report.to_dict()
        assert report.documents == {"complete": RECORDS + 4}
        for i in rng.sample(range(RECORDS), 25):
            hits = engine.search(SearchRequest(query=f"marker{i:04d}", top_k=1, mode=SearchMode.BM25)).hits
            assert hits and hits[0].document_id == f"r{i:04d}"
        assert engine.search(SearchRequest(query="二甲双胍 不良反应", top_k=1)).hits


def test_doctor_finds_and_repairs(tmp_path: Path) -> None:
    corpus, data = _corpus(tmp_path / "corpus"), tmp_path / "data"
    with Engine(_settings(data)) as engine:  # type: ignore[arg-type]
        assert engine.ingest([corpus / "long0.md", corpus / "long1.md", corpus / "zh.md"], kb_name="k").documents == 3
        ids = {record.name: record.id for record in engine.registry.list()}
        long0, long1, zh = ids["Long document 0"], ids["Long document 1"], ids["二甲双胍"]
        lexical = engine.lexical_for("eagle_text")
        victim = sorted(lexical.chunk_ids_for_document(long0))[0]
        lexical.delete_chunks([victim])  # a chunk lost from one store
        lexical.commit()
        engine.registry.set_status(long1, DocumentStatus.PENDING)  # an interrupted ingest
        engine.registry.delete(zh)  # its chunks become orphans
        report = doctor.check(engine)
        kinds = {(f.kind, f.document_id) for f in report.findings}
        assert kinds == {("missing", long0), ("pending", long1), ("orphan", zh)}
        assert not report.ok
        doctor.repair(engine, report)
        assert report.ok and report.actions
        assert doctor.check(engine).findings == []
        assert engine.registry.get(long0).status is DocumentStatus.FAILED  # type: ignore[union-attr]
        assert "re-ingest" in engine.registry.get(long1).error  # type: ignore[union-attr]
        again = engine.ingest([corpus], kb_name="k")  # the re-run restores them
        assert not again.failures
        assert doctor.check(engine).findings == []
        assert engine.registry.count(status=DocumentStatus.COMPLETE) == RECORDS + 4


def test_doctor_cli_reports_json(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with Engine(_settings(data)) as engine:  # type: ignore[arg-type]
        (tmp_path / "a.md").write_text("# A\n\nAspirin.\n", encoding="utf-8")
        engine.ingest([tmp_path / "a.md"], kb_name="k")
        doc = engine.registry.list()[0].id
        engine.registry.delete(doc)  # its chunks are now orphans
    result = _cli("doctor", "--json", env=_env(data), cwd=tmp_path)
    assert result.returncode == 1
    body = json.loads(result.stdout)
    assert body["finding_counts"] == {"orphan": 1} and not body["ok"]
    fixed = _cli("doctor", "--repair", env=_env(data), cwd=tmp_path)
    assert fixed.returncode == 0 and "deleted 1 chunks" in fixed.stdout
    assert _cli("doctor", env=_env(data), cwd=tmp_path).returncode == 0


def _one_clear_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if line.startswith("error")]
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_wrong_milvus_uri_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\nAspirin.\n", encoding="utf-8")
    env = _env(tmp_path / "data", EAGLE_RAG_MILVUS__URI="http://127.0.0.1:1")
    started = time.perf_counter()
    line = _one_clear_line(_cli("ingest", str(tmp_path / "a.md"), env=env, cwd=tmp_path))
    assert "store_unavailable" in line and "Milvus server at http://127.0.0.1:1 is unreachable" in line
    assert time.perf_counter() - started < 30


def test_unreachable_postgres_is_one_clear_line(tmp_path: Path) -> None:
    env = _env(tmp_path / "data", EAGLE_RAG_REGISTRY__URL="postgresql+psycopg://app:secret@127.0.0.1:1/eagle")
    line = _one_clear_line(_cli("search", "aspirin", env=env, cwd=tmp_path))
    assert "document registry at postgresql+psycopg://app:***@127.0.0.1:1/eagle is unreachable" in line
    assert "secret" not in line


class _Blackhole:
    """A loopback TCP port that accepts connections and never answers (a hung server)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                self.conns.append(self.sock.accept()[0])
            except OSError:
                return

    def close(self) -> None:
        for conn in self.conns:
            conn.close()
        self.sock.close()


def test_hung_postgres_times_out(tmp_path: Path) -> None:
    hole = _Blackhole()
    try:
        url = f"postgresql+psycopg://app@127.0.0.1:{hole.port}/eagle?connect_timeout=2"
        started = time.perf_counter()
        line = _one_clear_line(_cli("search", "aspirin", env=_env(tmp_path / "data", EAGLE_RAG_REGISTRY__URL=url),
                                    cwd=tmp_path))
        assert "unreachable" in line and time.perf_counter() - started < 20
    finally:
        hole.close()


def test_health_is_degraded_with_real_outages(tmp_path: Path) -> None:
    hole = _Blackhole()
    try:
        for registry in ("postgresql+psycopg://app@127.0.0.1:1/eagle",
                         f"postgresql+psycopg://app@127.0.0.1:{hole.port}/eagle?connect_timeout=2"):
            settings = load_settings(environ=GENERAL, overrides={
                "data_dir": str(tmp_path / "data"), "encoders": {"mode": "deterministic"},
                "plugins": {"enabled": []}, "milvus": {"uri": "http://127.0.0.1:1"},
                "registry": {"url": registry}, "api": {"health_timeout_s": 1.0}})
            with Engine(settings) as engine, TestClient(create_app(engine), raise_server_exceptions=False) as c:
                started = time.perf_counter()
                response = c.get("/health")
                elapsed = time.perf_counter() - started
                search = c.post("/search", json={"query": "aspirin"})
            body = response.json()
            assert response.status_code == 200 and body["status"] == "degraded"
            assert body["stores"]["vectors"]["state"] == "down"
            assert body["stores"]["registry"]["state"] in ({"down"} if ":1/" in registry else {"timeout"})
            assert elapsed < 3.0
            assert search.status_code == 503 and search.json()["error"]["code"] == "store_unavailable"
    finally:
        hole.close()

"""Ingest record by record on real stores (Milvus Lite, tantivy, SQLite; the deterministic encoder,
since these tests are about bookkeeping, not quality): a damaged corpus loses only its bad records,
each reported with its line; ``max_errors`` stops a file and keeps what was written; a dry run writes
nothing; the HTTP answer and the CLI carry the bad records; the reader is consumed lazily."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from eagle_rag.api import create_app
from eagle_rag.engine import Engine
from eagle_rag.hookspecs import hookimpl
from eagle_rag.ingest import orchestrator
from eagle_rag.ingest.records import ParseResult, Record, RecordFailure
from eagle_rag.ops import doctor
from eagle_rag.settings import load_settings
from eagle_rag.types import DocumentStatus, ParsedDocument, SearchMode, SearchRequest, Section, document_key
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration
GOOD_WORDS = ["kinase", "receptor", "antibody", "cohort", "survival", "toxicity", "metformin", "insulin"]


def damaged_corpus(path: Path, records: int = 300) -> dict[int, str]:
    """A BEIR corpus of ``records`` lines, 2% of them damaged, one of each kind; returns {line: kind}.

    The good records are ``d<line>`` with the text "... marker<line>"."""
    bad = {37: "invalid_json", 81: "empty", 122: "wrong_type", 169: "duplicate", 230: "not_utf8",
           records: "truncated"}
    with path.open("wb") as fh:
        for line in range(1, records + 1):
            kind = bad.get(line)
            text = f"{GOOD_WORDS[line % len(GOOD_WORDS)]} study marker{line:04d}"
            good = {"_id": f"d{line}", "title": f"Record {line}", "text": text}
            row = {
                None: json.dumps(good).encode(),
                "invalid_json": b'{"_id": "x37", "title": "broken", "text": "no closing brace"',
                "empty": b'{"_id": "x81", "title": "", "text": ""}',
                "wrong_type": json.dumps({"_id": "x122", "title": "T", "text": {"nested": 1}}).encode(),
                "duplicate": json.dumps({"_id": "d5", "title": "Impostor", "text": "overwrites d5"}).encode(),
                "not_utf8": b'{"_id": "x230", "title": "Caf\xe9", "text": "latin-1 bytes"}',
                "truncated": b'{"_id": "x300", "title": "cut',
            }[kind]
            fh.write(row + (b"" if kind == "truncated" else b"\n"))
    return bad


def settings_for(data_dir: Path, **ingest: object):
    return load_settings(environ=GENERAL, overrides={"data_dir": str(data_dir), "encoders": {"mode": "deterministic"},
                                                     "plugins": {"enabled": []}, "ingest": ingest})


@pytest.fixture(scope="module")
def engine(tmp_path_factory) -> Iterator[Engine]:
    with Engine(settings_for(tmp_path_factory.mktemp("records-data"))) as eng:
        yield eng


def test_a_damaged_corpus_ingests_every_good_record_and_reports_every_bad_one(engine, tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    bad = damaged_corpus(corpus)
    report = engine.ingest([corpus], kb_name="damaged")
    assert report.documents == 294 and report.failures == []
    lines = {f.line: f for f in report.record_failures}
    assert sorted(lines) == sorted(bad) and report.records_failed == 6
    assert lines[37].reason.startswith("invalid JSON") and "cut off" not in lines[37].reason
    assert lines[81].reason == "record has neither 'title' nor 'text'" and lines[81].record_id == "x81"
    assert lines[122].reason == "'text' must be a string, got object"
    assert lines[169].reason.startswith("duplicate id 'd5' (first at line 5")
    assert lines[230].reason.startswith("not valid UTF-8")
    assert "cut off" in lines[300].reason
    [counts] = report.files_detail
    assert (counts.records, counts.ingested, counts.skipped, counts.failed, counts.stopped) == (300, 294, 0, 6, "")
    good = [line for line in range(1, 301) if line not in bad]
    assert all(engine.registry.get(f"damaged/d{line}").status is DocumentStatus.COMPLETE for line in good)
    assert all(engine.registry.get(f"damaged/x{line}") is None for line in bad)
    hit = engine.search(SearchRequest(query="marker0005", mode=SearchMode.BM25, kb_names=("damaged",)))
    assert hit.hits[0].document_id == "d5" and "Impostor" not in hit.hits[0].text  # the duplicate did not win
    checked = doctor.check(engine)
    assert checked.ok and checked.findings == [] and checked.documents.get("complete") == 294
    again = engine.ingest([corpus], kb_name="damaged")  # the same bad records, nothing rewritten
    assert (again.documents, again.skipped_unchanged, again.records_failed) == (0, 294, 6)


def test_max_errors_stops_a_file_and_keeps_what_was_written_complete(engine, tmp_path):
    path = tmp_path / "stop.jsonl"
    rows = [json.dumps({"id": f"s{i}", "text": f"stopword test record {i}"}) if i % 3 else "{bad json"
            for i in range(1, 31)]  # lines 3, 6, 9, ... are bad
    path.write_text("\n".join(rows) + "\n")
    report = engine.ingest([path], kb_name="stop", max_errors=2)
    [counts] = report.files_detail
    assert counts.failed == 3 and counts.records == 9  # the third bad record (line 9) stops the file
    assert counts.stopped == "stopped at stop.jsonl line 9: more than 2 bad records; the rest of the file was not read"
    assert report.documents == 6 and counts.ingested == 6
    assert engine.registry.get(document_key("stop", "s8")).status is DocumentStatus.COMPLETE
    assert engine.registry.get(document_key("stop", "s10")) is None
    assert doctor.check(engine).findings == []
    with pytest.raises(ValueError, match="max_errors"):
        engine.ingest([path], kb_name="stop", max_errors=-1)


def test_the_max_record_errors_setting_and_its_default(tmp_path):
    path = tmp_path / "few.jsonl"
    path.write_text('{"id": "ok1", "text": "one"}\n[]\n[]\n{"id": "ok2", "text": "two"}\n')
    with Engine(settings_for(tmp_path / "d1", max_record_errors=1)) as eng:
        [counts] = eng.ingest([path], kb_name="k").files_detail
        assert (counts.failed, counts.ingested) == (2, 1) and "more than 1 bad records" in counts.stopped
        [counts] = eng.ingest([path], kb_name="k", max_errors=5).files_detail  # the argument wins
        assert (counts.failed, counts.ingested, counts.skipped, counts.stopped) == (2, 1, 1, "")
    assert orchestrator.record_error_limit(None, 10) == 1000
    assert orchestrator.record_error_limit(None, 250_000) == 2500 and orchestrator.record_error_limit(7, 10) == 7


def test_a_dry_run_validates_reports_and_writes_nothing(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    damaged_corpus(corpus, records=100)
    with Engine(settings_for(tmp_path / "dry")) as eng:
        report = eng.ingest([corpus], kb_name="dry", dry_run=True)
        assert report.dry_run and report.documents == 97 and report.chunks == 0
        assert sorted(f.line for f in report.record_failures) == [37, 81, 100]  # the damage within 100 lines
        assert eng.registry.get("d1") is None and eng.registry.count() == 0
        assert not (eng.settings.lexical_path / "eagle_text").exists()


class Streamer:
    """A plugin format read through PARSE_RECORDS (route ``gen``: ``count`` records, counted as they
    are yielded) and one whose PARSE answers a ParseResult (route ``pr``)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.yielded = 0

    @hookimpl
    def eagle_ingest_route_selector(self, path: Path):
        return {".gen": "gen", ".pr": "pr"}.get(path.suffix)

    @hookimpl
    def eagle_parse_records(self, path: Path, route: str, kb_name: str):
        return self._generate(path, kb_name) if route == "gen" else None

    def _generate(self, path: Path, kb_name: str):
        for i in range(1, self.count + 1):
            self.yielded += 1
            if i == 5:
                yield RecordFailure(str(path), i, "broken molecule", i, f"g{i}")
                continue
            doc = ParsedDocument(f"g{i}", f"G {i}", f"{path}#{i}", (Section(("g",), f"generated record {i}"),),
                                 kb_name=kb_name)
            yield Record(doc, i, i)

    @hookimpl
    def eagle_parse(self, path: Path, route: str, data: bytes, kb_name: str):
        if route != "pr":
            return None
        doc = ParsedDocument("pr1", "P", str(path), (Section(("p",), "parsed whole"),), kb_name=kb_name)
        return ParseResult([doc], [RecordFailure(str(path), 2, "malformed article", 9, "pmid-2")])


def test_hook_eagle_parse_records(tmp_path, monkeypatch):
    """The reader is consumed lazily, in bounded batches: when a batch is written, the generator has
    yielded exactly the records written so far plus that batch, and the live documents stay bounded
    whatever the number of records already written."""
    batch = 16
    monkeypatch.setattr(orchestrator, "DOCS_PER_BATCH", batch)
    plugin = Streamer(count=6 * batch + 1)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.gen").write_text("-")
    (tmp_path / "src" / "b.pr").write_text("-")
    with Engine(settings_for(tmp_path / "lazy"), extra_plugins=[("streamer", plugin)]) as eng:
        seen: list[tuple[int, int, int]] = []
        write = eng.ingestor.writer.write
        written = 0

        def spy(ctx, items, done, total, progress):
            nonlocal written
            gc.collect()  # count what is still referenced, not garbage a cycle left behind
            live = sum(1 for o in gc.get_objects() if type(o) is ParsedDocument)
            seen.append((plugin.yielded, written + len(items), live))
            written += len(items)
            return write(ctx, items, done, total, progress)

        monkeypatch.setattr(eng.ingestor.writer, "write", spy)
        ticks: list[int] = []
        report = eng.ingest([tmp_path / "src"], kb_name="lazy", progress=lambda done, total: ticks.append(done))
        assert report.documents == 6 * batch + 1 and [f.reason for f in report.record_failures] == [
            "broken molecule", "malformed article"]
        gen_writes = [(y, w) for y, w, _ in seen if y <= plugin.count][:-1]
        assert len(gen_writes) >= 5 and all(y - w <= 1 for y, w in gen_writes)  # + the one failure
        assert max(live for _, _, live in seen) <= 2 * batch + 4  # bounded, not growing with records written
        assert ticks[0] == 1 and ticks[-1] == 6 * batch + 1 + 2
        assert eng.registry.get(document_key("lazy", "g4")).status is DocumentStatus.COMPLETE
        assert eng.registry.get(document_key("lazy", "pr1")) is not None
        assert doctor.check(eng).findings == []


def test_http_ingest_answer_carries_the_bad_records(engine):
    data = b'{"id": "h1", "text": "first"}\n{oops\n{"id": "h2", "text": "second"}\n'
    with TestClient(create_app(engine), raise_server_exceptions=False) as client:
        dry = client.post("/ingest", data={"kb_name": "http", "dry_run": "true"},
                          files=[("files", ("h.jsonl", data, "application/json"))]).json()
        assert dry["dry_run"] is True and dry["documents"] == 2
        assert engine.registry.get(document_key("http", "h1")) is None
        body = client.post("/ingest", data={"kb_name": "http"},
                           files=[("files", ("h.jsonl", data, "application/json"))]).json()
    assert body["documents"] == 2 and body["records_failed"] == 1 and body["dry_run"] is False
    [failure] = body["record_failures"]
    assert failure["line"] == 2 and failure["record"] == 2 and failure["reason"].startswith("invalid JSON")
    [counts] = body["files_detail"]
    assert (counts["records"], counts["ingested"], counts["failed"]) == (3, 2, 1)


def test_a_record_id_that_is_no_document_id_is_reported_and_found_by_get_and_delete(engine, tmp_path):
    from eagle_rag import service
    from eagle_rag.errors import NotFound
    from eagle_rag.service.documents import delete_document as delete_one

    corpus = tmp_path / "doi.jsonl"
    corpus.write_text('{"id": "doi/10.1000/xyz", "text": "zebrafish fin regeneration blastema"}\n'
                      '{"id": "pmc 42?v=1#s2", "text": "axolotl limb regeneration"}\n'
                      '{"id": "plain-1", "text": "warfarin bleeding risk"}\n', encoding="utf-8")
    report = engine.ingest([corpus], kb_name="sl")
    assert report.documents == 3 and not report.any_failed
    [warning] = report.warnings  # one warning for the file, counting the ids that were replaced
    assert warning.path == str(corpus) and warning.error.startswith("2 record ids replaced by h-<hash>")
    hit = engine.search(SearchRequest(query="zebrafish fin regeneration", top_k=1, kb_names=("sl",))).hits[0]
    assert hit.document_id.startswith("h-") and hit.metadata["record_id"] == "doi/10.1000/xyz"
    record = service.get_document(engine, "doi/10.1000/xyz", "sl")
    assert record["id"] == hit.document_id and record["kb_name"] == "sl"
    assert service.get_document(engine, "doi/10.1000/xyz") == record  # the one kb that holds it
    assert service.get_document(engine, hit.document_id, "sl") == record  # the stored id still answers
    assert service.get_document(engine, "pmc 42?v=1#s2", "sl")["name"] == "pmc 42?v=1#s2"
    assert delete_one(engine, "doi/10.1000/xyz", "sl") == {"document_id": hit.document_id, "kb_name": "sl",
                                                           "deleted": True}
    with pytest.raises(NotFound, match="doi/10.1000/xyz"):
        service.get_document(engine, "doi/10.1000/xyz", "sl")
    with pytest.raises(NotFound):
        service.get_document(engine, "doi/10.1000/xyz", "other-kb")
    assert service.get_document(engine, "plain-1", "sl")["id"] == "plain-1"  # a valid id is kept as it is
    [dry] = engine.ingest([corpus], kb_name="sl", dry_run=True).warnings  # a dry run says so too
    assert dry.error.startswith("2 record ids replaced")


def _cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EAGLE_RAG_")}
    env.update({**GENERAL, "EAGLE_RAG_DATA_DIR": str(data_dir), "EAGLE_RAG_ENCODERS__MODE": "deterministic",
                "EAGLE_RAG_PLUGINS__ENABLED": "[]"})
    return subprocess.run([sys.executable, "-m", "eagle_rag.cli.app", "ingest", *args], env=env, text=True,
                          capture_output=True, timeout=300)


def test_cli_prints_counts_and_the_first_ten_reasons_and_exits_1(tmp_path):
    path = tmp_path / "notes.jsonl"
    rows = [json.dumps({"id": f"n{i}", "text": f"note {i}"}) for i in range(1, 4)]
    path.write_text("\n".join(rows + ["{}", "not json"] + [f'{{"id": "e{i}"}}' for i in range(10)]) + "\n")
    dry = _cli(tmp_path / "data", str(path), "--kb", "notes", "--dry-run", "--json")
    assert dry.returncode == 1, dry.stderr
    dry_report = json.loads(dry.stdout)
    assert dry_report["dry_run"] and dry_report["documents"] == 3 and len(dry_report["record_failures"]) == 12
    plain = _cli(tmp_path / "data", str(path), "--kb", "notes")
    assert plain.returncode == 1, plain.stderr
    assert "ingested 3 documents" in plain.stdout and "12 bad records" in plain.stdout
    shown = [line for line in plain.stderr.splitlines() if line.startswith("bad record")]
    assert len(shown) == 10 and shown[0].startswith("bad record notes.jsonl line 4")
    assert "... and 2 more bad records" in plain.stderr
    assert "notes.jsonl: 15 records, 3 ingested, 0 unchanged, 12 bad" in plain.stderr

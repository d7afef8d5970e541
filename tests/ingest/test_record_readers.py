"""The streaming readers of the core multi-record formats: every bad record becomes a RecordFailure
with its line, every good one a Record, and the reader goes on; duplicate ids are dropped by
``numbered``; the whole-file parsers stay strict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eagle_rag.errors import IngestError
from eagle_rag.ingest.parsers import parse_csv, parse_json, route_for_suffix
from eagle_rag.ingest.record_readers import RECORD_READERS
from eagle_rag.ingest.records import Record, RecordFailure, SeenIds, numbered

pytestmark = pytest.mark.unit
LIMIT = 10_000


def read(path: Path, route: str) -> list[Record | RecordFailure]:
    return list(numbered(RECORD_READERS[route](path, "kb", LIMIT), str(path)))


def failures(items: list[Record | RecordFailure]) -> dict[int | None, str]:
    return {i.line: i.reason for i in items if isinstance(i, RecordFailure)}


def good(items: list[Record | RecordFailure]) -> list[tuple[str, int | None]]:
    return [(i.document.document_id, i.line) for i in items if isinstance(i, Record)]


def test_jsonl_reports_each_kind_of_bad_record_with_its_line_and_keeps_the_rest(tmp_path: Path):
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"id": "a", "title": "A", "text": "alpha"}\n'        # 1 good
                     b'{"id": "b", "text": \n'                               # 2 invalid JSON
                     b'\n'                                                   # 3 blank: not a record
                     b'{"id": "c", "title": "", "text": ""}\n'              # 4 empty record
                     b'{"id": "d", "text": ["not", "a", "string"]}\n'       # 5 wrong field type
                     b'{"id": "a", "text": "again"}\n'                      # 6 duplicate id
                     b'{"id": "e", "text": "caf\xe9"}\n'                    # 7 Latin-1 byte, not UTF-8
                     b'[1, 2]\n'                                             # 8 not an object
                     b'{"id": "f", "text": "fine"}\n'                       # 9 good
                     b'{"id": "g", "text": "cut of')                        # 10 truncated last line
    items = read(path, "jsonl")
    assert good(items) == [("a", 1), ("f", 9)]
    bad = failures(items)
    assert sorted(bad) == [2, 4, 5, 6, 7, 8, 10]
    assert bad[2].startswith("invalid JSON") and "cut off" not in bad[2]
    assert bad[4] == "record has neither 'title' nor 'text'"
    assert bad[5] == "'text' must be a string, got array"
    assert bad[6].startswith("duplicate id 'a' (first at line 1")
    assert bad[7].startswith("not valid UTF-8")
    assert bad[8] == "expected a JSON object, got array"
    assert "the last line is cut off" in bad[10]
    ids = {i.line: i.record_id for i in items if isinstance(i, RecordFailure)}
    assert ids[4] == "c" and ids[5] == "d" and ids[6] == "a" and ids[2] is None
    records = [i.record for i in items]
    assert records == list(range(1, 10))  # the blank line is not a record


def test_a_line_over_the_record_limit_is_one_bad_record(tmp_path: Path):
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"id": "big", "text": "x" * 500}) + "\n" + '{"id": "s", "text": "small"}\n')
    items = list(RECORD_READERS["jsonl"](path, "kb", 100))
    assert failures(items) == {1: "the line is over 100 bytes"} and good(items) == [("s", 2)]


def test_json_array_is_read_item_by_item_with_lines(tmp_path: Path):
    path = tmp_path / "a.json"
    path.write_bytes(b'[\n  {"id": 1, "text": "one"},\n  {"id": 2, "title": 7},\n  {"id": 3, "text": "caf\xe9"},\n'
                     b'  {"id": 4, "text": "four"},\n  {"id": 1, "text": "dup"}\n]\n')
    items = read(path, "json")
    assert good(items) == [("1", 2), ("4", 5)]
    assert failures(items) == {3: "'title' must be a string, got number", 4: "not valid UTF-8",
                               6: "duplicate id '1' (first at line 2; the later record is not ingested)"}


def test_json_array_syntax_error_keeps_the_items_before_it(tmp_path: Path):
    path = tmp_path / "a.json"
    path.write_text('[{"id": "a", "text": "x"},\n {"id": "b", "text": oops},\n {"id": "c", "text": "y"}]')
    items = read(path, "json")
    assert good(items) == [("a", 1)]
    [(line, reason)] = failures(items).items()
    assert line == 2 and reason.startswith("invalid JSON at line 2") and "rest of the file" in reason


def test_json_array_items_across_read_blocks(tmp_path: Path):
    path = tmp_path / "big.json"
    path.write_text(json.dumps([{"id": f"d{i}", "text": "y" * 3000} for i in range(800)], indent=1))
    items = list(RECORD_READERS["json"](path, "kb", 50_000_000))  # 2.4 MB: several 1 MB blocks
    assert len(good(items)) == 800 and not failures(items)


def test_a_single_json_object_is_one_record_and_a_cut_array_is_reported(tmp_path: Path):
    one = tmp_path / "one.json"
    one.write_text('{"id": "solo", "text": "alone"}')
    assert good(read(one, "json")) == [("solo", 1)]
    cut = tmp_path / "cut.json"
    cut.write_text('[{"id": "a", "text": "x"},')
    assert good(read(cut, "json")) == [("a", 1)] and "cut off" in failures(read(cut, "json"))[1]


def test_csv_and_tsv_records(tmp_path: Path):
    assert route_for_suffix(Path("x.csv")) == "csv" and route_for_suffix(Path("x.tsv")) == "tsv"
    csv_path = tmp_path / "c.csv"
    csv_path.write_bytes(b'id,title,text,tags,source\n'
                         b'a,Alpha,"first, with a comma",x;y,pubmed\n'
                         b'b,Beta\n'                                # too few fields
                         b'c,,,,\n'                                 # no text
                         b'd,Del\xe9,"caf",,\n'                     # not UTF-8
                         b'e,"Multi\nline title",text,,\n')         # a quoted newline: record on line 6
    items = read(csv_path, "csv")
    assert good(items) == [("a", 2), ("e", 6)]
    first = next(i.document for i in items if isinstance(i, Record))
    assert first.tags == ("x", "y") and first.metadata["source"] == "pubmed" and first.source_type == "csv"
    assert failures(items) == {3: "expected 5 fields, got 2", 4: "record has neither 'title' nor 'text'",
                               5: "not valid UTF-8"}
    tsv_path = tmp_path / "c.tsv"
    tsv_path.write_text("_id\ttext\nq1\tfirst\nq2\t\n")
    assert good(read(tsv_path, "tsv")) == [("q1", 2)]
    with pytest.raises(IngestError, match="needs an 'id' column"):
        list(RECORD_READERS["csv"](_write(tmp_path / "h.csv", "name,value\nx,1\n"), "kb", LIMIT))


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_whole_file_parsers_stay_strict(tmp_path: Path):
    with pytest.raises(IngestError, match=r"c.csv line 3 \(id 'b'\): expected 2 fields, got 1"):
        parse_csv(tmp_path / "c.csv", b"id,text\na,x\nb\n", "kb")
    with pytest.raises(IngestError, match="no records"):
        parse_json(tmp_path / "a.json", b"[]", "kb")


def test_seen_ids_live_on_disk_and_remember_the_first_place():
    seen = SeenIds()
    try:
        assert seen.first("x", 1, 10) is None and seen.first("y", 2, None) is None
        assert seen.first("x", 5, 50) == (1, 10) and seen.first("y", 9, 90) == (2, None)
    finally:
        seen.close()

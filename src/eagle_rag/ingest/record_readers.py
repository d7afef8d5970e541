"""Streaming readers of the core multi-record formats: JSONL and BEIR ``corpus.jsonl``, JSON arrays,
CSV and TSV.

Each reader opens its file itself and reads it record by record, so memory does not depend on the
file's size; ``max_record_bytes`` bounds one record. A bad record (not UTF-8, not JSON, no text, a
field of the wrong type, too many or too few CSV fields, a cut-off last line) is yielded as a
:class:`RecordFailure` and the reader goes on with the next one. A file that cannot be read at all
(missing, no CSV header, a JSON file that is neither an array nor an object) raises IngestError.
Duplicate ids are the orchestrator's business (:func:`eagle_rag.ingest.records.numbered`).
"""

from __future__ import annotations

import codecs
import csv
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from eagle_rag.errors import IngestError
from eagle_rag.ingest.records import Record, RecordError, RecordFailure, raw_record_id, record_document

RecordReader = Callable[[Path, str, int], Iterator[Record | RecordFailure]]
"""(path, kb name, max record bytes) -> records; opens the file itself."""
FileRecords = Callable[[Path, IO[bytes], str, int], Iterator[Record | RecordFailure]]
"""(path, open binary file, kb name, max record bytes) -> records."""
_BLOCK = 1 << 20
_NOT_UTF8 = re.compile("[\udc80-\udcff]")  # bytes that are not UTF-8, as decoded by "surrogateescape"
_CSV_TAG_SEPARATOR = ";"
_WHITE_SPACE = re.compile(r"[ \t\n\r]*")


@contextmanager
def _open(path: Path) -> Iterator[IO[bytes]]:
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise IngestError(f"{path.name}: cannot read ({exc.strerror})") from exc
    with fh:
        yield fh


def _lines(fh: IO[bytes], limit: int) -> Iterator[tuple[int, bytes | None, bool]]:
    """(line number, bytes or None when the line is over ``limit``, ends with a newline)."""
    lineno = 0
    while raw := fh.readline(limit + 2):
        lineno += 1
        if len(raw.rstrip(b"\r\n")) > limit:
            while raw and not raw.endswith(b"\n"):  # skip the rest of the long line
                raw = fh.readline(_BLOCK)
            yield lineno, None, True
            continue
        yield lineno, raw, raw.endswith(b"\n")


def _document(obj: Any, path: Path, record: int, line: int | None, kb_name: str, source_type: str,
              anchor: int) -> Record | RecordFailure:
    try:
        return Record(record_document(obj, kb_name, source_type, f"{path}#{anchor}"), record, line)
    except RecordError as exc:
        return RecordFailure(str(path), record, exc.reason, line, exc.record_id or raw_record_id(obj))


def jsonl_records(path: Path, fh: IO[bytes], kb_name: str, max_record_bytes: int,
                  source_type: str = "jsonl") -> Iterator[Record | RecordFailure]:
    """One record per non-blank line of ``fh`` (the bytes of ``path``)."""
    record = 0
    for lineno, raw, complete in _lines(fh, max_record_bytes):
        if raw is not None and not raw.strip():
            continue
        record += 1
        if raw is None:
            yield RecordFailure(str(path), record, f"the line is over {max_record_bytes} bytes", lineno)
            continue
        try:
            text = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            yield RecordFailure(str(path), record, f"not valid UTF-8 ({exc.reason} at byte {exc.start} "
                                "of the line)", lineno)
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            cut = "; the last line is cut off (no newline at the end of the file)" if not complete else ""
            yield RecordFailure(str(path), record, f"invalid JSON ({exc.msg}){cut}", lineno)
            continue
        except RecursionError:  # found by fuzzing: "[" * 100000
            yield RecordFailure(str(path), record, "JSON nested too deeply", lineno)
            continue
        yield _document(obj, path, record, lineno, kb_name, source_type, lineno)


def beir_records(path: Path, fh: IO[bytes], kb_name: str, max_record_bytes: int) -> Iterator[Record | RecordFailure]:
    """A BEIR ``corpus.jsonl``: JSONL records of source type ``beir``."""
    return jsonl_records(path, fh, kb_name, max_record_bytes, source_type="beir")


class _TextBuffer:
    """Text of a binary file decoded block by block (bytes that are not UTF-8 kept as surrogates),
    with the line number of the read position."""

    def __init__(self, fh: IO[bytes]) -> None:
        self.fh = fh
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
        self.text = ""
        self.pos = 0
        self.line = 1
        self.eof = False

    def fill(self) -> bool:
        """Read one more block; False at the end of the file."""
        if self.eof:
            return False
        data = self.fh.read(_BLOCK)
        self.eof = not data
        self.text = self.text[self.pos:] + self.decoder.decode(data, final=self.eof)
        self.pos = 0
        return not self.eof

    def peek(self) -> str:
        """The next character that is not white space ("" at the end), without consuming it."""
        while True:
            match = _WHITE_SPACE.match(self.text, self.pos)
            self.advance(match.end() - self.pos if match else 0)
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.fill():
                return ""

    def advance(self, n: int) -> None:
        self.line += self.text.count("\n", self.pos, self.pos + n)
        self.pos += n


def json_records(path: Path, fh: IO[bytes], kb_name: str, max_record_bytes: int) -> Iterator[Record | RecordFailure]:
    """A JSON array of records, read item by item, or a single JSON object (one record).

    A syntax error inside the array ends the file there: the items before it are kept, and the
    error is reported as the failure of the item where it occurs.
    """
    decoder = json.JSONDecoder()
    buf = _TextBuffer(fh)
    if buf.peek() == "\ufeff":
        buf.advance(1)
    array = buf.peek() == "["
    if array:
        buf.advance(1)
    record = 0
    while True:
        head = buf.peek()
        if array and head == "]" or not head:
            if not head and array:
                yield RecordFailure(str(path), record + 1, "the array is cut off (no closing ']')", buf.line)
            return
        if array and record and head == ",":
            buf.advance(1)
            continue
        record += 1
        line = buf.line
        while True:
            try:
                obj, end = decoder.raw_decode(buf.text, buf.pos)
                break
            except json.JSONDecodeError as exc:
                cut = exc.pos >= len(buf.text) - 1 or exc.msg.startswith("Unterminated string")
                if cut and len(buf.text) - buf.pos <= max_record_bytes and buf.fill():
                    continue  # the item goes on in the next block
                over = len(buf.text) - buf.pos > max_record_bytes
                at = line + buf.text.count("\n", buf.pos, exc.pos)
                reason = (f"the item is over {max_record_bytes} bytes" if over
                          else f"invalid JSON at line {at} ({exc.msg})")
                yield RecordFailure(str(path), record, f"{reason}; the rest of the file cannot be read", line)
                return
            except RecursionError:
                yield RecordFailure(str(path), record, "JSON nested too deeply; the rest of the file cannot "
                                    "be read", line)
                return
        bad_bytes = _NOT_UTF8.search(buf.text, buf.pos, end) is not None
        buf.advance(end - buf.pos)
        if bad_bytes:
            yield RecordFailure(str(path), record, "not valid UTF-8", line, raw_record_id(obj))
        else:
            yield _document(obj, path, record, line, kb_name, "json", record - 1)
        if not array:
            if buf.peek():
                yield RecordFailure(str(path), record + 1, "text after the JSON value", buf.line)
            return


class _DecodedLines:
    """The lines of a binary file as text for :mod:`csv` (bytes that are not UTF-8 kept as
    surrogates); a line over ``limit`` bytes is replaced by an empty line and counted in ``too_long``."""

    def __init__(self, fh: IO[bytes], limit: int) -> None:
        self.lines = _lines(fh, limit)
        self.too_long = 0

    def __iter__(self) -> Iterator[str]:
        for lineno, raw, _ in self.lines:
            if raw is None:
                self.too_long += 1
                yield "\n"
                continue
            line = raw.decode("utf-8", errors="surrogateescape")
            yield line.removeprefix("\ufeff") if lineno == 1 else line


def csv_records(path: Path, fh: IO[bytes], kb_name: str, max_record_bytes: int) -> Iterator[Record | RecordFailure]:
    """CSV records (:func:`delimited_records`)."""
    return delimited_records(path, fh, kb_name, max_record_bytes, ",")


def tsv_records(path: Path, fh: IO[bytes], kb_name: str, max_record_bytes: int) -> Iterator[Record | RecordFailure]:
    """TSV records (:func:`delimited_records`)."""
    return delimited_records(path, fh, kb_name, max_record_bytes, "\t")


def delimited_records(path: Path, fh: IO[bytes], kb_name: str, max_record_bytes: int,
                      delimiter: str) -> Iterator[Record | RecordFailure]:
    """CSV or TSV with a header row: ``id``/``_id``, ``title``, ``text``/``body``/``abstract``,
    ``tags`` (separated by ``;``); every other column goes to the document's metadata.

    Raises IngestError for a file without a header or whose header has no id or text column.
    """
    lines = _DecodedLines(fh, max_record_bytes)
    reader = csv.reader(lines, delimiter=delimiter, strict=True)
    try:
        header = [h.strip().lower() for h in next(reader)]
    except (StopIteration, csv.Error) as exc:
        raise IngestError(f"{path.name}: no header row ({exc or 'the file is empty'})") from exc
    if not {"id", "_id"} & set(header) or not {"title", "text", "body", "abstract"} & set(header):
        raise IngestError(f"{path.name}: the header needs an 'id' column and a 'title' or 'text' column "
                          f"(found {', '.join(header)})")
    record = 0
    source_type = "tsv" if delimiter == "\t" else "csv"
    while True:
        line, too_long = reader.line_num + 1, lines.too_long
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            record += 1
            yield RecordFailure(str(path), record, f"malformed {source_type.upper()} ({exc})", line)
            continue
        if lines.too_long > too_long:
            record += 1
            yield RecordFailure(str(path), record, f"a line is over {max_record_bytes} bytes", line)
            continue
        if not any(cell.strip() for cell in row):
            continue
        record += 1
        yield _row(path, header, row, record, line, kb_name, source_type)


def _row(path: Path, header: list[str], row: list[str], record: int, line: int, kb_name: str,
         source_type: str) -> Record | RecordFailure:
    values = dict(zip(header, row, strict=False))
    rid = values.get("_id") or values.get("id")
    if len(row) != len(header):
        return RecordFailure(str(path), record, f"expected {len(header)} fields, got {len(row)}", line, rid)
    if any(_NOT_UTF8.search(cell) for cell in row):
        return RecordFailure(str(path), record, "not valid UTF-8", line, rid)
    known = {"_id", "id", "title", "text", "body", "abstract", "tags"}
    obj: dict[str, Any] = {k: v for k, v in values.items() if k in known and v != ""}
    obj["tags"] = [t.strip() for t in values.get("tags", "").split(_CSV_TAG_SEPARATOR) if t.strip()]
    obj["metadata"] = {k: v for k, v in values.items() if k not in known and v != ""}
    return _document(obj, path, record, line, kb_name, source_type, line)


def from_file(records: FileRecords) -> RecordReader:
    """A reader that opens the file itself (IngestError when it cannot) and streams ``records``."""
    def read(path: Path, kb_name: str, max_record_bytes: int) -> Iterator[Record | RecordFailure]:
        with _open(path) as fh:
            yield from records(path, fh, kb_name, max_record_bytes)
    return read


FILE_RECORDS: dict[str, FileRecords] = {
    "jsonl": jsonl_records, "beir": beir_records, "json": json_records, "csv": csv_records, "tsv": tsv_records,
}
"""The core routes read record by record, from an open binary file."""
RECORD_READERS: dict[str, RecordReader] = {route: from_file(records) for route, records in FILE_RECORDS.items()}
"""The same routes, each opening its file."""

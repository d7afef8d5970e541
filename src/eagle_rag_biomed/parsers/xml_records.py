"""Multi-record XML read record by record (PubMed and PMC sets), with memory independent of the file's size.

The file is fed to a defusedxml parser (the rules of :func:`~eagle_rag_biomed.parsers.safety.parse_xml`)
in blocks of :data:`BLOCK_BYTES`. The tree is built as usual, but each finished record element
(a ``PubmedArticle``, a JATS ``article``) is handed over with the line of its start tag and detached,
and so is every other finished child of the root: the tree never holds more than the record being
read. A record that cannot become a document is a :class:`RecordFailure` (record number from 1, its
line, its id when it has one) and the file goes on. XML that stops being well-formed after some
records keeps them and ends with one failure naming the line; before any record it is an IngestError
for the whole file, as is a refused construct (entities, external references) or an unknown root.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from xml.etree.ElementTree import Element, TreeBuilder

from eagle_rag.plugin_api import IngestError, ParsedDocument
from eagle_rag.plugin_api.ingest import Record, RecordFailure
from eagle_rag_biomed.parsers.safety import safe_xml_parser, xml_error
from eagle_rag_biomed.parsers.xml_text import local

BLOCK_BYTES = 1 << 16


@dataclass(frozen=True)
class XmlRecordKind:
    """One kind of multi-record XML file: which elements are its records (``is_record(local name,
    depth)``, the root at depth 0), how one becomes a document (``build(element, path, kb_name,
    0-based index)``, raising IngestError for a bad one) and its id for a failure (``record_id``)."""

    records: str
    is_record: Callable[[str, int], bool]
    build: Callable[[Element, Path, str, int], ParsedDocument]
    record_id: Callable[[Element], str | None]


KindOf = Callable[[str], XmlRecordKind]
"""The kind of a file from its root element's tag; raises IngestError for a root it does not read."""


class _RecordTarget:
    """A parser target that builds elements with a TreeBuilder, queues each finished record with the
    line of its start tag, and detaches it and every finished child of the root from their parents."""

    def __init__(self, kind_of: KindOf, max_record_bytes: int) -> None:
        self.kind_of = kind_of
        self.limit = max_record_bytes
        self.kind: XmlRecordKind | None = None
        self.builder = TreeBuilder()
        self.expat: Any = None
        self.open: list[tuple[Element, bool]] = []
        self.finished: deque[tuple[Element | None, int]] = deque()  # None: the record was over the limit
        self.record_start: tuple[int, int] | None = None  # (line, byte offset) of the record being read

    def start(self, tag: str, attrs: dict[str, str]) -> Element:
        element = self.builder.start(tag, attrs)
        if self.kind is None:
            self.kind = self.kind_of(tag)
        record = self.record_start is None and self.kind.is_record(local(tag), len(self.open))
        if record:
            self.record_start = (self.expat.CurrentLineNumber, self.expat.CurrentByteIndex)
        self.open.append((element, record))
        return element

    def end(self, tag: str) -> Element:
        element = self.builder.end(tag)
        _, record = self.open.pop()
        loose = self.record_start is None and len(self.open) == 1  # a child of the root, outside any record
        if record and self.record_start is not None:
            line, offset = self.record_start
            over = self.expat.CurrentByteIndex - offset > self.limit
            self.finished.append((None if over else element, line))
            self.record_start = None
        if self.open and (record or loose):
            self.open[-1][0].remove(element)
        return element

    def data(self, text: str) -> None:
        self.builder.data(text)

    def close(self) -> Element:
        return self.builder.close()


def xml_records(path: Path, fh: IO[bytes], kb_name: str, max_record_bytes: int,
                kind_of: KindOf) -> Iterator[Record | RecordFailure]:
    """The records of the XML in ``fh`` (the bytes of ``path``), one at a time.

    A record over ``max_record_bytes`` is a failure; one still open when the bytes read pass the
    limit ends the file (its element cannot be skipped). Raises IngestError for a file
    that cannot be read before its first record, or that holds no record.
    """
    target = _RecordTarget(kind_of, max_record_bytes)
    parser = safe_xml_parser(target)
    target.expat = parser.parser
    record, fed = 0, 0
    while True:
        block = fh.read(BLOCK_BYTES)
        fed += len(block)
        error: Exception | None = None
        try:
            if block:
                parser.feed(block)
            else:
                parser.close()
        except Exception as exc:  # noqa: BLE001 - sorted by xml_error below; any other one is raised
            error = exc
        while target.finished:
            element, line = target.finished.popleft()
            record += 1
            yield _record(target.kind, element, path, kb_name, record, line, max_record_bytes)
        failure = _stop(path, error, target, fed, max_record_bytes)
        if failure is not None:
            if not record:
                raise IngestError(f"{path.name}: {failure[0]}") from error
            yield RecordFailure(str(path), record + 1, f"{failure[0]}; the rest of the file cannot be read",
                                failure[1])
            return
        if not block:
            break
    if not record:
        raise IngestError(f"{path.name}: no {target.kind.records if target.kind else 'record'} in the file")


def _record(kind: XmlRecordKind | None, element: Element | None, path: Path, kb_name: str, record: int,
            line: int, max_record_bytes: int) -> Record | RecordFailure:
    if kind is None:  # a record is finished only once the root told its kind
        raise RuntimeError("a record before the root element")
    if element is None:
        return RecordFailure(str(path), record, f"the {kind.records} at line {line} is over {max_record_bytes} "
                             "bytes", line)
    try:
        return Record(kind.build(element, path, kb_name, record - 1), record, line)
    except IngestError as exc:
        reason = exc.message.removeprefix(f"{path.name}: ")
        return RecordFailure(str(path), record, reason, line, kind.record_id(element))


def _stop(path: Path, error: Exception | None, target: _RecordTarget, fed: int,
          max_record_bytes: int) -> tuple[str, int | None] | None:
    """Why the file stops here (reason, line) or None: an error of the parser, or a record that
    grew over ``max_record_bytes``. Raises an error that is not about the XML."""
    open_line = target.record_start[0] if target.record_start else None
    if error is not None:
        found = xml_error(error, path)
        if found is None:
            raise error
        return found.message.removeprefix(f"{path.name}: "), open_line or getattr(error, "position", (None,))[0]
    if target.record_start is not None and fed - target.record_start[1] > max_record_bytes:
        return f"the {target.kind.records if target.kind else 'record'} at line {open_line} is over " \
               f"{max_record_bytes} bytes", open_line
    return None

"""Records of multi-record files: the typed items a record stream yields, and the checks every
format shares (docs/architecture.md, "Record by record").

A parser of a multi-record format (JSONL, a BEIR corpus, a JSON array, CSV/TSV, plugin formats such as
PubMed XML sets or SDF files) yields, one record at a time, a :class:`Record` (a good record: its
document and where it sits) or a :class:`RecordFailure` (a bad one: where, its id when known, why),
and never raises for the whole file because of one record. Record numbers and line numbers start at 1.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Generator, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from eagle_rag.errors import IngestError
from eagle_rag.types import ParsedDocument, Section, public_document_id

MAX_METADATA_DEPTH = 32
_ID_OK = re.compile(r"^[A-Za-z0-9_.:\-]{1,64}$")
_TEXT_FIELDS = ("title", "text", "body", "abstract")
RECORD_KEYS = frozenset({"_id", "id", *_TEXT_FIELDS, "tags", "metadata"})
"""The fields of a record read as its id, text, tags and metadata; the others become metadata."""


@dataclass(frozen=True)
class RecordFailure:
    """One record of ``file`` that was not ingested: ``record`` is its 1-based number in the file,
    ``line`` the line it starts on (None where the format has no lines), ``record_id`` its id when
    it could be read."""

    file: str
    record: int
    reason: str
    line: int | None = None
    record_id: str | None = None

    def where(self) -> str:
        """``"<file name> line 12"`` (or ``record 12`` without a line), for messages."""
        name = self.file.rsplit("/", 1)[-1]
        return f"{name} line {self.line}" if self.line is not None else f"{name} record {self.record}"

    def describe(self) -> str:
        """One line: where, which record, why."""
        rid = f" (id {self.record_id!r})" if self.record_id is not None else ""
        return f"{self.where()}{rid}: {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "record": self.record, "line": self.line, "record_id": self.record_id,
                "reason": self.reason}


@dataclass(frozen=True)
class Record:
    """One good record: its document, its 1-based number in the file and the line it starts on."""

    document: ParsedDocument
    record: int
    line: int | None = None


@dataclass(frozen=True)
class ParseResult:
    """What a PARSE hook of a multi-record format may return instead of a plain list of documents:
    the good documents and the records it could not parse."""

    documents: list[ParsedDocument]
    failures: list[RecordFailure] = field(default_factory=list)


RecordItem = Record | RecordFailure | ParsedDocument
"""What a record stream yields; a plain document is numbered by its position in the stream."""


class RecordError(Exception):
    """A record that cannot become a document: ``reason`` and the record's id when known."""

    def __init__(self, reason: str, record_id: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.record_id = record_id


HASHED_ID_PREFIX = "h-"
"""The prefix of the document id a record id that is no valid document id is stored under."""


def is_document_id(text: str) -> bool:
    """Whether ``text`` is a valid document id, which :func:`record_document_id` keeps as it is."""
    return bool(_ID_OK.match(text))


def record_document_id(raw: Any, kb_name: str) -> str:
    """A record's own id when it is a valid document id (1-64 letters, digits, ``_``, ``.``, ``:`` or
    ``-``; surrounding white space dropped), else ``h-`` and a hash of the id and the kb: a record id
    with ``/``, a space, ``?``, ``#`` or over 64 characters is stored under that hash (the original id
    stays in the document's ``metadata["record_id"]``; get and delete accept it,
    :func:`eagle_rag.service.documents.find_document`).

    Raises IngestError for an empty id.
    """
    text = str(raw).strip()
    if not text:
        raise IngestError("record has an empty id")
    if is_document_id(text):
        return text
    return HASHED_ID_PREFIX + hashlib.sha256(f"{kb_name}\x1f{text}".encode()).hexdigest()[:30]


def replaced_record_id(document: ParsedDocument) -> bool:
    """True when ``document`` is a record whose id was replaced by its hash (:func:`record_document_id`)."""
    record_id = document.metadata.get("record_id")
    document_id = public_document_id(document.document_id)
    return record_id is not None and document_id.startswith(HASHED_ID_PREFIX) and str(record_id) != document_id


def json_type(value: Any) -> str:
    """The JSON name of a decoded value's type (``object``, ``array``, ``string``, ...)."""
    names = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def raw_record_id(obj: Any) -> str | None:
    """The id a decoded record names (``_id`` or ``id``) as text, or None."""
    if not isinstance(obj, Mapping):
        return None
    raw = obj.get("_id", obj.get("id"))
    return None if raw is None or isinstance(raw, (dict, list)) else str(raw)


def record_document(obj: Any, kb_name: str, source_type: str, source_uri: str) -> ParsedDocument:
    """The document of one decoded record (``_id``/``id``, ``title``, ``text``/``body``/``abstract``,
    ``tags``, ``metadata``; every other top-level field, such as ``"doc_type": "trial"`` or ``"year":
    2020``, joins the metadata, where the filters read it). Raises :class:`RecordError` with the reason
    for a record that has no usable id, no text, or a field of the wrong type."""
    if not isinstance(obj, dict):
        raise RecordError(f"expected a JSON object, got {json_type(obj)}")
    raw_id = obj.get("_id", obj.get("id"))
    if raw_id is None:
        raise RecordError("record has no 'id' or '_id'")
    if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)):
        raise RecordError(f"'id' must be a string or an integer, got {json_type(raw_id)}")
    rid = str(raw_id)
    for key in _TEXT_FIELDS:
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            raise RecordError(f"{key!r} must be a string, got {json_type(value)}", rid)
    title = (obj.get("title") or "").strip()
    body = (obj.get("text") or obj.get("body") or obj.get("abstract") or "").strip()
    if not (title or body):
        raise RecordError("record has neither 'title' nor 'text'", rid)
    try:
        doc_id = record_document_id(raw_id, kb_name)
    except IngestError as exc:
        raise RecordError(exc.message, rid) from exc
    tags = obj.get("tags") or ()
    if not isinstance(tags, (list, tuple)) or not all(isinstance(t, str) for t in tags):
        raise RecordError("'tags' must be a list of strings", rid)
    metadata = obj.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise RecordError(f"'metadata' must be an object, got {json_type(metadata)}", rid)
    fields = {k: v for k, v in obj.items() if k not in RECORD_KEYS and v is not None}
    metadata = {**fields, **metadata}  # a key the record's "metadata" names too keeps that value
    if _depth(metadata) > MAX_METADATA_DEPTH:  # the stores serialise it again, deeper in the stack
        raise RecordError(f"'metadata' is nested deeper than {MAX_METADATA_DEPTH} levels", rid)
    text = f"{title}\n{body}" if title and body else (title or body)
    return ParsedDocument(doc_id, title or rid, source_uri, (Section((title or rid,), text),),
                          source_type=source_type, kb_name=kb_name, tags=tuple(tags),
                          metadata={**metadata, "record_id": rid})


def _depth(value: Any) -> int:
    """The nesting depth of a JSON value (1 for a flat object), computed without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


class SeenIds:
    """The document ids met in one file, kept in a private temporary SQLite database on disk, so a
    file of millions of records costs no more memory than a small one. Close it when done."""

    def __init__(self) -> None:
        self._db = sqlite3.connect("")  # "" = a temporary on-disk database, deleted on close
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute("CREATE TABLE seen (id TEXT PRIMARY KEY, record INTEGER, line INTEGER)")

    def first(self, document_id: str, record: int, line: int | None) -> tuple[int, int | None] | None:
        """Remember ``document_id``; None when new, else (record, line) of its first occurrence."""
        cur = self._db.execute("INSERT OR IGNORE INTO seen VALUES (?, ?, ?)", (document_id, record, line))
        if cur.rowcount:
            return None
        row = self._db.execute("SELECT record, line FROM seen WHERE id = ?", (document_id,)).fetchone()
        return int(row[0]), row[1]

    def close(self) -> None:
        self._db.close()


def numbered(items: Iterable[RecordItem], file: str) -> Generator[Record | RecordFailure, None, None]:
    """Number plain documents by their position; drop later records whose document id was seen
    before in the same file, as failures naming where the first one was."""
    seen = SeenIds()
    try:
        for position, item in enumerate(items, start=1):
            if isinstance(item, ParsedDocument):
                item = Record(item, position)
            if isinstance(item, Record):
                doc_id = item.document.document_id
                first = seen.first(doc_id, item.record, item.line)
                if first is not None:
                    at = f"line {first[1]}" if first[1] is not None else f"record {first[0]}"
                    yield RecordFailure(file, item.record, f"duplicate id {doc_id!r} (first at {at}; the "
                                        "later record is not ingested)", item.line,
                                        str(item.document.metadata.get("record_id", doc_id)))
                    continue
            yield item
    finally:
        seen.close()


def strict_documents(items: Iterable[RecordItem], file: str, empty_message: str) -> list[ParsedDocument]:
    """Every document of a record stream, or IngestError at its first bad record (or when it has none)."""
    docs: list[ParsedDocument] = []
    for item in numbered(items, file):
        if isinstance(item, RecordFailure):
            raise IngestError(item.describe(), item.to_dict())
        docs.append(item.document)
    if not docs:
        raise IngestError(empty_message)
    return docs

"""Core parsers: plain text, Markdown, HTML, JSON, JSONL, BEIR ``corpus.jsonl``, CSV and TSV.

Each parser turns the bytes of one file into :class:`ParsedDocument` objects whose sections carry
the document navigation (heading path). A bad file raises :class:`IngestError` with the reason.
Ingest reads the multi-record formats (JSON, JSONL, BEIR, CSV, TSV) record by record instead
(:mod:`eagle_rag.ingest.record_readers`); the whole-file parsers here stop at the first bad record.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Callable, Iterable
from html.parser import HTMLParser
from pathlib import Path

from eagle_rag.errors import IngestError
from eagle_rag.ingest.record_readers import FILE_RECORDS
from eagle_rag.ingest.records import MAX_METADATA_DEPTH, record_document_id, strict_documents
from eagle_rag.types import ParsedDocument, Section

__all__ = ["MAX_ID_CHARS", "MAX_METADATA_DEPTH", "PARSERS", "file_document_id", "record_document_id",
           "route_for_suffix"]

MAX_ID_CHARS = 64
_SUFFIX_ROUTES = {
    ".txt": "text", ".text": "text", ".md": "markdown", ".markdown": "markdown",
    ".html": "html", ".htm": "html", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl",
    ".csv": "csv", ".tsv": "tsv", ".tab": "tsv",
}


def route_for_suffix(path: Path) -> str | None:
    """The core route for a file name, or None when the core cannot parse it."""
    if path.name == "corpus.jsonl":
        return "beir"
    return _SUFFIX_ROUTES.get(path.suffix.lower())


def file_document_id(path: Path, kb_name: str) -> str:
    """A readable, stable id for a single-document file: ``<stem>-<8 hex of kb + path>``."""
    digest = hashlib.sha256(f"{kb_name}\x1f{path.resolve()}".encode()).hexdigest()[:8]
    stem = re.sub(r"[^A-Za-z0-9_.\-]+", "_", path.stem)[: MAX_ID_CHARS - 9] or "doc"
    return f"{stem}-{digest}"


def _decode(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(f"{path.name}: not valid UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def parse_text(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    text = _decode(data, path).strip()
    if not text:
        raise IngestError(f"{path.name}: the file is empty")
    return [ParsedDocument(file_document_id(path, kb_name), path.name, str(path),
                           (Section((path.stem,), text),), source_type="text", kb_name=kb_name)]


_HEADING = re.compile(r"(#{1,6})[ \t]+(\S.*)")


def _heading(line: str) -> tuple[int, str] | None:
    """(level, title) of an ATX heading line, else None. Linear time: the closing #s are stripped
    in Python, because a regex for them backtracks cubically on long runs of spaces and #s."""
    match = _HEADING.fullmatch(line.rstrip())
    if match is None:
        return None
    title = match.group(2).rstrip("#").rstrip() or match.group(2)
    return len(match.group(1)), title


def parse_markdown(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """Sections split at ATX headings; each section's text starts with its own heading line.

    A heading with no text of its own (a heading right before its sub-heading) is no section of its
    own; a file of headings only keeps them all, each as its section's text."""
    text = _decode(data, path)
    stack: list[tuple[int, str]] = []
    sections: list[Section] = []
    bare_headings: list[Section] = []
    buf: list[str] = []
    in_fence = False

    def flush() -> None:
        body = "\n".join(buf).strip()
        heading_only = bool(stack) and body == stack[-1][1]
        if body:
            (bare_headings if heading_only else sections).append(
                Section(tuple(h for _, h in stack) or (path.stem,), body))
        buf.clear()

    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        heading = None if in_fence else _heading(line)
        if heading:
            flush()
            level, title = heading
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            buf.append(title)
        else:
            buf.append(line)
    flush()
    sections = sections or bare_headings
    if not sections:
        raise IngestError(f"{path.name}: the file is empty")
    title = next((h for lvl, h in _first_heading(text)), path.stem)
    return [ParsedDocument(file_document_id(path, kb_name), title, str(path), tuple(sections),
                           source_type="markdown", kb_name=kb_name)]


def _first_heading(text: str) -> Iterable[tuple[int, str]]:
    for line in text.splitlines():
        heading = _heading(line)
        if heading:
            yield heading
            return


class _HtmlSections(HTMLParser):
    _SKIP = {"script", "style", "noscript", "template"}
    _BLOCK = {"p", "li", "div", "br", "tr", "td", "th", "pre", "blockquote", "section", "article"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[int, str]] = []
        self.sections: list[Section] = []
        self.buf: list[str] = []
        self.skip = 0
        self.heading_level = 0
        self.heading: list[str] = []
        self.title = ""
        self.in_title = False

    def flush(self) -> None:
        body = re.sub(r"[ \t]+", " ", "".join(self.buf))
        body = re.sub(r"\n\s*\n+", "\n", body).strip()
        if body:
            self.sections.append(Section(tuple(h for _, h in self.stack) or ("document",), body))
        self.buf = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self.skip += 1
        elif tag == "title":
            self.in_title = True
        elif re.fullmatch(r"h[1-6]", tag):
            self.flush()
            self.heading_level = int(tag[1])
            self.heading = []
        elif tag in self._BLOCK:
            self.buf.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag == "title":
            self.in_title = False
        elif re.fullmatch(r"h[1-6]", tag) and self.heading_level:
            title = " ".join("".join(self.heading).split())
            while self.stack and self.stack[-1][0] >= self.heading_level:
                self.stack.pop()
            if title:
                self.stack.append((self.heading_level, title))
                self.buf.append(title + "\n")
            self.heading_level = 0

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.in_title:
            self.title += data
        elif self.heading_level:
            self.heading.append(data)
        else:
            self.buf.append(data)


def parse_html(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    parser = _HtmlSections()
    try:
        parser.feed(_decode(data, path))
        parser.close()
    except AssertionError as exc:  # found by fuzzing: "<![?" trips the stdlib parser of Python 3.11
        raise IngestError(f"{path.name}: malformed HTML ({exc})") from exc
    parser.flush()
    if not parser.sections:
        raise IngestError(f"{path.name}: no text found in the HTML")
    title = parser.title.strip() or path.stem
    return [ParsedDocument(file_document_id(path, kb_name), title, str(path), tuple(parser.sections),
                           source_type="html", kb_name=kb_name)]


def _strict(route: str) -> Callable[[Path, bytes, str], list[ParsedDocument]]:
    records = FILE_RECORDS[route]

    def parse(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
        items = records(path, io.BytesIO(data), kb_name, len(data) + 1)
        return strict_documents(items, str(path), f"{path.name}: no records")
    parse.__name__ = f"parse_{route}"
    parse.__doc__ = (f"Every document of a {route} file's bytes; IngestError at its first bad record "
                     "(ingest itself reads these files record by record: :mod:`eagle_rag.ingest.record_readers`).")
    return parse


parse_jsonl = _strict("jsonl")
parse_beir = _strict("beir")
parse_json = _strict("json")
parse_csv = _strict("csv")
parse_tsv = _strict("tsv")


PARSERS: dict[str, Callable[[Path, bytes, str], list[ParsedDocument]]] = {
    "text": parse_text,
    "markdown": parse_markdown,
    "html": parse_html,
    "json": parse_json,
    "jsonl": parse_jsonl,
    "beir": parse_beir,
    "csv": parse_csv,
    "tsv": parse_tsv,
}
"""Every core route as a whole-file parser (bytes in, documents out)."""

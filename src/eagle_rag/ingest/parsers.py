"""Core parsers: plain text, Markdown, HTML, JSON, JSONL and BEIR ``corpus.jsonl``.

Each parser turns the bytes of one file into :class:`ParsedDocument` objects whose sections carry
the document navigation (heading path). A bad file raises :class:`IngestError` with the reason.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from eagle_rag.errors import IngestError
from eagle_rag.types import ParsedDocument, Section

MAX_ID_CHARS = 64
MAX_METADATA_DEPTH = 32
_ID_OK = re.compile(r"^[A-Za-z0-9_.:\-]{1,64}$")
_SUFFIX_ROUTES = {
    ".txt": "text", ".text": "text", ".md": "markdown", ".markdown": "markdown",
    ".html": "html", ".htm": "html", ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl",
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


def record_document_id(raw: Any, kb_name: str) -> str:
    """A record's own id when it is a safe short string, else a hash of it."""
    text = str(raw).strip()
    if not text:
        raise IngestError("record has an empty id")
    if _ID_OK.match(text):
        return text
    return "h-" + hashlib.sha256(f"{kb_name}\x1f{text}".encode()).hexdigest()[:30]


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
    """Sections split at ATX headings; each section's text starts with its own heading line."""
    text = _decode(data, path)
    stack: list[tuple[int, str]] = []
    sections: list[Section] = []
    buf: list[str] = []
    in_fence = False

    def flush() -> None:
        body = "\n".join(buf).strip()
        heading_only = bool(stack) and body == stack[-1][1]
        if body and not heading_only:
            sections.append(Section(tuple(h for _, h in stack) or (path.stem,), body))
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


def _record(obj: Any, where: str, kb_name: str, source_type: str, source_uri: str) -> ParsedDocument:
    if not isinstance(obj, dict):
        raise IngestError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    raw_id = obj.get("_id", obj.get("id"))
    if raw_id is None:
        raise IngestError(f"{where}: record has no 'id' or '_id'")
    title = str(obj.get("title") or "").strip()
    body = str(obj.get("text") or obj.get("body") or obj.get("abstract") or "").strip()
    if not (title or body):
        raise IngestError(f"{where}: record {raw_id!r} has neither 'title' nor 'text'")
    text = f"{title}\n{body}" if title and body else (title or body)
    doc_id = record_document_id(raw_id, kb_name)
    tags = obj.get("tags") or ()
    if not isinstance(tags, (list, tuple)) or not all(isinstance(t, str) for t in tags):
        raise IngestError(f"{where}: 'tags' must be a list of strings")
    metadata = obj.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise IngestError(f"{where}: 'metadata' must be an object")
    if _depth(metadata) > MAX_METADATA_DEPTH:  # the stores serialise it again, deeper in the stack
        raise IngestError(f"{where}: 'metadata' is nested deeper than {MAX_METADATA_DEPTH} levels")
    return ParsedDocument(doc_id, title or str(raw_id), source_uri, (Section((title or str(raw_id),), text),),
                          source_type=source_type, kb_name=kb_name, tags=tuple(tags),
                          metadata={**metadata, "record_id": str(raw_id)})


def _depth(value: Any) -> int:
    """The nesting depth of a JSON value (1 for a flat object), computed without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def parse_jsonl(path: Path, data: bytes, kb_name: str, source_type: str = "jsonl") -> list[ParsedDocument]:
    docs: list[ParsedDocument] = []
    seen: set[str] = set()
    for lineno, line in enumerate(_decode(data, path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise IngestError(f"{path.name} line {lineno}: invalid JSON ({exc.msg})") from exc
        except RecursionError as exc:  # found by fuzzing: "[" * 100000
            raise IngestError(f"{path.name} line {lineno}: JSON nested too deeply") from exc
        doc = _record(obj, f"{path.name} line {lineno}", kb_name, source_type, f"{path}#{lineno}")
        if doc.document_id in seen:
            raise IngestError(f"{path.name} line {lineno}: duplicate id {doc.document_id!r}")
        seen.add(doc.document_id)
        docs.append(doc)
    if not docs:
        raise IngestError(f"{path.name}: no records")
    return docs


def parse_beir(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    return parse_jsonl(path, data, kb_name, source_type="beir")


def parse_json(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    try:
        obj = json.loads(_decode(data, path))
    except json.JSONDecodeError as exc:
        raise IngestError(f"{path.name}: invalid JSON ({exc.msg} at line {exc.lineno})") from exc
    except RecursionError as exc:  # found by fuzzing: "[" * 100000
        raise IngestError(f"{path.name}: JSON nested too deeply") from exc
    items = obj if isinstance(obj, list) else [obj]
    docs = [_record(o, f"{path.name} item {i}", kb_name, "json", f"{path}#{i}") for i, o in enumerate(items)]
    if not docs:
        raise IngestError(f"{path.name}: no records")
    return docs


PARSERS: dict[str, Callable[[Path, bytes, str], list[ParsedDocument]]] = {
    "text": parse_text,
    "markdown": parse_markdown,
    "html": parse_html,
    "json": parse_json,
    "jsonl": parse_jsonl,
    "beir": parse_beir,
}

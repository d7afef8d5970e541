"""PDF documents with pypdf: text per page, split at detected headings.

A section's path is the heading stack followed by the page: ``("2 Methods", "2.1 Cohort", "page 3")``;
text before any heading has the path ``("page 1",)``; the first section's text starts with the title.
Headings are the PDF outline's titles when they match the text lines, else lines that look like
headings (:func:`heading_level`). Running headers and footers (a line repeated on most pages) are
dropped.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from pathlib import Path
from typing import Any

from pypdf import PdfReader

from eagle_rag.plugin_api import IngestError, ParsedDocument, Section
from eagle_rag_biomed.parsers.common import document_id, one_line

MAX_PAGES = 5_000
_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+([A-Z][^\n]{1,90})$")
_NO_END = (".", ",", ";", ":", "?", "!")
_SMALL = frozenset({"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the",
                    "to", "vs", "vs.", "with", "without", "versus", "via"})
_KNOWN = frozenset({"abstract", "background", "introduction", "methods", "materials and methods",
                    "results", "discussion", "conclusion", "conclusions", "references", "acknowledgements",
                    "acknowledgments", "summary", "keywords", "appendix", "claims", "description"})


def heading_level(line: str, outline: dict[str, int] | None = None) -> int | None:
    """The heading level of one line, or None when it is body text.

    Outline titles keep their outline depth (from 1). Otherwise numbered headings (``2.1 Cohort``)
    get one level per number, ALL-CAPS lines of at most 8 words level 1, and short title-case lines
    (at most 8 words, no final punctuation) or the usual paper section words level 2.
    """
    text = one_line(line)
    if outline is not None:
        return outline.get(text.casefold())
    if not text or len(text) > 90 or text.endswith(_NO_END) or not any(c.isalpha() for c in text):
        return None
    numbered = _NUMBERED.match(text)
    if numbered and len(numbered.group(2).split()) <= 12:
        return numbered.group(1).count(".") + 1
    words = text.split()
    if len(words) > 8:
        return None
    letters = [c for c in text if c.isalpha()]
    if len(letters) >= 3 and all(c.isupper() for c in letters):
        return 1
    if text.casefold() in _KNOWN:
        return 2
    significant = [w for w in words if w.casefold() not in _SMALL]
    if (len(words) >= 2 and words[0][:1].isupper() and significant
            and all(w[:1].isupper() or not w[:1].isalpha() for w in significant)):
        return 2
    return None


def _outline(reader: PdfReader) -> dict[str, int]:
    """Outline (bookmark) titles, case-folded, with their depth from 1; empty when there is none."""
    found: dict[str, int] = {}

    def walk(items: Any, depth: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            elif getattr(item, "title", None):
                found.setdefault(one_line(str(item.title)).casefold(), depth)

    try:
        walk(reader.outline, 1)
    except Exception:  # a broken outline is no reason to refuse the text
        return {}
    return found


def _info(reader: PdfReader) -> tuple[str, str]:
    """The ``/Title`` and ``/Author`` of the ``/Info`` dictionary; empty strings when it is absent or damaged."""
    try:
        info: dict[str, Any] = dict(reader.metadata or {})
        return one_line(str(info.get("/Title") or "")), one_line(str(info.get("/Author") or ""))
    except Exception:  # a damaged /Info dictionary (PdfReadError, PdfStreamError, ...) is no reason to refuse the text
        return "", ""


def _open(path: Path, data: bytes) -> tuple[PdfReader, list[str]]:
    if not data.lstrip()[:5] == b"%PDF-":
        raise IngestError(f"{path.name}: not a PDF (no %PDF- header)")
    if b"%%EOF" not in data[-2048:]:
        raise IngestError(f"{path.name}: truncated or corrupt PDF (no %%EOF trailer)")
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise IngestError(f"{path.name}: the PDF is encrypted")
        if len(reader.pages) > MAX_PAGES:
            raise IngestError(f"{path.name}: {len(reader.pages)} pages is over the limit of {MAX_PAGES}")
        pages = [page.extract_text() or "" for page in reader.pages]
    except IngestError:
        raise
    except Exception as exc:  # pypdf raises many types on damaged files; all mean "corrupt"
        raise IngestError(f"{path.name}: corrupt PDF ({type(exc).__name__}: {exc})") from exc
    return reader, pages


def _running_lines(pages: list[list[str]]) -> set[str]:
    """Lines that repeat on more than half of the pages (3 pages or more): headers and footers."""
    if len(pages) < 3:
        return set()
    counts = Counter(line for lines in pages for line in set(lines))
    return {line for line, n in counts.items() if n > len(pages) / 2}


def parse_pdf(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """Parse a PDF into one document whose sections follow its headings and pages.

    Returns a one-element list. Raises IngestError for bytes that are not a PDF, a truncated or
    corrupt file, an encrypted file, too many pages, or a PDF without extractable text (a scan).
    """
    reader, raw_pages = _open(path, data)
    pages = [[one_line(line) for line in text.splitlines() if line.strip()] for text in raw_pages]
    running = _running_lines(pages)
    outline: dict[str, int] | None = _outline(reader)
    matched = {line.casefold() for lines in pages for line in lines} & set(outline or {})
    if not outline or len(matched) < max(1, len(outline) // 2):
        outline = None  # bookmarks that do not match the text lines: use the line heuristics
    stack: list[tuple[int, str]] = []
    sections: list[Section] = []
    headings: list[str] = []
    for number, lines in enumerate(pages, start=1):
        buf: list[str] = []

        def flush(page: int = number, body: list[str] = buf) -> None:
            text = "\n".join(body).strip()
            if text and not (stack and text == stack[-1][1]):
                sections.append(Section((*(h for _, h in stack), f"page {page}"), text))
            body.clear()

        for line in lines:
            if line in running:
                continue
            level = heading_level(line, outline)
            if level is not None:
                flush()
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, line))
                headings.append(line)
            buf.append(line)
        flush()
    if not sections:
        raise IngestError(f"{path.name}: the PDF has no extractable text (a scan? OCR is not supported)")
    info_title, author = _info(reader)
    title = info_title or (headings[0] if headings else path.stem)
    if title.casefold() not in sections[0].text.casefold():
        sections[0] = Section(sections[0].path, f"{title}\n{sections[0].text}")
    metadata: dict[str, Any] = {"page_count": len(pages), "title": title,
                                "author": author,
                                "headings": headings[:200],
                                "heading_source": "outline" if outline else "text"}
    return [ParsedDocument(document_id(path, kb_name), title, str(path), tuple(sections),
                           source_type="pdf", kb_name=kb_name, metadata=metadata)]

"""Small helpers shared by the biomed parsers: text clean-up, ids and per-record warnings."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eagle_rag.plugin_api import IngestError, ParsedDocument, Section
from eagle_rag.plugin_api.ingest import file_document_id, record_document_id

Parser = Callable[[Path, bytes, str], list[ParsedDocument]]
"""The PARSE contract: ``parse(path, data, kb_name) -> documents``; raises ``IngestError``."""

PARSE_WARNINGS = "parse_warnings"
"""Metadata key: records of a file that were skipped (``[{"record": int, "reason": str}]``)."""

_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")


@dataclass(frozen=True)
class SkippedRecord:
    """A record (molecule, line) of a file that could not be parsed and was left out.

    ``record`` counts from 0 in file order (the n-th molecule of an SDF, the n-th line of a SMILES
    list); ``reason`` is a one-line message that the orchestrator can show per file.
    """

    record: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"record": self.record, "reason": self.reason}


def clean_text(text: str) -> str:
    """Collapse runs of spaces inside lines, drop empty lines. Returns the cleaned text."""
    lines = (_SPACES.sub(" ", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def one_line(text: str) -> str:
    """All whitespace collapsed to single spaces (for titles and names)."""
    return " ".join(text.split())


def decode_text(data: bytes, path: Path) -> str:
    """UTF-8 text of ``data`` (a BOM is dropped). Raises IngestError when it is not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestError(f"{path.name}: not valid UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def document_id(path: Path, kb_name: str, record: str | None = None) -> str:
    """The file's stable document id, or ``<file id>:<record>`` for one record of a multi-record file.

    Ids longer than the core's 64 characters are hashed by :func:`record_document_id`.
    """
    base = file_document_id(path, kb_name)
    return base if record is None else record_document_id(f"{base}:{record}", kb_name)


def unique(values: list[str]) -> list[str]:
    """Non-empty values, case-insensitively de-duplicated, first spelling and order kept."""
    seen: set[str] = set()
    out: list[str] = []
    for value in values:
        key = value.strip().casefold()
        if key and key not in seen:
            seen.add(key)
            out.append(value.strip())
    return out


def with_title(title: str, sections: list[Section]) -> tuple[Section, ...]:
    """Sections with ``title`` prepended to the first one's text (a title-only section when empty)."""
    if sections and title:
        head = sections[0]
        sections = [Section(head.path, f"{title}\n{head.text}"), *sections[1:]]
    elif title:
        sections = [Section((title,), title)]
    return tuple(sections)


def sidecar_paths(path: Path) -> list[Path]:
    """Where a caption for ``path`` may be, in order: ``<name>.json``, ``<stem>.json``, ``<name>.txt``,
    ``<stem>.txt`` (``scan.png.json``, ``scan.json``, ...)."""
    stem = path.name.removesuffix(".gz").rsplit(".", 1)[0] if "." in path.name else path.name
    names = [f"{path.name}.json", f"{stem}.json", f"{path.name}.txt", f"{stem}.txt"]
    return [path.with_name(n) for n in dict.fromkeys(names) if n != path.name]

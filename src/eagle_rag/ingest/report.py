"""What an ingest run reports: counts, per-file failures and per-file warnings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eagle_rag.types import ParsedDocument

PARSE_WARNINGS = "parse_warnings"
"""Metadata key a parser may set on its documents: records it skipped (``[{"record", "reason"}]``)."""


@dataclass
class FileFailure:
    """A file (or one of its records, for a warning) and what went wrong."""

    path: str
    error: str


@dataclass
class IngestReport:
    """Counts of one run; ``failures`` are files not ingested, ``warnings`` records skipped in good files.

    ``skipped_files`` counts files a route selector told to ignore (route ``"skip"``).
    """

    files: int = 0
    documents: int = 0
    chunks: int = 0
    skipped_unchanged: int = 0
    replaced: int = 0
    failures: list[FileFailure] = field(default_factory=list)
    seconds: float = 0.0
    skipped_files: int = 0
    warnings: list[FileFailure] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"files": self.files, "documents": self.documents, "chunks": self.chunks,
                "skipped_unchanged": self.skipped_unchanged, "replaced": self.replaced,
                "failures": [f.__dict__ for f in self.failures], "seconds": round(self.seconds, 3),
                "skipped_files": self.skipped_files, "warnings": [w.__dict__ for w in self.warnings]}


def parse_warnings(path: Path, docs: Sequence[ParsedDocument]) -> list[FileFailure]:
    """One warning per distinct record a parser skipped in ``path`` (``metadata["parse_warnings"]``)."""
    seen: set[str] = set()
    out: list[FileFailure] = []
    for doc in docs:
        for item in doc.metadata.get(PARSE_WARNINGS) or ():
            reason = str(item.get("reason", item)) if isinstance(item, dict) else str(item)
            if reason not in seen:
                seen.add(reason)
                out.append(FileFailure(str(path), f"record skipped: {reason}"))
    return out

"""What an ingest run reports: counts, per-file record counts, bad records, failed files and warnings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eagle_rag.ingest.records import RecordFailure
from eagle_rag.types import ParsedDocument

PARSE_WARNINGS = "parse_warnings"
"""Metadata key a parser may set on its documents: records it skipped (``[{"record", "reason"}]``)."""
DEFAULT_MIN_RECORD_ERRORS = 1000
"""A file may always have this many bad records (``ingest.max_record_errors`` unset)."""
DEFAULT_RECORD_ERROR_SHARE = 0.01
"""... or this share of the records read so far, whichever is larger."""


def record_error_limit(max_errors: int | None, records: int) -> int:
    """The bad records a file may have once ``records`` were read: ``max_errors`` when set, else
    the larger of 1,000 and 1% of ``records``. One more stops the file."""
    if max_errors is not None:
        return max_errors
    return max(DEFAULT_MIN_RECORD_ERRORS, int(records * DEFAULT_RECORD_ERROR_SHARE))


@dataclass
class FileFailure:
    """A file (or one of its records, for a warning) and what went wrong."""

    path: str
    error: str


@dataclass
class FileCounts:
    """The records of one file: read, ingested (new or changed; in a dry run, valid), skipped
    (unchanged since the last ingest), failed; ``stopped`` says why reading ended early ("" = it did not)."""

    path: str
    records: int = 0
    ingested: int = 0
    skipped: int = 0
    failed: int = 0
    stopped: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "records": self.records, "ingested": self.ingested, "skipped": self.skipped,
                "failed": self.failed, "stopped": self.stopped}


@dataclass
class IngestReport:
    """Counts of one run. ``failures`` are files (or single-document files' documents) not ingested,
    ``record_failures`` bad records inside multi-record files (every one; a file stops at its limit),
    ``files_detail`` the record counts per file, ``warnings`` records a parser skipped on its own.

    ``skipped_files`` counts files a route selector told to ignore (route ``"skip"``). In a dry run
    nothing is written and ``documents`` counts the records that would be.
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
    record_failures: list[RecordFailure] = field(default_factory=list)
    files_detail: list[FileCounts] = field(default_factory=list)
    dry_run: bool = False

    @property
    def added(self) -> int:
        """Documents new to their kb (written, not replacing an earlier version); 0 in a dry run."""
        return 0 if self.dry_run else self.documents - self.replaced

    @property
    def records_failed(self) -> int:
        """Bad records over every file."""
        return sum(f.failed for f in self.files_detail) if self.files_detail else len(self.record_failures)

    @property
    def any_failed(self) -> bool:
        """True when a file or a record was not ingested."""
        return bool(self.failures or self.record_failures or self.records_failed)

    @property
    def stopped_files(self) -> list[FileCounts]:
        """Files whose reading stopped before their end."""
        return [f for f in self.files_detail if f.stopped]

    def to_dict(self) -> dict[str, Any]:
        return {"files": self.files, "documents": self.documents, "chunks": self.chunks,
                "skipped_unchanged": self.skipped_unchanged, "replaced": self.replaced,
                "added": self.added,
                "failures": [f.__dict__ for f in self.failures], "seconds": round(self.seconds, 3),
                "skipped_files": self.skipped_files, "warnings": [w.__dict__ for w in self.warnings],
                "records_failed": self.records_failed,
                "record_failures": [r.to_dict() for r in self.record_failures],
                "files_detail": [f.to_dict() for f in self.files_detail], "dry_run": self.dry_run}


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

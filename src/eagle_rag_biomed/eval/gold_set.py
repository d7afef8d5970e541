"""The biomed gold set: its records, how hits are matched to expected documents, and its self-checks.

A record (one JSON object per line of ``eval/biomed/gold.jsonl``)::

    {"id": "reg-03", "query": "gefitinib prescribing information dosage",
     "expected_doc_ids": ["label_gefitinib"], "expected_terms": ["250 mg"],
     "workflow": "regulatory", "failure_type": "cross_drug_trap", "note": "..."}

Expected document ids are the stable ids of the ingest: a JSONL record's own id (``abs-001``,
``cmp-aspirin``) or, for a single-document file, its file stem (``label_gefitinib``). The ingest gives
such a file the id ``<stem>-<8 hex digits>`` (``eagle_rag.ingest.parsers.file_document_id``), so a
hit matches an expected id when its document id equals it, or equals it followed by ``-`` and eight
hex digits, or when its ``record_id`` metadata equals it (:func:`matches`). ``workflow`` is the
intended workflow; the pipeline never reads it (intent comes from the query text only).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eagle_rag_biomed.query.intent import Workflow

__all__ = ["GoldError", "GoldQuery", "doc_key", "load_gold", "matches", "validate_gold"]

_FILE_ID = re.compile(r"^(?P<stem>.+)-[0-9a-f]{8}$")


class GoldError(ValueError):
    """A gold file that cannot be read or has an invalid record; the message names the line."""


@dataclass(frozen=True)
class GoldQuery:
    """One gold query."""

    id: str
    query: str
    expected_doc_ids: tuple[str, ...]
    expected_terms: tuple[str, ...]
    workflow: str
    failure_type: str = ""
    note: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


def _record(obj: Any, where: str) -> GoldQuery:
    if not isinstance(obj, dict):
        raise GoldError(f"{where}: a record must be a JSON object")
    for key in ("id", "query", "expected_doc_ids", "workflow"):
        if not obj.get(key):
            raise GoldError(f"{where}: missing or empty field {key!r}")
    docs, terms = obj["expected_doc_ids"], obj.get("expected_terms", [])
    if not isinstance(docs, list) or not all(isinstance(d, str) and d for d in docs):
        raise GoldError(f"{where}: expected_doc_ids must be a list of non-empty strings")
    if not isinstance(terms, list) or not all(isinstance(t, str) and t for t in terms):
        raise GoldError(f"{where}: expected_terms must be a list of non-empty strings")
    try:
        workflow = Workflow.from_str(str(obj["workflow"])).value
    except ValueError as exc:
        raise GoldError(f"{where}: {exc}") from None
    known = {"id", "query", "expected_doc_ids", "expected_terms", "workflow", "failure_type", "note"}
    return GoldQuery(str(obj["id"]), str(obj["query"]), tuple(docs), tuple(terms), workflow,
                     str(obj.get("failure_type", "")), str(obj.get("note", "")),
                     {k: v for k, v in obj.items() if k not in known})


def load_gold(path: Path) -> list[GoldQuery]:
    """Read a gold JSONL file. Raises GoldError for an unreadable file, a bad record or a repeated id."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise GoldError(f"cannot read gold file {path}: {exc}") from exc
    out: list[GoldQuery] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise GoldError(f"{where}: invalid JSON: {exc.msg}") from exc
        record = _record(obj, where)
        if record.id in seen:
            raise GoldError(f"{where}: repeated id {record.id!r}")
        seen.add(record.id)
        out.append(record)
    if not out:
        raise GoldError(f"gold file {path} holds no record")
    return out


def matches(document_id: str, expected: str, record_id: str = "") -> bool:
    """True when a hit of ``document_id`` (with ``record_id`` metadata) is the expected document."""
    if document_id == expected or (record_id and record_id == expected):
        return True
    found = _FILE_ID.match(document_id)
    return bool(found and found.group("stem") == expected)


def doc_key(document_id: str, record_id: str = "", expected: Iterable[str] = ()) -> str:
    """The gold id a hit stands for: an expected id it matches, else its record id or file stem."""
    for exp in expected:
        if matches(document_id, exp, record_id):
            return exp
    if record_id:
        return record_id
    found = _FILE_ID.match(document_id)
    return found.group("stem") if found else document_id


def validate_gold(gold: Sequence[GoldQuery], texts: Mapping[str, str]) -> list[str]:
    """Problems of a gold set against the corpus (``texts``: gold id -> full document text).

    Reports expected documents missing from the corpus and expected terms found in none of the
    query's expected documents (case-insensitive). An empty list means the gold set is consistent.
    """
    problems: list[str] = []
    for item in gold:
        docs = [texts.get(d) for d in item.expected_doc_ids]
        for doc_id, text in zip(item.expected_doc_ids, docs, strict=True):
            if text is None:
                problems.append(f"{item.id}: expected document {doc_id!r} is not in the corpus")
        body = " ".join(t for t in docs if t).lower()
        for term in item.expected_terms:
            if term.lower() not in body:
                problems.append(f"{item.id}: term {term!r} is in none of its expected documents")
    return problems

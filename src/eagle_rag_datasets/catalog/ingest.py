"""Read dataset cards from JSONL or YAML, validating every record and reporting errors per line.

JSONL: one JSON object per line (blank lines skipped). ``languages`` may also be a mapping of
subsets to language lists (the MTEB form); the card gets the union of its lists. YAML: a list of mappings, or a mapping
with a ``cards:`` list; errors name the line where the item starts. Validation collects every
problem in the file; :func:`read_cards` raises :class:`CardValidationError` listing them all,
or, with ``strict=False``, skips the invalid records and returns their errors with the cards.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from eagle_rag_datasets.catalog.cards import DatasetCard, LicenseVerdict
from eagle_rag_datasets.catalog.kinds import KINDS
from eagle_rag_datasets.errors import CardValidationError, LineError

_LIST_FIELDS = ("aliases", "tags", "tasks", "languages")
_OPTIONAL_STR = ("license", "homepage", "source", "description_zh", "kind")
KNOWN_FIELDS = frozenset(
    {"id", "name", "description", "license_verdict", *_LIST_FIELDS, *_OPTIONAL_STR}
)


@dataclass(frozen=True)
class IngestResult:
    """Cards read from one file, and the errors of the records that were skipped."""

    path: str
    cards: tuple[DatasetCard, ...]
    errors: tuple[LineError, ...]


class _Problems:
    def __init__(self, line: int, card_id: str | None) -> None:
        self.line, self.card_id = line, card_id
        self.items: list[LineError] = []

    def add(self, field: str | None, message: str) -> None:
        self.items.append(LineError(self.line, self.card_id, field, message))


def _text(record: Mapping[str, Any], key: str, problems: _Problems, required: bool = False) -> str | None:
    value = record.get(key)
    if value is None:
        if required:
            problems.add(key, "is required")
        return None
    if not isinstance(value, str):
        problems.add(key, f"must be a string, not {type(value).__name__}")
        return None
    if required and not value.strip():
        problems.add(key, "must not be empty")
        return None
    return value.strip()


def _strings(record: Mapping[str, Any], key: str, problems: _Problems) -> tuple[str, ...]:
    value = record.get(key)
    if value is None:
        return ()
    if key == "languages" and isinstance(value, Mapping):
        # MTEB style: {subset: [language, ...]}; the card's languages are all of them.
        lists = list(value.values())
        if all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in lists):
            return tuple(dict.fromkeys(x.strip() for v in lists for x in v if x.strip()))
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.add(key, f"must be a list of strings, not {type(value).__name__}: {str(value)[:60]!r}")
        return ()
    return tuple(v.strip() for v in value if v.strip())


def _description(record: Mapping[str, Any], problems: _Problems) -> tuple[str, str]:
    value = record.get("description")
    second = _text(record, "description_zh", problems) or ""
    if value is None:
        return "", second
    if isinstance(value, str):
        return value.strip(), second
    if isinstance(value, Mapping):
        bad = [k for k in value if k not in {"en", "zh", "default"}]
        if bad or not all(isinstance(v, str) for v in value.values()):
            problems.add("description", "a mapping must hold strings under 'en', 'zh' or 'default'")
            return "", second
        main = str(value.get("en") or value.get("default") or "")
        return main.strip(), str(value.get("zh") or second).strip()
    problems.add("description", f"must be a string or a mapping, not {type(value).__name__}")
    return "", second


def _verdict(record: Mapping[str, Any], problems: _Problems) -> LicenseVerdict | None:
    value = record.get("license_verdict")
    if value is None:
        return None
    if not isinstance(value, Mapping):
        problems.add("license_verdict", "must be a mapping with verdict, evidence and verified")
        return None
    verdict = value.get("verdict")
    if not isinstance(verdict, str) or not verdict.strip():
        problems.add("license_verdict.verdict", "is required and must be a non-empty string")
        return None
    evidence = value.get("evidence") or []
    if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
        problems.add("license_verdict.evidence", "must be a list of strings")
        return None
    verified = value.get("verified")
    when: date | None = None
    if isinstance(verified, date):
        when = verified
    elif isinstance(verified, str) and verified.strip():
        try:
            when = date.fromisoformat(verified.strip()[:10])
        except ValueError:
            problems.add("license_verdict.verified", f"is not an ISO date: {verified!r}")
            return None
    elif verified is not None:
        problems.add("license_verdict.verified", "must be an ISO date (YYYY-MM-DD)")
        return None
    return LicenseVerdict(verdict.strip(), tuple(e.strip() for e in evidence if e.strip()), when)


def validate_record(record: Any, line: int) -> tuple[DatasetCard | None, list[LineError]]:
    """Validate one record. Returns the card (None when invalid) and the problems found."""
    if not isinstance(record, Mapping):
        return None, [LineError(line, None, None, f"a card must be an object, not {type(record).__name__}")]
    raw_id = record.get("id")
    problems = _Problems(line, raw_id if isinstance(raw_id, str) else None)
    for key in sorted(set(record) - KNOWN_FIELDS, key=str):
        problems.add(str(key), "is not a card field; known fields: " + ", ".join(sorted(KNOWN_FIELDS)))
    card_id = _text(record, "id", problems, required=True)
    name = _text(record, "name", problems, required=True)
    lists = {key: _strings(record, key, problems) for key in _LIST_FIELDS}
    optional = {key: _text(record, key, problems) for key in ("license", "homepage", "source", "kind")}
    if optional["kind"] and optional["kind"] not in KINDS:
        problems.add("kind", f"must be one of {', '.join(KINDS)}")
    description, description_zh = _description(record, problems)
    verdict = _verdict(record, problems)
    if problems.items or card_id is None or name is None:
        return None, problems.items
    card = DatasetCard(
        id=card_id, name=name, description=description, description_zh=description_zh,
        license_verdict=verdict, aliases=lists["aliases"], tags=lists["tags"], tasks=lists["tasks"],
        languages=lists["languages"], license=optional["license"], homepage=optional["homepage"],
        source=optional["source"], kind=optional["kind"],
    )
    return card, []


def _jsonl_records(lines: Iterable[str | bytes]) -> Iterator[tuple[int, Any, str | None]]:
    """(line, record, problem) per non-blank line; a line of bytes that are not UTF-8 is a problem of
    that line only."""
    for number, raw in enumerate(lines, start=1):
        try:
            line = raw.decode("utf-8-sig" if number == 1 else "utf-8") if isinstance(raw, bytes) else raw
        except UnicodeDecodeError as exc:
            yield number, None, f"not valid UTF-8 ({exc.reason} at byte {exc.start} of the line)"
            continue
        if not line.strip():
            continue
        try:
            yield number, json.loads(line), None
        except json.JSONDecodeError as exc:
            yield number, None, f"not valid JSON: {exc.msg} (column {exc.colno})"


def _yaml_records(text: str) -> Iterator[tuple[int, Any, str | None]]:
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return
        if isinstance(root, yaml.MappingNode):
            items = [v for k, v in root.value if getattr(k, "value", None) == "cards"]
            root = items[0] if items else root
        if not isinstance(root, yaml.SequenceNode):
            yield root.start_mark.line + 1, None, "a YAML card file must be a list of cards (or cards: [...])"
            return
        for node in root.value:
            yield node.start_mark.line + 1, loader.construct_object(node, deep=True), None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        yield (mark.line + 1 if mark else 1), None, f"not valid YAML: {exc}"
    finally:
        loader.dispose()


def parse_cards(text: str, fmt: str, path: str = "<memory>") -> IngestResult:
    """Parse card text in ``fmt`` ("jsonl" or "yaml"); invalid records are reported, not kept."""
    return _collect(_yaml_records(text) if fmt == "yaml" else _jsonl_records(text.splitlines()), path)


def _collect(records: Iterable[tuple[int, Any, str | None]], path: str) -> IngestResult:
    cards: list[DatasetCard] = []
    errors: list[LineError] = []
    seen: dict[str, int] = {}
    for line, record, parse_error in records:
        if parse_error is not None:
            errors.append(LineError(line, None, None, parse_error))
            continue
        card, problems = validate_record(record, line)
        if card is not None and card.id in seen:
            problems = [LineError(line, card.id, "id", f"duplicate id (first on line {seen[card.id]})")]
            card = None
        errors.extend(problems)
        if card is not None:
            seen[card.id] = line
            cards.append(card)
    return IngestResult(path, tuple(cards), tuple(errors))


def card_format(path: Path) -> str:
    """``yaml`` for .yaml/.yml files, else ``jsonl``."""
    return "yaml" if path.suffix.lower() in {".yaml", ".yml"} else "jsonl"


def read_cards(path: str | Path, strict: bool = True) -> IngestResult:
    """Read a JSONL or YAML card file.

    JSONL is read line by line (a line that is not UTF-8 or not JSON is one bad record; the others
    are kept). Raises :class:`CardValidationError` when ``strict`` and any record is invalid (or a
    YAML file is not UTF-8), and ``FileNotFoundError`` when the file does not exist.
    """
    file = Path(path)
    if card_format(file) == "jsonl":  # line by line: a line that is not UTF-8 fails alone
        with file.open("rb") as handle:
            result = _collect(_jsonl_records(handle), str(file))
    else:
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise CardValidationError(str(file), [LineError(1, None, None, f"not valid UTF-8 ({exc.reason} at "
                                                                           f"byte {exc.start})")]) from exc
        result = parse_cards(text, "yaml", str(file))
    if strict and result.errors:
        raise CardValidationError(str(file), list(result.errors))
    return result

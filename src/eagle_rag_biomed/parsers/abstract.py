"""Plain-text abstracts: a title line, then paragraphs, optionally labelled (``BACKGROUND: ...``).

Paths are ``(title, label)`` (``("Statins and ...", "Background")``), ``(title, "Abstract")`` for
unlabelled text. ``PMID:`` and ``DOI:`` lines go to metadata instead of the text.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from eagle_rag.plugin_api import IngestError, ParsedDocument, Section
from eagle_rag_biomed.parsers.common import decode_text, document_id, one_line, with_title

KNOWN_LABELS = frozenset({
    "background", "introduction", "context", "importance", "objective", "objectives", "aim", "aims",
    "purpose", "rationale", "hypothesis", "methods", "method", "materials and methods", "methodology",
    "design", "setting", "settings", "participants", "patients", "subjects", "population",
    "interventions", "intervention", "exposure", "exposures", "measurements", "main outcome measures",
    "main outcomes and measures", "outcomes", "results", "findings", "conclusion", "conclusions",
    "interpretation", "discussion", "significance", "implications", "limitations", "summary",
    "trial registration", "registration", "funding", "evidence acquisition", "evidence synthesis",
    "study design", "data sources", "study selection", "data extraction", "case presentation",
})
_META_LABELS = {"pmid": "pmid", "doi": "doi"}
_LABEL = re.compile(r"^\s*([A-Za-z][A-Za-z /&,-]{1,48}?)\s*:\s*(.*)$")
ABSTRACT = "Abstract"


def _label_of(line: str) -> tuple[str, str] | None:
    """``(label, rest)`` when ``line`` opens a labelled paragraph or a metadata line, else None."""
    match = _LABEL.match(line)
    if not match:
        return None
    label = one_line(match.group(1))
    key = label.lower()
    if key in KNOWN_LABELS or key in _META_LABELS or (label.isupper() and len(label) >= 4):
        return label, match.group(2).strip()
    return None


def looks_like_abstract(head: str) -> bool:
    """True when the start of a text file has at least two distinct known abstract labels."""
    found = {lab[0].lower() for line in head.splitlines()[:80] if (lab := _label_of(line))}
    return len(found & KNOWN_LABELS) >= 2


def _display(label: str) -> str:
    return label.capitalize() if label.isupper() else label


def parse_abstract_text(text: str, path: Path, kb_name: str, doc_id: str | None = None,
                        source_uri: str | None = None) -> ParsedDocument:
    """One document from the text of an abstract (first non-empty line is the title).

    Raises IngestError when the text is empty or has a title but no abstract body.
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip()), None)
    if start is None:
        raise IngestError(f"{path.name}: the file is empty")
    title = one_line(lines[start])
    metadata: dict[str, Any] = {"doc_type": "research", "title": title, "labels": []}
    blocks: list[tuple[str, list[str]]] = [(ABSTRACT, [])]
    for line in lines[start + 1:]:
        labelled = _label_of(line)
        if labelled and labelled[0].lower() in _META_LABELS:
            metadata[_META_LABELS[labelled[0].lower()]] = labelled[1]
        elif labelled:
            blocks.append((_display(labelled[0]), [labelled[1]]))
            metadata["labels"].append(_display(labelled[0]))
        else:
            blocks[-1][1].append(line)
    sections: list[Section] = []
    for label, body in blocks:
        paragraphs = [one_line(p) for p in "\n".join(body).split("\n\n")]
        body_text = "\n".join(p for p in paragraphs if p)
        if body_text:
            sections.append(Section((title, label), body_text))
    if not sections:
        raise IngestError(f"{path.name}: a title line but no abstract text")
    return ParsedDocument(doc_id or document_id(path, kb_name), title, source_uri or str(path),
                          with_title(title, sections), source_type="abstract", kb_name=kb_name,
                          metadata=metadata)


def parse_abstract(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """Parse a plain-text abstract file into one document. Raises IngestError (not UTF-8, empty)."""
    return [parse_abstract_text(decode_text(data, path), path, kb_name)]

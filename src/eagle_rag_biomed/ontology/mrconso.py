"""Optional UMLS Metathesaurus loader: English preferred strings of an ``MRCONSO.RRF`` file.

UMLS needs an NLM licence, so no UMLS file ships with the project: point
``EAGLE_BIOMED_UMLS_MRCONSO_PATH`` at a local ``MRCONSO.RRF`` and its concepts are merged into the
ontology by CUI, else by canonical name (see ``index.py``). Rows are pipe-separated with the RRF
columns ``CUI|LAT|TS|LUI|STT|SUI|ISPREF|AUI|SAUI|SCUI|SDUI|SAB|TTY|CODE|STR|SRL|SUPPRESS|CVF|``;
only ``LAT=ENG`` and ``ISPREF=Y`` rows are kept, and obsolete ones (``SUPPRESS=O``) are skipped.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from eagle_rag_biomed.ontology.normalize import normalize_key

MRCONSO_ENV = "EAGLE_BIOMED_UMLS_MRCONSO_PATH"
_CUI, _LAT, _TS, _STT, _ISPREF, _SAB, _STR, _SUPPRESS = 0, 1, 2, 4, 6, 11, 14, 16


@dataclass(frozen=True, slots=True)
class UmlsConcept:
    """One UMLS concept: CUI, canonical (preferred) name, other English names, source vocabularies."""

    cui: str
    canonical: str
    aliases: tuple[str, ...]
    sources: tuple[str, ...]


def mrconso_path_from_env(environ: Mapping[str, str] | None = None) -> Path | None:
    """The MRCONSO path named by ``EAGLE_BIOMED_UMLS_MRCONSO_PATH`` in ``environ`` (default: os.environ)."""
    value = (os.environ if environ is None else environ).get(MRCONSO_ENV, "").strip()
    return Path(value).expanduser() if value else None


def load_umls_metathesaurus(path: Path | str | None) -> dict[str, UmlsConcept]:
    """Concepts of an MRCONSO file keyed by the normalised canonical name.

    The canonical name of a CUI is its first row with ``TS=P`` and ``STT=PF`` (the preferred term of
    the preferred lexical variant), else its first kept row; the other strings become aliases
    (deduplicated by normalised key). Malformed lines (fewer than 17 columns) are skipped. A missing
    path or file returns an empty dict: UMLS is optional.
    """
    if path is None or not Path(path).is_file():
        return {}
    rows: dict[str, list[tuple[bool, str, str]]] = {}
    with Path(path).open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            cols = line.rstrip("\r\n").split("|")
            if len(cols) < 17 or cols[_LAT] != "ENG" or cols[_ISPREF] != "Y" or cols[_SUPPRESS] == "O":
                continue
            text = cols[_STR].strip()
            if text:
                preferred = cols[_TS] == "P" and cols[_STT] == "PF"
                rows.setdefault(cols[_CUI], []).append((preferred, text, cols[_SAB]))
    concepts: dict[str, UmlsConcept] = {}
    for cui, strings in rows.items():
        canonical = next((text for preferred, text, _ in strings if preferred), strings[0][1])
        seen = {normalize_key(canonical)}
        aliases: list[str] = []
        for _, text, _ in strings:
            if (key := normalize_key(text)) not in seen:
                seen.add(key)
                aliases.append(text)
        sabs = tuple(sorted({sab for _, _, sab in strings if sab}))
        concepts.setdefault(normalize_key(canonical), UmlsConcept(cui, canonical, tuple(aliases), sabs))
    return concepts

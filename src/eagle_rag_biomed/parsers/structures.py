"""Macromolecular structure files: the header of ``.pdb`` and ``.cif`` (mmCIF) as one document.

No coordinates are parsed, only what identifies the entry: id, title, experiment method,
resolution, molecules (COMPND / ``_entity.pdbx_description``), organisms and keywords.
source_type ``structure``; ``metadata["doc_type"]`` is ``compound``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from eagle_rag.plugin_api import IngestError, ParsedDocument, Section
from eagle_rag_biomed.parsers.common import decode_text, document_id, one_line, unique

_CIF_TOKEN = re.compile(r"'([^']*)'(?=\s|$)|\"([^\"]*)\"(?=\s|$)|(#.*)|(\S+)")
_RESOLUTION = re.compile(r"RESOLUTION\.\s+([\d.]+)\s+ANGSTROM")


def _spec(text: str, key: str) -> list[str]:
    """Values of ``KEY: value;`` pairs in COMPND / SOURCE text."""
    return [one_line(v) for k, v in (p.split(":", 1) for p in text.split(";") if ":" in p)
            if k.strip().upper() == key]


def _pdb_header(text: str) -> dict[str, Any]:
    records: dict[str, list[str]] = {}
    atoms = 0
    resolution = ""
    for line in text.splitlines():
        name = line[:6].strip().upper()
        if name in ("ATOM", "HETATM"):
            atoms += 1
        elif name == "REMARK" and not resolution and (m := _RESOLUTION.search(line)):
            resolution = m.group(1)
        elif name in ("HEADER", "TITLE", "COMPND", "SOURCE", "EXPDTA", "KEYWDS"):
            records.setdefault(name, []).append(line[10:80].rstrip() if name != "HEADER" else line)
    if not records and not atoms:
        raise IngestError("no HEADER, TITLE, COMPND or ATOM records")
    header = records.get("HEADER", [""])[0]
    compnd = " ".join(r.strip() for r in records.get("COMPND", []))
    source = " ".join(r.strip() for r in records.get("SOURCE", []))
    return {
        "pdb_id": header[62:66].strip(), "classification": one_line(header[10:50]),
        "deposition_date": header[50:59].strip(), "title": one_line(" ".join(records.get("TITLE", []))),
        "methods": unique([m.strip() for r in records.get("EXPDTA", []) for m in r.split(";")]),
        "molecules": unique(_spec(compnd, "MOLECULE")),
        "organisms": unique(_spec(source, "ORGANISM_SCIENTIFIC")),
        "keywords": unique([k.strip() for k in " ".join(records.get("KEYWDS", [])).split(",")]),
        "resolution": resolution, "atom_count": atoms,
    }


def _cif_tokens(text: str) -> Iterator[tuple[str, bool]]:
    """``(value, quoted)`` tokens of mmCIF text, up to the coordinate loop (``_atom_site``)."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(";"):
            block = [line[1:]]
            i += 1
            while i < len(lines) and not lines[i].startswith(";"):
                block.append(lines[i])
                i += 1
            yield one_line("\n".join(block)), True
        else:
            for match in _CIF_TOKEN.finditer(line):
                if match.group(3) is not None:
                    break
                if (match.group(4) or "").startswith("_atom_site."):
                    return
                quoted = match.group(4) is None
                yield (match.group(1) or match.group(2) or "") if quoted else match.group(4), quoted
        i += 1


def _is_keyword(value: str, quoted: bool) -> bool:
    """True for a tag, ``loop_`` or ``data_`` token (never for a quoted value)."""
    lower = value.lower()
    return not quoted and (value.startswith("_") or lower == "loop_" or lower.startswith("data_"))


def _cif_items(text: str) -> dict[str, list[str]]:
    """mmCIF data items (plain and ``loop_``) as tag -> values; ``data_`` is kept under ``data_``."""
    items: dict[str, list[str]] = {}
    tokens = list(_cif_tokens(text))
    i = 0
    while i < len(tokens):
        value, quoted = tokens[i]
        if not quoted and value.lower().startswith("data_"):
            items.setdefault("data_", []).append(value[5:])
            i += 1
        elif not quoted and value.lower() == "loop_":
            tags: list[str] = []
            i += 1
            while i < len(tokens) and not tokens[i][1] and tokens[i][0].startswith("_"):
                tags.append(tokens[i][0].lower())
                i += 1
            row = 0
            while i < len(tokens) and not _is_keyword(*tokens[i]):
                if tags:
                    items.setdefault(tags[row % len(tags)], []).append(tokens[i][0])
                row += 1
                i += 1
        elif not quoted and value.startswith("_") and i + 1 < len(tokens):
            items.setdefault(value.lower(), []).append(tokens[i + 1][0])
            i += 2
        else:
            i += 1
    return items


def _cif_header(text: str) -> dict[str, Any]:
    items = _cif_items(text)
    if not items:
        raise IngestError("no mmCIF data items")

    def get(*tags: str) -> list[str]:
        return unique([v for t in tags for v in items.get(t, []) if v not in ("?", ".")])

    return {
        "pdb_id": (get("_entry.id") or get("data_") or [""])[0],
        "title": (get("_struct.title") or [""])[0],
        "classification": (get("_struct_keywords.pdbx_keywords") or [""])[0],
        "deposition_date": (get("_pdbx_database_status.recvd_initial_deposition_date") or [""])[0],
        "methods": get("_exptl.method"), "molecules": get("_entity.pdbx_description"),
        "organisms": get("_entity_src_gen.pdbx_gene_src_scientific_name",
                         "_entity_src_nat.pdbx_organism_scientific",
                         "_pdbx_entity_src_syn.organism_scientific"),
        "keywords": [k.strip() for k in ",".join(get("_struct_keywords.text")).split(",") if k.strip()],
        "resolution": (get("_refine.ls_d_res_high", "_reflns.d_resolution_high",
                           "_em_3d_reconstruction.resolution") or [""])[0],
    }


def _document(path: Path, kb_name: str, info: dict[str, Any], fmt: str) -> list[ParsedDocument]:
    label = f"PDB {info['pdb_id']}" if info.get("pdb_id") else path.stem
    method = ", ".join(info["methods"]) + (f" ({info['resolution']} Å)" if info.get("resolution") else "")
    lines = [f"{label}: {info['title']}" if info.get("title") else label,
             *(f"{k}: {v}" for k, v in (("Classification", info.get("classification")), ("Method", method),
                                        ("Molecules", "; ".join(info["molecules"])),
                                        ("Organisms", "; ".join(info["organisms"])),
                                        ("Keywords", ", ".join(info["keywords"]))) if v)]
    metadata = {"doc_type": "compound", "structure_format": fmt, **info}
    return [ParsedDocument(document_id(path, kb_name), info.get("title") or label, str(path),
                           (Section((label,), "\n".join(lines)),), source_type="structure",
                           kb_name=kb_name, metadata=metadata)]


def parse_pdb(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """One document from a PDB-format file's header records. Raises IngestError when it has none."""
    text = decode_text(data, path)
    try:
        return _document(path, kb_name, _pdb_header(text), "pdb")
    except IngestError as exc:
        raise IngestError(f"{path.name}: not a PDB file ({exc.message})") from exc


def parse_mmcif(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """One document from an mmCIF file's header items. Raises IngestError when it has none."""
    text = decode_text(data, path)
    try:
        return _document(path, kb_name, _cif_header(text), "mmcif")
    except IngestError as exc:
        raise IngestError(f"{path.name}: not an mmCIF file ({exc.message})") from exc

"""Compound files with RDKit: ``.sdf``, ``.mol``, ``.mol2`` and SMILES lists (``.smi``, ``.smiles``).

One document per molecule (source_type ``compound``): name, canonical SMILES, InChI, InChIKey,
formula and descriptors in metadata, a short summary as its one section (path ``(name,)``).
A bad record inside an otherwise good file is skipped and reported: every document of the file
carries ``metadata["parse_warnings"]`` (``[{"record", "reason"}]``, at most 100) and
``metadata["skipped_records"]`` (the count). A file with no valid molecule raises IngestError.
Ingest uses the ``*_records`` forms instead (SDF, mol2, SMILES lists): each bad molecule is a
``RecordFailure`` with its record number and line, and a file of bad molecules only is no longer
one error but one failure per molecule.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, cast

from rdkit import Chem

from eagle_rag.plugin_api import IngestError, ParsedDocument, ParseResult, RecordFailure, Section
from eagle_rag_biomed.chem.molecules import (
    describe,
    error_message,
    rdkit_errors,
    sanitize_problem,
    summary_text,
    without_hydrogens,
)
from eagle_rag_biomed.parsers.common import PARSE_WARNINGS, SkippedRecord, decode_text, document_id, one_line

MAX_WARNINGS = 100
_END = object()
_NAME_PROPS = ("NAME", "Name", "name", "GENERIC_NAME", "COMMON_NAME", "DRUGBANK_ID", "ID", "id")
_MAX_PROPS = 30
_MAX_PROP_CHARS = 500

Record = tuple[Chem.Mol | None, str, str, str]
"""A parsed (unsanitised) molecule or None, its name, where it is (``line 7``) and RDKit's parse error."""


Good = tuple[int, str, dict[str, Any], dict[str, str]]
"""A valid molecule: its 0-based record number, name, descriptors and SD properties."""


def _sort(records: Iterable[Record]) -> tuple[list[Good], list[SkippedRecord]]:
    """Sanitise and describe each record: (the good ones, the bad ones with ``where: reason``)."""
    good: list[Good] = []
    skipped: list[SkippedRecord] = []
    for index, (mol, name, where, error) in enumerate(records):
        problem = (error or "unparseable molecule record") if mol is None else sanitize_problem(mol)
        if mol is None or problem:
            skipped.append(SkippedRecord(index, f"{where}: {problem}"))
            continue
        try:  # RemoveHs sanitises again, which can still fail: an aromatic ring beside a query bond
            info = describe(without_hydrogens(mol))
        except Exception as exc:  # RDKit's KekulizeException and other sanitisation errors
            skipped.append(SkippedRecord(index, f"{where}: {error_message(exc)}"))
            continue
        props = {k: one_line(str(v))[:_MAX_PROP_CHARS]
                 for k, v in list(mol.GetPropsAsDict(includePrivate=False).items())[:_MAX_PROPS]}
        good.append((index, name, info, props))
    return good, skipped


def _build(path: Path, kb_name: str, good: list[Good], skipped: list[SkippedRecord],
           warnings: list[dict[str, Any]]) -> list[ParsedDocument]:
    docs: list[ParsedDocument] = []
    for index, name, info, props in good:
        label = name or f"{path.stem} #{index}"
        metadata: dict[str, Any] = {"doc_type": "compound", "name": label, "record": index, **info,
                                    "sd_properties": props, "skipped_records": len(skipped),
                                    PARSE_WARNINGS: warnings}
        docs.append(ParsedDocument(document_id(path, kb_name, f"m{index}"), label, f"{path}#{index}",
                                   (Section((label,), summary_text(label, info)),),
                                   source_type="compound", kb_name=kb_name, metadata=metadata))
    return docs


def _documents(path: Path, kb_name: str, records: Iterable[Record]) -> list[ParsedDocument]:
    """Sanitise and describe each record; skip and report the bad ones. Raises IngestError if none is good."""
    good, skipped = _sort(records)
    if not good:
        reasons = "; ".join(s.reason for s in skipped[:3])
        raise IngestError(f"{path.name}: no valid molecule ({len(skipped)} bad records; {reasons})",
                          {PARSE_WARNINGS: [s.to_dict() for s in skipped[:MAX_WARNINGS]]})
    return _build(path, kb_name, good, skipped, [s.to_dict() for s in skipped[:MAX_WARNINGS]])


def _result(path: Path, kb_name: str, records: Iterable[Record], lines: Sequence[int]) -> ParseResult:
    """Every molecule of a multi-molecule file for ingest: the valid ones as documents, each bad one as a
    RecordFailure (record number from 1, the line it starts on: ``lines[record]``, its name when read)."""
    records = list(records)
    good, skipped = _sort(records)
    failures = [RecordFailure(str(path), s.record + 1, s.reason.split(": ", 1)[-1],
                              lines[s.record] if s.record < len(lines) else None,
                              records[s.record][1] or None) for s in skipped]
    return ParseResult(_build(path, kb_name, good, skipped, []), failures)


def _start_lines(text: bytes | str, starts_record: Callable[[str], bool], first: int | None = 1) -> list[int]:
    """The 1-based line on which each record starts: ``first`` (when not None), then every line
    for which ``starts_record(previous line)`` holds, or the line itself for a marker."""
    lines = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    out = [] if first is None else [first]
    for number, line in enumerate(lines.splitlines(), start=1):
        if starts_record(line):
            out.append(number + (1 if first is not None else 0))
    return out


def _name(mol: Chem.Mol | None) -> str:
    if mol is None:
        return ""
    for prop in ("_Name", *_NAME_PROPS):
        if mol.HasProp(prop) and one_line(mol.GetProp(prop)):
            return one_line(mol.GetProp(prop))
    return ""


def _first(errors: list[str]) -> str:
    return errors[0] if errors else ""


def _sdf_records(data: bytes) -> Iterator[Record]:
    supplier = Chem.ForwardSDMolSupplier(io.BytesIO(data), sanitize=False, removeHs=False)
    index = 0
    while True:
        with rdkit_errors() as errors:
            item = next(supplier, _END)
        if item is _END:
            return
        mol = cast("Chem.Mol | None", item)
        try:  # RDKit keeps the file's bytes in the name and SD properties; reading them decodes UTF-8
            name = _name(mol)
            if mol is not None:
                mol.GetPropsAsDict(includePrivate=False)
        except UnicodeDecodeError as exc:
            yield None, "", f"record {index}", f"the molecule name or an SD property is not valid UTF-8 ({exc.reason})"
        else:
            yield mol, name, f"record {index}", _first(errors)
        index += 1


def parse_sdf(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """One document per valid molecule of an SD file; bad records are skipped and reported.

    Raises IngestError when no record is a valid molecule.
    """
    return _documents(path, kb_name, _sdf_records(data))


def sdf_records(path: Path, data: bytes, kb_name: str) -> ParseResult:
    """Every molecule of an SD file for ingest: the valid ones as documents, each broken one as a
    RecordFailure with the line its record starts on (records end at ``$$$$``)."""
    return _result(path, kb_name, _sdf_records(data), _start_lines(data, lambda line: line.strip() == "$$$$"))


def parse_mol(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """One document for a MDL molfile. Raises IngestError when it is not a valid molecule."""
    with rdkit_errors() as errors:
        mol = Chem.MolFromMolBlock(decode_text(data, path), sanitize=False, removeHs=False)
    return _documents(path, kb_name, [(mol, _name(mol), "molecule", _first(errors))])


def parse_mol2(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """One document per ``@<TRIPOS>MOLECULE`` block of a Tripos mol2 file.

    Raises IngestError when there is no such block or none is a valid molecule.
    """
    return _documents(path, kb_name, _mol2_records(path, decode_text(data, path)))


def mol2_records(path: Path, data: bytes, kb_name: str) -> ParseResult:
    """Every molecule of a mol2 file for ingest (bad ones as RecordFailures with their line).
    Raises IngestError when there is no ``@<TRIPOS>MOLECULE`` block."""
    text = decode_text(data, path)
    lines = _start_lines(text, lambda line: line.startswith("@<TRIPOS>MOLECULE"), first=None)
    return _result(path, kb_name, _mol2_records(path, text), lines)


def _mol2_records(path: Path, text: str) -> list[Record]:
    marker = "@<TRIPOS>MOLECULE"
    blocks = [marker + part for part in text.split(marker)[1:]]
    if not blocks:
        raise IngestError(f"{path.name}: not a mol2 file (no {marker} record)")
    records: list[Record] = []
    for index, block in enumerate(blocks):
        with rdkit_errors() as errors:
            mol = Chem.MolFromMol2Block(block, sanitize=False, removeHs=False)
        title = block.splitlines()[1] if len(block.splitlines()) > 1 else ""
        records.append((mol, _name(mol) or one_line(title), f"molecule {index}", _first(errors)))
    return records


def _smiles_records(text: str) -> Iterator[Record]:
    first_data = True
    for lineno, line in enumerate(text.splitlines(), start=1):
        parts = line.split(None, 1)
        if not parts or parts[0].startswith("#"):
            continue
        if first_data and parts[0].lower() in {"smiles", "smi", "canonical_smiles", "structure"}:
            first_data = False
            continue
        first_data = False
        with rdkit_errors() as errors:
            mol = Chem.MolFromSmiles(parts[0], sanitize=False)
        yield mol, one_line(parts[1]) if len(parts) > 1 else "", f"line {lineno}", _first(errors)


def parse_smiles_list(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """One document per valid line ``SMILES [whitespace name]`` (``#`` comments and a header skipped).

    Invalid lines are skipped and reported with their line number. Raises IngestError
    when no line is a valid molecule.
    """
    return _documents(path, kb_name, _smiles_records(decode_text(data, path)))


def smiles_records(path: Path, data: bytes, kb_name: str) -> ParseResult:
    """Every line of a SMILES list for ingest (bad ones as RecordFailures with their line)."""
    records = list(_smiles_records(decode_text(data, path)))
    return _result(path, kb_name, records, [int(where.split()[1]) for _, _, where, _ in records])

"""Compound files with RDKit: ``.sdf``, ``.mol``, ``.mol2`` and SMILES lists (``.smi``, ``.smiles``).

One document per molecule (source_type ``compound``): name, canonical SMILES, InChI, InChIKey,
formula and descriptors in metadata, a short summary as its one section (path ``(name,)``).
A bad record inside an otherwise good file is skipped and reported: every document of the file
carries ``metadata["parse_warnings"]`` (``[{"record", "reason"}]``, at most 100) and
``metadata["skipped_records"]`` (the count). A file with no valid molecule raises IngestError.
Ingest reads the ``*_records`` forms instead (SDF, mol2, SMILES lists), record by record from the
open file so memory does not depend on its size: each bad molecule is a ``RecordFailure`` with its
record number and line, and a file of bad molecules only is no longer one error but one failure per
molecule.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, cast

from rdkit import Chem

from eagle_rag.plugin_api import IngestError, ParsedDocument, Section
from eagle_rag.plugin_api.ingest import Record, RecordFailure
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

Molecule = tuple[Chem.Mol | None, str, str, str]
"""A parsed (unsanitised) molecule or None, its name, where it is (``line 7``) and RDKit's parse error."""
Located = tuple[int, Molecule | None]
"""The line a record starts on and its molecule (None: the record is over the byte limit)."""


Good = tuple[int, str, dict[str, Any], dict[str, str]]
"""A valid molecule: its 0-based record number, name, descriptors and SD properties."""


def _check(index: int, molecule: Molecule) -> Good | str:
    """Sanitise and describe one molecule: the good one, or the problem."""
    mol, name, _, error = molecule
    if mol is None:
        return error or "unparseable molecule record"
    problem = sanitize_problem(mol)
    if problem:
        return problem
    try:  # RemoveHs sanitises again, which can still fail: an aromatic ring beside a query bond
        info = describe(without_hydrogens(mol))
    except Exception as exc:  # RDKit's KekulizeException and other sanitisation errors
        return error_message(exc)
    props = {k: one_line(str(v))[:_MAX_PROP_CHARS]
             for k, v in list(mol.GetPropsAsDict(includePrivate=False).items())[:_MAX_PROPS]}
    return index, name, info, props


def _sort(molecules: Iterable[Molecule]) -> tuple[list[Good], list[SkippedRecord]]:
    """Sanitise and describe each molecule: (the good ones, the bad ones with ``where: reason``)."""
    good: list[Good] = []
    skipped: list[SkippedRecord] = []
    for index, molecule in enumerate(molecules):
        checked = _check(index, molecule)
        if isinstance(checked, str):
            skipped.append(SkippedRecord(index, f"{molecule[2]}: {checked}"))
        else:
            good.append(checked)
    return good, skipped


def _compound(path: Path, kb_name: str, good: Good, extra: dict[str, Any]) -> ParsedDocument:
    index, name, info, props = good
    label = name or f"{path.stem} #{index}"
    metadata: dict[str, Any] = {"doc_type": "compound", "name": label, "record": index, **info,
                                "sd_properties": props, **extra}
    return ParsedDocument(document_id(path, kb_name, f"m{index}"), label, f"{path}#{index}",
                          (Section((label,), summary_text(label, info)),),
                          source_type="compound", kb_name=kb_name, metadata=metadata)


def _documents(path: Path, kb_name: str, molecules: Iterable[Molecule]) -> list[ParsedDocument]:
    """Sanitise and describe each molecule; skip and report the bad ones. Raises IngestError if none is good."""
    good, skipped = _sort(molecules)
    warnings = [s.to_dict() for s in skipped[:MAX_WARNINGS]]
    if not good:
        reasons = "; ".join(s.reason for s in skipped[:3])
        raise IngestError(f"{path.name}: no valid molecule ({len(skipped)} bad records; {reasons})",
                          {PARSE_WARNINGS: warnings})
    extra = {"skipped_records": len(skipped), PARSE_WARNINGS: warnings}
    return [_compound(path, kb_name, g, extra) for g in good]


def _records(path: Path, kb_name: str, located: Iterable[Located], limit: int) -> Iterator[Record | RecordFailure]:
    """Each molecule for ingest, one at a time: a valid one as a Record, a bad one as a RecordFailure
    (record number from 1, the line it starts on, its name when read)."""
    for index, (line, molecule) in enumerate(located):
        if molecule is None:
            yield RecordFailure(str(path), index + 1, f"the record is over {limit} bytes", line)
            continue
        checked = _check(index, molecule)
        if isinstance(checked, str):
            yield RecordFailure(str(path), index + 1, checked, line, molecule[1] or None)
        else:
            yield Record(_compound(path, kb_name, checked, {}), index + 1, line)


def _pieces(fh: IO[bytes], limit: int) -> Iterator[tuple[int, bytes, bool]]:
    """(line number from 1, bytes, whether they start the line): a line over ``limit`` bytes comes in
    pieces, so memory stays bounded."""
    line, at_start = 1, True
    while piece := fh.readline(limit + 1):
        yield line, piece, at_start
        at_start = piece.endswith(b"\n")
        line += at_start


def _blocks(fh: IO[bytes], limit: int, ends: Callable[[bytes], bool] | None = None,
            starts: Callable[[bytes], bool] | None = None) -> Iterator[tuple[int, bytes | None]]:
    """The records of a line-based multi-record file: (the line a record starts on, its bytes, or None
    when over ``limit``). With ``ends`` a record ends after a line for which it holds (SD ``$$$$``);
    with ``starts`` a record starts at such a line, and lines before the first are no record (mol2)."""
    parts: list[bytes] = []
    size, start, inside = 0, 1, starts is None
    for line, piece, at_start in _pieces(fh, limit):
        if starts is not None and at_start and starts(piece):
            if inside:
                yield start, b"".join(parts) if size <= limit else None
            parts, size, start, inside = [], 0, line, True
        if not inside:
            continue
        size += len(piece)
        if size <= limit:
            parts.append(piece)
        if ends is not None and at_start and ends(piece):
            yield start, b"".join(parts) if size <= limit else None
            parts, size, start = [], 0, line + 1
    if inside and (size > limit or any(p.strip() for p in parts)):
        yield start, b"".join(parts) if size <= limit else None


def _name(mol: Chem.Mol | None) -> str:
    if mol is None:
        return ""
    for prop in ("_Name", *_NAME_PROPS):
        if mol.HasProp(prop) and one_line(mol.GetProp(prop)):
            return one_line(mol.GetProp(prop))
    return ""


def _first(errors: list[str]) -> str:
    return errors[0] if errors else ""


def _sd_molecule(block: bytes, index: int) -> Molecule:
    """The one molecule of an SD record (its lines up to ``$$$$``)."""
    supplier = Chem.ForwardSDMolSupplier(io.BytesIO(block), sanitize=False, removeHs=False)
    with rdkit_errors() as errors:
        item = next(supplier, _END)
    mol = None if item is _END else cast("Chem.Mol | None", item)
    try:  # RDKit keeps the file's bytes in the name and SD properties; reading them decodes UTF-8
        name = _name(mol)
        if mol is not None:
            mol.GetPropsAsDict(includePrivate=False)
    except UnicodeDecodeError as exc:
        return None, "", f"record {index}", f"the molecule name or an SD property is not valid UTF-8 ({exc.reason})"
    return mol, name, f"record {index}", _first(errors)


def _sd_molecules(fh: IO[bytes], limit: int) -> Iterator[Located]:
    blocks = _blocks(fh, limit, ends=lambda line: line.strip() == b"$$$$")
    for index, (line, block) in enumerate(blocks):
        yield line, None if block is None else _sd_molecule(block, index)


def _whole(located: Iterable[Located]) -> Iterator[Molecule]:
    """The molecules of a file read whole (no record is over the limit)."""
    return (molecule for _, molecule in located if molecule is not None)


def parse_sdf(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """One document per valid molecule of an SD file; bad records are skipped and reported.

    Raises IngestError when no record is a valid molecule.
    """
    return _documents(path, kb_name, _whole(_sd_molecules(io.BytesIO(data), len(data) + 1)))


def sdf_records(path: Path, fh: IO[bytes], kb_name: str, max_record_bytes: int) -> Iterator[Record | RecordFailure]:
    """Every molecule of an SD file for ingest, record by record (records end at ``$$$$``): the
    valid ones as documents, each broken one as a RecordFailure with the line its record starts on."""
    return _records(path, kb_name, _sd_molecules(fh, max_record_bytes), max_record_bytes)


def parse_mol(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """One document for a MDL molfile. Raises IngestError when it is not a valid molecule."""
    with rdkit_errors() as errors:
        mol = Chem.MolFromMolBlock(decode_text(data, path), sanitize=False, removeHs=False)
    return _documents(path, kb_name, [(mol, _name(mol), "molecule", _first(errors))])


_MOL2 = b"@<TRIPOS>MOLECULE"


def _mol2_molecules(path: Path, fh: IO[bytes], limit: int) -> Iterator[Located]:
    """The ``@<TRIPOS>MOLECULE`` blocks of a mol2 file. Raises IngestError when there is none."""
    index = -1
    for index, (line, block) in enumerate(_blocks(fh, limit, starts=lambda line: line.startswith(_MOL2))):
        if block is None:
            yield line, None
            continue
        where = f"molecule {index}"
        try:
            text = block.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            yield line, (None, "", where, f"not valid UTF-8 ({exc.reason})")
            continue
        with rdkit_errors() as errors:
            mol = Chem.MolFromMol2Block(text, sanitize=False, removeHs=False)
        title = text.splitlines()[1] if len(text.splitlines()) > 1 else ""
        yield line, (mol, _name(mol) or one_line(title), where, _first(errors))
    if index < 0:
        raise IngestError(f"{path.name}: not a mol2 file (no {_MOL2.decode()} record)")


def parse_mol2(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """One document per ``@<TRIPOS>MOLECULE`` block of a Tripos mol2 file.

    Raises IngestError when the file is not UTF-8, has no such block or none is a valid molecule.
    """
    decode_text(data, path)
    return _documents(path, kb_name, _whole(_mol2_molecules(path, io.BytesIO(data), len(data) + 1)))


def mol2_records(path: Path, fh: IO[bytes], kb_name: str, max_record_bytes: int) -> Iterator[Record | RecordFailure]:
    """Every molecule of a mol2 file for ingest, block by block (bad ones as RecordFailures with
    their line). Raises IngestError when there is no ``@<TRIPOS>MOLECULE`` block."""
    return _records(path, kb_name, _mol2_molecules(path, fh, max_record_bytes), max_record_bytes)


def _smiles_molecules(fh: IO[bytes], limit: int) -> Iterator[Located]:
    first_data = True
    for lineno, piece, at_start in _pieces(fh, limit):
        if not at_start:
            continue  # the rest of a line over the limit, reported once
        if len(piece) > limit and not piece.endswith(b"\n"):
            yield lineno, None
            continue
        try:
            line = piece.decode("utf-8-sig" if lineno == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            yield lineno, (None, "", f"line {lineno}", f"not valid UTF-8 ({exc.reason})")
            continue
        parts = line.split(None, 1)
        if not parts or parts[0].startswith("#"):
            continue
        if first_data and parts[0].lower() in {"smiles", "smi", "canonical_smiles", "structure"}:
            first_data = False
            continue
        first_data = False
        with rdkit_errors() as errors:
            mol = Chem.MolFromSmiles(parts[0], sanitize=False)
        yield lineno, (mol, one_line(parts[1]) if len(parts) > 1 else "", f"line {lineno}", _first(errors))


def parse_smiles_list(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """One document per valid line ``SMILES [whitespace name]`` (``#`` comments and a header skipped).

    Invalid lines are skipped and reported with their line number. Raises IngestError when the file
    is not UTF-8 or no line is a valid molecule.
    """
    decode_text(data, path)
    return _documents(path, kb_name, _whole(_smiles_molecules(io.BytesIO(data), len(data) + 1)))


def smiles_records(path: Path, fh: IO[bytes], kb_name: str,
                   max_record_bytes: int) -> Iterator[Record | RecordFailure]:
    """Every line of a SMILES list for ingest, line by line (bad ones as RecordFailures with their line;
    a line that is not UTF-8 is one bad record)."""
    return _records(path, kb_name, _smiles_molecules(fh, max_record_bytes), max_record_bytes)

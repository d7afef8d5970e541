"""Biomed parsers and the format selector (the INGEST_ROUTE_SELECTORS answer for biomed formats).

:data:`ROUTES` maps a route name to a parser with the PARSE signature
``parse(path, data, kb_name) -> list[ParsedDocument]`` (raising ``IngestError`` per file);
:data:`RECORD_ROUTES` reads the multi-record ones record by record from the open file;
:func:`route_for` names the route of a file or returns None ("not mine": the core decides).
Route names carry a ``biomed_`` prefix so they cannot collide with core or other plugin routes.
"""

from __future__ import annotations

import importlib
import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from eagle_rag.plugin_api import IngestError
from eagle_rag.plugin_api.ingest import ParseResult, Record, RecordFailure
from eagle_rag_biomed.parsers.abstract import looks_like_abstract
from eagle_rag_biomed.parsers.common import PARSE_WARNINGS, Parser, SkippedRecord, sidecar_paths
from eagle_rag_biomed.parsers.safety import check_allowed_root

__all__ = ["PARSE_WARNINGS", "RECORD_ROUTES", "ROUTES", "SUFFIX_ROUTES", "Parser", "RecordStream", "SkippedRecord",
           "check_allowed_root", "collect_records", "is_image_sidecar", "read_records", "route_for"]


def _load(module: str, name: str, path: Path) -> Any:
    """``eagle_rag_biomed.parsers.<module>.<name>``, imported now; a missing dependency is a
    per-file IngestError (they are base dependencies; an environment may still lack one)."""
    try:
        return getattr(importlib.import_module(f"eagle_rag_biomed.parsers.{module}"), name)
    except ImportError as exc:
        raise IngestError(f"{path.name}: the biomed parsers need {exc.name!r}, a dependency of eagle-rag that "
                          "this environment lacks (pip install -e . installs it)") from exc


def _lazy(module: str, name: str) -> Callable[[Path, bytes, str], Any]:
    """A parser that imports ``eagle_rag_biomed.parsers.<module>`` on first use.

    Keeps the plugin cheap to import (RDKit, pydicom, nibabel and pypdf load only when a file needs
    them) and turns a missing dependency into a per-file IngestError.
    """

    def parse(path: Path, data: bytes, kb_name: str) -> Any:
        func: Callable[[Path, bytes, str], Any] = _load(module, name, path)
        return func(path, data, kb_name)

    parse.__name__ = parse.__qualname__ = name
    parse.__doc__ = f"``eagle_rag_biomed.parsers.{module}.{name}``, imported on first use."
    return parse


def _lazy_records(module: str, name: str) -> RecordStream:
    """A record stream that imports ``eagle_rag_biomed.parsers.<module>`` when it is first read."""

    def records(path: Path, fh: IO[bytes], kb_name: str, max_record_bytes: int) -> Iterator[Record | RecordFailure]:
        func: RecordStream = _load(module, name, path)
        yield from func(path, fh, kb_name, max_record_bytes)

    records.__name__ = records.__qualname__ = name
    records.__doc__ = f"``eagle_rag_biomed.parsers.{module}.{name}``, imported on first use."
    return records


ROUTES: dict[str, Parser] = {
    "biomed_pdf": _lazy("pdf", "parse_pdf"),
    "biomed_xml": _lazy("xml_dispatch", "parse_biomed_xml"),
    "biomed_spl": _lazy("spl", "parse_spl"),
    "biomed_pubmed": _lazy("pubmed", "parse_pubmed"),
    "biomed_pmc": _lazy("pubmed", "parse_pmc"),
    "biomed_abstract": _lazy("abstract", "parse_abstract"),
    "biomed_sdf": _lazy("compounds", "parse_sdf"),
    "biomed_mol": _lazy("compounds", "parse_mol"),
    "biomed_mol2": _lazy("compounds", "parse_mol2"),
    "biomed_smiles": _lazy("compounds", "parse_smiles_list"),
    "biomed_pdb": _lazy("structures", "parse_pdb"),
    "biomed_mmcif": _lazy("structures", "parse_mmcif"),
    "biomed_image": _lazy("images", "parse_image"),
    "biomed_dicom": _lazy("medical_images", "parse_dicom"),
    "biomed_nifti": _lazy("medical_images", "parse_nifti"),
}

RecordStream = Callable[[Path, IO[bytes], str, int], Iterator[Record | RecordFailure]]
"""(path, its open binary file, kb name, max record bytes) -> the file's records, one at a time."""

RECORD_ROUTES: dict[str, RecordStream] = {
    "biomed_xml": _lazy_records("xml_dispatch", "biomed_xml_records"),
    "biomed_pubmed": _lazy_records("xml_dispatch", "pubmed_set_records"),
    "biomed_pmc": _lazy_records("xml_dispatch", "pmc_set_records"),
    "biomed_sdf": _lazy_records("compounds", "sdf_records"),
    "biomed_mol2": _lazy_records("compounds", "mol2_records"),
    "biomed_smiles": _lazy_records("compounds", "smiles_records"),
}
"""The multi-record routes as ingest reads them, record by record from the open file (memory does
not depend on its size): each bad record (article, molecule, line) is a ``RecordFailure`` and the
others are kept; :data:`ROUTES` parses the whole file and stops at the first bad record."""


def read_records(route: str, path: Path, max_record_bytes: int, kb_name: str) -> Iterator[Record | RecordFailure]:
    """The records of the file at ``path`` through ``RECORD_ROUTES[route]``; IngestError when it
    cannot be opened."""
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise IngestError(f"{path.name}: cannot read ({exc.strerror})") from exc
    with fh:
        yield from RECORD_ROUTES[route](path, fh, kb_name, max_record_bytes)


def collect_records(route: str, path: Path, data: bytes, kb_name: str) -> ParseResult:
    """The records of ``data`` (the bytes of ``path``) through ``RECORD_ROUTES[route]``, collected:
    the PARSE answer of a multi-record route for a caller that has the bytes."""
    result = ParseResult([])
    for item in RECORD_ROUTES[route](path, io.BytesIO(data), kb_name, len(data) + 1):
        if isinstance(item, RecordFailure):
            result.failures.append(item)
        else:
            result.documents.append(item.document)
    return result


SUFFIX_ROUTES: dict[str, str] = {
    ".pdf": "biomed_pdf", ".xml": "biomed_xml", ".nxml": "biomed_xml",
    ".sdf": "biomed_sdf", ".sd": "biomed_sdf", ".mol": "biomed_mol", ".mol2": "biomed_mol2",
    ".smi": "biomed_smiles", ".smiles": "biomed_smiles",
    ".pdb": "biomed_pdb", ".ent": "biomed_pdb", ".cif": "biomed_mmcif", ".mmcif": "biomed_mmcif",
    ".png": "biomed_image", ".jpg": "biomed_image", ".jpeg": "biomed_image",
    ".tif": "biomed_image", ".tiff": "biomed_image",
    ".dcm": "biomed_dicom", ".dicom": "biomed_dicom", ".nii": "biomed_nifti",
}
SNIFF_BYTES = 4096


def _head(path: Path, head: bytes | None) -> bytes:
    if head is not None:
        return head[:SNIFF_BYTES]
    try:
        with path.open("rb") as fh:
            return fh.read(SNIFF_BYTES)
    except OSError:
        return b""


def is_image_sidecar(path: Path) -> bool:
    """True when ``path`` is the caption sidecar (``.txt`` / ``.json``) of an image next to it."""
    if path.suffix.lower() not in (".txt", ".json"):
        return False
    stem = path.name[: -len(path.suffix)]
    candidates = [path.with_name(stem)] + [path.with_name(stem + s) for s in (*SUFFIX_ROUTES, ".nii.gz")]
    return any(c != path and c.is_file() and path in sidecar_paths(c) and route_for(c) in
               ("biomed_image", "biomed_dicom", "biomed_nifti") for c in candidates)


def route_for(path: Path, head: bytes | None = None) -> str | None:
    """The biomed route of ``path``, or None when the file is not a biomed format.

    Decided by suffix (``.nii.gz`` included); a ``.txt`` file is an abstract when its name ends in
    ``.abstract.txt`` or its first bytes carry two known abstract labels (``BACKGROUND:``,
    ``METHODS:`` ...); a file without a suffix is DICOM when it has the ``DICM`` marker. ``head``
    (the first bytes) is read from the file when not given and needed.
    """
    name = path.name.lower()
    if name.endswith(".nii.gz"):
        return "biomed_nifti"
    suffix = path.suffix.lower()
    if suffix in SUFFIX_ROUTES:
        return SUFFIX_ROUTES[suffix]
    if name.endswith(".abstract.txt"):
        return "biomed_abstract"
    if suffix == ".txt":
        text = _head(path, head).decode("utf-8", "ignore")
        return "biomed_abstract" if looks_like_abstract(text) else None
    if not suffix and _head(path, head)[128:132] == b"DICM":
        return "biomed_dicom"
    return None

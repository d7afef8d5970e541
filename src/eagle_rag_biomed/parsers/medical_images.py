"""Medical images: DICOM (pydicom) and NIfTI (nibabel), headers only.

Neither parser decodes pixel data: DICOM is read with ``stop_before_pixels`` and NIfTI from its
header (``.nii.gz`` is inflated with a bound, see :func:`~eagle_rag_biomed.parsers.safety.gunzip_bounded`).
No patient-identifying DICOM attribute is copied into metadata.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import nibabel as nib
import numpy as np
import pydicom
from pydicom.errors import InvalidDicomError

from eagle_rag.plugin_api import IngestError, ParsedDocument
from eagle_rag_biomed.parsers.common import one_line
from eagle_rag_biomed.parsers.images import image_document
from eagle_rag_biomed.parsers.safety import MAX_DECOMPRESSED_BYTES, gunzip_bounded

_DICOM_FIELDS = {"Modality": "modality", "BodyPartExamined": "body_part",
                 "StudyDescription": "study_description", "SeriesDescription": "series_description",
                 "Manufacturer": "manufacturer",
                 "SOPClassUID": "sop_class_uid", "PhotometricInterpretation": "photometric"}
_NIFTI_HEADER = 544  # NIfTI-2 header (540) + extension flag; NIfTI-1 needs 348


def parse_dicom(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """One ``dicom`` document: modality, body part, study/series description, size and spacing.

    Raises IngestError when the bytes are not DICOM (no ``DICM`` preamble) or the header is damaged.
    """
    try:
        ds = pydicom.dcmread(io.BytesIO(data), stop_before_pixels=True)
        meta: dict[str, Any] = {key: one_line(str(ds.get(tag, "") or ""))
                                for tag, key in _DICOM_FIELDS.items()}
        rows, cols = ds.get("Rows"), ds.get("Columns")
        spacing = ds.get("PixelSpacing")
        thickness = ds.get("SliceThickness")
        frames = ds.get("NumberOfFrames")
    except InvalidDicomError as exc:
        raise IngestError(f"{path.name}: not a DICOM file ({exc})") from exc
    except Exception as exc:  # pydicom raises many types on damaged headers
        raise IngestError(f"{path.name}: damaged DICOM header ({type(exc).__name__}: {exc})") from exc
    if not meta["modality"] and rows is None:
        raise IngestError(f"{path.name}: DICOM file without Modality or image size")
    meta.update({"width": int(cols or 0), "height": int(rows or 0), "format": "DICOM",
                 "pixel_spacing": [float(v) for v in spacing] if spacing else [],
                 "slice_thickness": float(thickness) if thickness else None,
                 "frames": int(frames) if frames else 1})
    return [image_document(path, kb_name, "dicom", meta)]


def _nifti_header(path: Path, data: bytes, gz: bool) -> nib.Nifti1Header:
    """The NIfTI-1 or NIfTI-2 header at the start of the (possibly gzipped) bytes; raises IngestError."""
    head = gunzip_bounded(data, path, head_only=_NIFTI_HEADER) if gz else data[:_NIFTI_HEADER]
    if len(head) < 348:
        raise IngestError(f"{path.name}: truncated NIfTI header ({len(head)} bytes)")
    size = int.from_bytes(head[:4], "little")
    size = size if size in (348, 540) else int.from_bytes(head[:4], "big")
    header_cls = {348: nib.Nifti1Header, 540: nib.Nifti2Header}.get(size)
    if header_cls is None:
        raise IngestError(f"{path.name}: not a NIfTI file (header size field {size})")
    try:
        header = header_cls.from_fileobj(io.BytesIO(head), check=True)
    except Exception as exc:  # nibabel raises HeaderDataError and friends
        raise IngestError(f"{path.name}: invalid NIfTI header ({exc})") from exc
    return header


def parse_nifti(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """One ``nifti`` document: shape, voxel spacing, data type and units from the header.

    Raises IngestError for bytes that are not NIfTI, a truncated file (fewer voxel bytes than the
    header declares) or a ``.gz`` stream that is corrupt or inflates past the bound.
    """
    gz = data[:2] == b"\x1f\x8b"
    header = _nifti_header(path, data, gz)
    shape = [int(n) for n in header.get_data_shape()]
    needed = int(header.get_data_offset()) + int(np.prod(shape)) * header.get_data_dtype().itemsize
    # a gzipped volume may not inflate past what its header declares (plus 1 MiB of slack)
    raw = gunzip_bounded(data, path, min(MAX_DECOMPRESSED_BYTES, needed + (1 << 20))) if gz else data
    if len(raw) < needed:
        raise IngestError(f"{path.name}: truncated NIfTI file ({len(raw)} of {needed} bytes)")
    spatial, temporal = header.get_xyzt_units()
    zooms = [round(float(z), 6) for z in header.get_zooms()]
    meta: dict[str, Any] = {
        "width": shape[0] if shape else 0, "height": shape[1] if len(shape) > 1 else 0,
        "shape": shape, "voxel_spacing": zooms, "dtype": str(header.get_data_dtype()),
        "spatial_unit": spatial or "", "temporal_unit": temporal or "", "format": "NIfTI",
        "description": one_line(header["descrip"].item().decode("latin-1", "replace").strip("\x00")),
    }
    return [image_document(path, kb_name, "nifti", meta)]

"""Fixtures of the biomed parser tests: paths to the shared real data and generators of small files."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
LABELS = SHARED / "drug_labels"
SCIFACT = SHARED / "beir" / "scifact"


def shared(path: Path) -> Path:
    """``path`` when the shared data set is present, else skip the test (CI without ../shared)."""
    if not path.exists():
        pytest.skip(f"shared data not available: {path}")
    return path


def make_pdf(pages: list[list[tuple[str, str]]], title: str = "") -> bytes:
    """A real PDF written by fpdf2: each page is a list of ``("h", heading)`` / ``("p", paragraph)``."""
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.set_font("Helvetica", size=11)
    if title:
        pdf.set_title(title)
    for page in pages:
        pdf.add_page()
        for kind, text in page:
            if kind == "h":
                pdf.cell(0, 8, text, new_x="LMARGIN", new_y="NEXT")
            else:
                pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def png_bytes(size: tuple[int, int] = (8, 6), fmt: str = "PNG") -> bytes:
    """A small real image in ``fmt`` (PNG, JPEG, TIFF)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(buf, format=fmt)
    return buf.getvalue()


def dicom_bytes(modality: str = "CT", body_part: str = "CHEST", study: str = "CT chest with contrast") -> bytes:
    """A tiny valid DICOM file (4x5 pixels, explicit VR little endian) written by pydicom."""
    from pydicom.dataset import Dataset, FileMetaDataset
    from pydicom.uid import CTImageStorage, ExplicitVRLittleEndian, generate_uid

    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = CTImageStorage
    meta.MediaStorageSOPInstanceUID = generate_uid()
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds = Dataset()
    ds.file_meta = meta
    ds.SOPClassUID = CTImageStorage
    ds.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    ds.PatientName = "Doe^Jane"
    ds.PatientID = "SECRET-123"
    ds.Modality = modality
    ds.BodyPartExamined = body_part
    ds.StudyDescription = study
    ds.Rows, ds.Columns = 4, 5
    ds.SamplesPerPixel = 1
    ds.PhotometricInterpretation = "MONOCHROME2"
    ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 16, 12, 11, 0
    ds.PixelSpacing = [0.7, 0.7]
    ds.SliceThickness = 2.5
    ds.PixelData = np.arange(20, dtype=np.uint16).tobytes()
    buf = io.BytesIO()
    ds.save_as(buf, enforce_file_format=True)
    return buf.getvalue()


def nifti_file(path: Path, shape: tuple[int, ...] = (6, 5, 4), spacing: tuple[float, ...] = (0.8, 0.9, 2.0)) -> Path:
    """Write a NIfTI-1 volume with nibabel (``.nii`` or ``.nii.gz`` by the name). Returns ``path``."""
    import nibabel as nib

    affine = np.diag([*spacing, 1.0])
    image = nib.Nifti1Image(np.arange(int(np.prod(shape)), dtype=np.int16).reshape(shape), affine)
    image.header.set_xyzt_units("mm", "sec")
    image.header["descrip"] = b"T1 brain test volume"
    nib.save(image, str(path))
    return path

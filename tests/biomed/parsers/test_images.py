"""Images (PNG/JPEG/TIFF + sidecars), DICOM and NIfTI; non-images and bombs refused."""

from __future__ import annotations

import gzip
import json
import struct
import zlib
from pathlib import Path

import pytest

from eagle_rag.errors import IngestError
from eagle_rag_biomed.parsers.images import parse_image, read_sidecar
from eagle_rag_biomed.parsers.medical_images import parse_dicom, parse_nifti
from tests.biomed.conftest import dicom_bytes, nifti_file, png_bytes


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares ``width x height`` pixels but carries almost no data (a bomb's header)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00")) + chunk(b"IEND", b"")


@pytest.mark.unit
@pytest.mark.parametrize(("suffix", "fmt"), [(".png", "PNG"), (".jpg", "JPEG"), (".tiff", "TIFF")])
def test_images_with_size_and_format(tmp_path: Path, suffix: str, fmt: str) -> None:
    path = tmp_path / f"slide{suffix}"
    path.write_bytes(png_bytes((8, 6), fmt))
    (doc,) = parse_image(path, path.read_bytes(), "kb")
    meta = doc.metadata
    assert doc.source_type == "image"
    assert (meta["width"], meta["height"], meta["format"]) == (8, 6, fmt)
    assert meta["image_path"] == str(path) and meta["image_id"] == doc.document_id
    assert meta["caption"] == "" and meta["modality"] == ""
    assert doc.sections[0].path == (path.name,)
    assert doc.sections[0].text == f"Image {path.name}\nSize: 8x6"


@pytest.mark.unit
def test_caption_from_txt_and_json_sidecars(tmp_path: Path) -> None:
    png = tmp_path / "fig1.png"
    png.write_bytes(png_bytes())
    (tmp_path / "fig1.txt").write_text("H&E stained  section of\ncolon adenocarcinoma", encoding="utf-8")
    (doc,) = parse_image(png, png.read_bytes(), "kb")
    assert doc.metadata["caption"] == "H&E stained section of colon adenocarcinoma"
    assert doc.sections[0].text.startswith("H&E stained section of colon adenocarcinoma\n")
    # <name>.json wins over <stem>.txt and brings modality and body part
    (tmp_path / "fig1.png.json").write_text(json.dumps(
        {"alt_text": "Axial CT of the chest", "modality": "CT", "BodyPartExamined": "CHEST"}), encoding="utf-8")
    (doc,) = parse_image(png, png.read_bytes(), "kb")
    assert (doc.metadata["caption"], doc.metadata["modality"], doc.metadata["body_part"]) == (
        "Axial CT of the chest", "CT", "CHEST")
    assert "Modality: CT" in doc.sections[0].text and "Body part: CHEST" in doc.sections[0].text
    (tmp_path / "fig1.png.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(IngestError, match="invalid JSON"):
        read_sidecar(png)


@pytest.mark.unit
def test_a_sidecar_linking_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    png = tmp_path / "images" / "fig.png"
    png.write_bytes(png_bytes())
    secret = tmp_path / "secret.txt"
    secret.write_text("password=hunter2", encoding="utf-8")
    (tmp_path / "images" / "fig.txt").symlink_to(secret)
    with pytest.raises(IngestError, match="links outside"):
        parse_image(png, png.read_bytes(), "kb")


@pytest.mark.unit
def test_non_image_bytes_behind_png_are_refused(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="not an image"):
        parse_image(tmp_path / "fake.png", b"%PDF-1.4 this is not an image at all", "kb")
    with pytest.raises(IngestError, match="is JPEG data, not png"):
        parse_image(tmp_path / "liar.png", png_bytes(fmt="JPEG"), "kb")
    truncated = png_bytes((64, 64))[:60]
    with pytest.raises(IngestError, match="damaged image|not an image"):
        parse_image(tmp_path / "cut.png", truncated, "kb")


@pytest.mark.unit
def test_decompression_bombs_are_refused(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="refused"):
        parse_image(tmp_path / "bomb.png", _png_header_only(100_000, 100_000), "kb")
    with pytest.raises(IngestError, match="over the limit of 100"):
        parse_image(tmp_path / "big.png", png_bytes((20, 20)), "kb", max_pixels=100)


@pytest.mark.unit
def test_dicom_header_without_patient_data(tmp_path: Path) -> None:
    path = tmp_path / "ct.dcm"
    path.write_bytes(dicom_bytes())
    (doc,) = parse_dicom(path, path.read_bytes(), "kb")
    meta = doc.metadata
    assert doc.source_type == "dicom"
    assert (meta["modality"], meta["body_part"], meta["study_description"]) == ("CT", "CHEST", "CT chest with contrast")
    assert (meta["width"], meta["height"], meta["pixel_spacing"], meta["slice_thickness"]) == (5, 4, [0.7, 0.7], 2.5)
    assert "Doe" not in json.dumps(dict(meta)) and "SECRET" not in json.dumps(dict(meta))
    assert doc.sections[0].text.startswith("DICOM image ct.dcm\nModality: CT\nBody part: CHEST\n")
    with pytest.raises(IngestError, match="not a DICOM file|damaged DICOM"):
        parse_dicom(tmp_path / "x.dcm", b"\x00" * 200 + b"not dicom", "kb")


@pytest.mark.unit
@pytest.mark.parametrize("name", ["brain.nii", "brain.nii.gz"])
def test_nifti_shape_and_spacing(tmp_path: Path, name: str) -> None:
    path = nifti_file(tmp_path / name)
    (tmp_path / "brain.json").write_text(json.dumps({"Modality": "MR", "BodyPart": "BRAIN"}), encoding="utf-8")
    (doc,) = parse_nifti(path, path.read_bytes(), "kb")
    meta = doc.metadata
    assert doc.source_type == "nifti"
    assert meta["shape"] == [6, 5, 4] and meta["voxel_spacing"] == pytest.approx([0.8, 0.9, 2.0])
    assert (meta["spatial_unit"], meta["dtype"], meta["description"]) == ("mm", "int16", "T1 brain test volume")
    assert (meta["modality"], meta["body_part"]) == ("MR", "BRAIN")
    assert doc.sections[0].text == (f"NIfTI volume {name}\nModality: MR\nBody part: BRAIN\n"
                                    "Description: T1 brain test volume\nShape: 6x5x4")


@pytest.mark.unit
def test_broken_nifti_files(tmp_path: Path) -> None:
    path = nifti_file(tmp_path / "v.nii")
    data = path.read_bytes()
    with pytest.raises(IngestError, match="truncated NIfTI file"):
        parse_nifti(path, data[:-20], "kb")
    with pytest.raises(IngestError, match="truncated NIfTI header"):
        parse_nifti(path, data[:100], "kb")
    with pytest.raises(IngestError, match="not a NIfTI"):
        parse_nifti(path, b"\x01" * 600, "kb")
    gz = gzip.compress(data)
    with pytest.raises(IngestError, match="truncated gzip|truncated NIfTI"):
        parse_nifti(tmp_path / "v.nii.gz", gz[: len(gz) - 30], "kb")
    padded = gzip.compress(data + b"\x00" * (3 << 20))  # inflates far past what the header declares
    with pytest.raises(IngestError, match="decompression bomb"):
        parse_nifti(tmp_path / "v.nii.gz", padded, "kb")

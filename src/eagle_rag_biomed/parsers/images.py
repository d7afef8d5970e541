"""Raster images (PNG, JPEG, TIFF) with Pillow, captioned from a sidecar file.

The bytes are checked with ``Image.verify()`` and the declared size against
:data:`~eagle_rag_biomed.parsers.safety.MAX_IMAGE_PIXELS` before any pixel is decoded. The caption
comes from ``<name>.txt`` / ``<stem>.txt`` or ``<name>.json`` / ``<stem>.json`` (keys ``caption``,
``alt``, ``alt_text``, ``modality``, ``body_part``, ...) next to the image, or is empty. One document
with metadata ``{image_path, image_id, modality, body_part, width, height, format, mode, caption}``
(plus ``description``, ``camera`` and ``taken`` from the EXIF block or the PNG text chunks) and one
summary section (caption, modality, body part, DICOM study and series, descriptions, size) so the
image is indexed by text, with or without a vision model.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from eagle_rag.plugin_api import IngestError, ParsedDocument, Section
from eagle_rag_biomed.parsers.common import document_id, one_line, sidecar_paths
from eagle_rag_biomed.parsers.safety import MAX_IMAGE_PIXELS, check_pixels

SIDECAR_MAX_BYTES = 256 * 1024
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".tif", ".tiff"})
_FORMATS = {".png": {"PNG"}, ".jpg": {"JPEG", "MPO"}, ".jpeg": {"JPEG", "MPO"}, ".tif": {"TIFF"},
            ".tiff": {"TIFF"}}
_CAPTION_KEYS = ("caption", "alt_text", "alt", "description", "title")
_EXIF_TAGS = {270: "description", 271: "make", 272: "model", 306: "taken"}
"""EXIF tags read into the metadata: ImageDescription, Make, Model, DateTime."""
_PNG_TEXT_KEYS = ("Description", "Title", "Comment")
_FIELD_KEYS = {"modality": ("modality", "Modality"),
               "body_part": ("body_part", "BodyPart", "BodyPartExamined"),
               "parent_section": ("parent_section", "section"), "stain": ("stain",)}


def read_sidecar(path: Path) -> dict[str, Any]:
    """Caption and fields for the image at ``path`` from its sidecar, or ``{}`` when there is none.

    Returns ``{"caption": str, "modality": str, ...}`` plus ``"sidecar"`` (its file name). Raises
    IngestError for a sidecar that is a link out of the image's folder, too large, not UTF-8, or
    invalid JSON.
    """
    for candidate in sidecar_paths(path):
        if not candidate.is_file():
            continue
        where = f"{path.name}: caption sidecar {candidate.name}"
        if candidate.resolve().parent != path.resolve().parent:
            raise IngestError(f"{where} links outside the image's folder")
        if candidate.stat().st_size > SIDECAR_MAX_BYTES:
            raise IngestError(f"{where} is over {SIDECAR_MAX_BYTES} bytes")
        try:
            text = candidate.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise IngestError(f"{where} cannot be read ({exc})") from exc
        if candidate.suffix == ".txt":
            return {"caption": one_line(text), "sidecar": candidate.name}
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise IngestError(f"{where} is invalid JSON ({exc.msg})") from exc
        if not isinstance(obj, dict):
            raise IngestError(f"{where} must be a JSON object")
        caption = next((obj[k] for k in _CAPTION_KEYS if obj.get(k)), "")
        out: dict[str, Any] = {"sidecar": candidate.name, "caption": one_line(str(caption))}
        for field, keys in _FIELD_KEYS.items():
            value = next((obj[k] for k in keys if obj.get(k)), "")
            if value:
                out[field] = one_line(str(value))
        return out
    return {}


def summary(kind: str, name: str, meta: dict[str, Any]) -> str:
    """The indexable text of an image document: caption, modality, body part and size."""
    lines = [meta.get("caption") or f"{kind} {name}"]
    for label, key in (("Modality", "modality"), ("Body part", "body_part"), ("Study", "study_description"),
                       ("Series", "series_description"), ("Description", "description"),
                       ("Camera", "camera"), ("Taken", "taken")):
        if meta.get(key):
            lines.append(f"{label}: {meta[key]}")
    if meta.get("shape"):
        lines.append("Shape: " + "x".join(str(n) for n in meta["shape"]))
    elif meta.get("width") and meta.get("height"):
        lines.append(f"Size: {meta['width']}x{meta['height']}")
    return "\n".join(lines)


def embedded_text(probe: Image.Image) -> dict[str, str]:
    """Description, camera and date from the EXIF block, or the PNG text chunks; ``{}`` when none."""
    out: dict[str, str] = {}
    try:
        exif = probe.getexif()
    except Exception:  # noqa: BLE001 - a damaged EXIF block only loses these fields
        exif = {}  # type: ignore[assignment]
    for tag, key in _EXIF_TAGS.items():
        value = exif.get(tag)
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if value and str(value).strip("\x00 "):
            out[key] = one_line(str(value).strip("\x00 "))[:500]
    if not out.get("description"):
        text = next((str(probe.info[k]) for k in _PNG_TEXT_KEYS if isinstance(probe.info.get(k), str)), "")
        if text.strip():
            out["description"] = one_line(text)[:500]
    camera = " ".join(v for v in (out.pop("make", ""), out.pop("model", "")) if v)
    if camera:
        out["camera"] = camera
    return out


def image_document(path: Path, kb_name: str, source_type: str, meta: dict[str, Any]) -> ParsedDocument:
    """The one document of an image file, with the sidecar fields merged over ``meta``."""
    merged = {"image_path": str(path), "image_id": document_id(path, kb_name), "modality": "",
              "body_part": "", "caption": "", **meta}
    merged.update({k: v for k, v in read_sidecar(path).items() if v})
    kind = {"image": "Image", "dicom": "DICOM image", "nifti": "NIfTI volume"}.get(source_type, "Image")
    return ParsedDocument(document_id(path, kb_name), merged["caption"][:120] or path.name, str(path),
                          (Section((path.name,), summary(kind, path.name, merged)),),
                          source_type=source_type, kb_name=kb_name, metadata=merged)


def parse_image(path: Path, data: bytes, kb_name: str,
                max_pixels: int = MAX_IMAGE_PIXELS) -> list[ParsedDocument]:
    """One image document for PNG / JPEG / TIFF bytes.

    Raises IngestError when the bytes are not an image, not the format the suffix says, damaged
    (``verify()`` fails), or larger than ``max_pixels`` (a decompression bomb).
    """
    try:
        # open() reads only the header; the size check runs before verify() or any decoding
        with Image.open(io.BytesIO(data)) as probe:
            fmt, size, mode = probe.format or "", probe.size, probe.mode
            check_pixels(size[0], size[1], path, max_pixels)
            probe.verify()
        with Image.open(io.BytesIO(data)) as image:  # verify() leaves its image unusable: open again
            embedded = embedded_text(image)
    except IngestError:
        raise
    except (UnidentifiedImageError, Image.DecompressionBombError) as exc:
        reason = "not an image" if isinstance(exc, UnidentifiedImageError) else f"refused: {exc}"
        raise IngestError(f"{path.name}: {reason}") from exc
    except Exception as exc:  # Pillow raises OSError, SyntaxError, struct.error ... on damaged files
        raise IngestError(f"{path.name}: damaged image ({type(exc).__name__}: {exc})") from exc
    expected = _FORMATS.get(path.suffix.lower())
    if expected and fmt not in expected:
        raise IngestError(f"{path.name}: the file is {fmt or 'unknown'} data, not {path.suffix.lower()[1:]}")
    meta = {"width": size[0], "height": size[1], "format": fmt, "mode": mode, **embedded}
    return [image_document(path, kb_name, "image", meta)]

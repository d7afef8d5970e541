"""Image encoders of the visual labels: open_clip or transformers (optional extras) and a hash stand-in.

Every encoder here takes the *file bytes* of an image (PNG, JPEG, TIFF, DICOM or NIfTI; see
:func:`decode_image`) and returns L2-normalised vectors fitted to the label's dimension
(:func:`eagle_rag.encoders.fit_to_dim`). ``open_clip`` and ``transformers`` are imported inside the
functions, so importing this module needs neither. The open_clip path (BiomedCLIP and other CLIP
checkpoints) also embeds text with the CLIP text tower, in the same space as the images; the
transformers path has a text tower only for CLIP-like models (``get_text_features``).
"""

from __future__ import annotations

import hashlib
import io
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

import numpy as np

from eagle_rag.plugin_api import EncoderLoadError, Vector
from eagle_rag.plugin_api.encoders import DeterministicEncoder, fit_to_dim

OPENCLIP_ARCH_ENV = "EAGLE_BIOMED_OPENCLIP_ARCH"
OPENCLIP_PRETRAINED_ENV = "EAGLE_BIOMED_OPENCLIP_PRETRAINED"
_NIFTI_SIZES = {348, 540}  # the header-size field of NIfTI-1 and NIfTI-2
VISION_HINT = "pip install open-clip-torch (BiomedCLIP / CLIP) or 'eagle-rag[transformers]' (HF vision models)"


def _to_uint8(array: np.ndarray) -> np.ndarray:
    """Min-max scale any numeric array to 0..255 (a constant array becomes zeros)."""
    data = np.asarray(array, dtype=np.float64)
    low, high = float(np.nanmin(data)), float(np.nanmax(data))
    scaled = (data - low) / (high - low) if high > low else np.zeros_like(data)
    return np.asarray(np.nan_to_num(scaled) * 255.0, dtype=np.uint8)


def decode_image(data: bytes) -> Any:
    """An RGB ``PIL.Image`` from image file bytes.

    DICOM: the first frame, min-max windowed to 8 bits (needs pydicom; compressed transfer syntaxes
    need their pixel handlers). NIfTI (``.nii`` or gzipped, inflated with the parsers' bound): the
    middle slice of the last spatial axis. Anything else is opened with Pillow. Raises ValueError
    when the bytes cannot be decoded.
    """
    from PIL import Image

    try:
        if data[128:132] == b"DICM":
            import pydicom

            pixels = np.asarray(pydicom.dcmread(io.BytesIO(data)).pixel_array)
            if pixels.ndim == 3 and pixels.shape[-1] not in (3, 4):
                pixels = pixels[0]
            return Image.fromarray(_to_uint8(pixels)).convert("RGB")
        if data[:2] == b"\x1f\x8b" or _NIFTI_SIZES & {int.from_bytes(data[:4], "little"),
                                                      int.from_bytes(data[:4], "big")}:
            import nibabel as nib

            from eagle_rag_biomed.parsers.safety import gunzip_bounded

            raw = gunzip_bounded(data, Path("image.nii.gz")) if data[:2] == b"\x1f\x8b" else data
            volume = np.asarray(nib.Nifti1Image.from_bytes(raw).dataobj)
            while volume.ndim > 3:
                volume = volume[..., 0]
            plane = volume[..., volume.shape[-1] // 2] if volume.ndim == 3 else volume
            return Image.fromarray(_to_uint8(plane)).convert("RGB")
        with Image.open(io.BytesIO(data)) as image:
            return image.convert("RGB")
    except Exception as exc:  # every decoder raises its own types on bad input
        raise ValueError(f"cannot decode image bytes ({type(exc).__name__}: {exc})") from exc


def _bytes_vector(data: bytes, dim: int) -> Vector:
    """A unit vector from SHA-256 of ``data`` in counter mode (same bytes, same vector)."""
    digest = hashlib.sha256(data).digest()
    blocks = [hashlib.sha256(digest + i.to_bytes(4, "little")).digest() for i in range((dim * 4 + 31) // 32)]
    raw = np.frombuffer(b"".join(blocks)[: dim * 4], dtype="<i4").astype(np.float64)
    return list((raw / np.linalg.norm(raw)).tolist())


class DeterministicImageEncoder:
    """Hash stand-in for a visual label: image bytes -> SHA-256 vector, texts -> hashed tokens. NOT semantic."""

    semantic = False

    def __init__(self, dim: int, name: str) -> None:
        self.dim, self.name = dim, name
        self.model_info = f"deterministic SHA-256 image-bytes hash ({dim}-d), NOT semantic"
        self._text = DeterministicEncoder(dim, name=name)

    def encode_images(self, images: Sequence[bytes]) -> list[Vector]:
        """One vector per image file; identical bytes give identical vectors."""
        return [_bytes_vector(bytes(b), self.dim) for b in images]

    def encode_queries(self, texts: Sequence[str]) -> list[Vector]:
        return self._text.encode_queries(texts)

    def encode_passages(self, texts: Sequence[str]) -> list[Vector]:
        return self._text.encode_passages(texts)


def prefer_open_clip(label: str, model_ref: str) -> bool:
    """True for medimageinsight (BiomedCLIP) and any model reference that names a CLIP model."""
    ref = model_ref.lower()
    return label == "medimageinsight" or "biomedclip" in ref or "clip" in ref


class _VisionBase:
    """Lazy, thread-safe loading shared by the two native vision encoders."""

    semantic = True

    def __init__(self, model_ref: str, dim: int, name: str, device: str | None = None) -> None:
        self.model_ref, self.dim, self.name = model_ref, dim, name
        self.device = device or "cpu"
        self.model_info = model_ref
        self._model: Any = None
        self._lock = threading.Lock()

    def _build(self) -> None:
        raise NotImplementedError

    def load(self) -> Self:
        """Load the model now (idempotent). Raises EncoderLoadError with the reason."""
        if self._model is None:
            with self._lock:
                if self._model is None:
                    try:
                        self._build()
                    except EncoderLoadError:
                        raise
                    except Exception as exc:
                        raise EncoderLoadError(f"visual encoder {self.name!r} could not load {self.model_ref!r}: "
                                               f"{type(exc).__name__}: {str(exc)[:400]} ({VISION_HINT})") from exc
        return self

    def _features(self, images: list[Any]) -> Any:
        raise NotImplementedError

    def _text_features(self, texts: list[str]) -> Any:
        raise NotImplementedError

    def encode_images(self, images: Sequence[bytes]) -> list[Vector]:
        """Embed image file bytes (see :func:`decode_image`); unit vectors of ``dim``."""
        self.load()
        if not images:
            return []
        import torch

        with torch.inference_mode():
            out = self._features([decode_image(bytes(b)) for b in images])
        return fit_to_dim(out.float().cpu().numpy(), self.dim).tolist()  # type: ignore[no-any-return]

    def encode_queries(self, texts: Sequence[str]) -> list[Vector]:
        """Embed texts with the text tower (cross-modal text -> image search)."""
        self.load()
        import torch

        with torch.inference_mode():
            out = self._text_features(list(texts))
        return fit_to_dim(out.float().cpu().numpy(), self.dim).tolist()  # type: ignore[no-any-return]

    def encode_passages(self, texts: Sequence[str]) -> list[Vector]:
        return self.encode_queries(texts)


class OpenClipImageEncoder(_VisionBase):
    """open_clip: ``hf-hub:<id>`` for hub ids; a local ``.bin``/``.pt`` with ``EAGLE_BIOMED_OPENCLIP_ARCH``
    (default ViT-B-16) and ``EAGLE_BIOMED_OPENCLIP_PRETRAINED`` (default openai) otherwise."""

    def _build(self) -> None:
        try:
            import open_clip
        except ImportError as exc:
            raise EncoderLoadError(f"visual encoder {self.name!r}: open_clip is not installed ({VISION_HINT})") from exc
        ref = self.model_ref
        if os.path.isfile(ref):
            arch = os.environ.get(OPENCLIP_ARCH_ENV, "ViT-B-16")
            model, _, preprocess = open_clip.create_model_and_transforms(arch, pretrained=ref)
            self._tokenizer = open_clip.get_tokenizer(arch)
        else:
            hub = ref if ref.startswith("hf-hub:") else f"hf-hub:{ref}"
            model, preprocess = open_clip.create_model_from_pretrained(hub)
            self._tokenizer = open_clip.get_tokenizer(hub)
        self._preprocess = preprocess
        self._model = model.eval().to(self.device)
        self.model_info = f"open_clip:{ref} (device={self.device})"

    def _features(self, images: list[Any]) -> Any:
        import torch

        batch = torch.stack([self._preprocess(image) for image in images])
        return self._model.encode_image(batch.to(self.device))

    def _text_features(self, texts: list[str]) -> Any:
        return self._model.encode_text(self._tokenizer(texts).to(self.device))


class HFImageEncoder(_VisionBase):
    """transformers: ``AutoImageProcessor`` + ``AutoModel``; ``get_image_features`` when the model has it,
    else ``image_embeds``, ``pooler_output`` or the mean of ``last_hidden_state``."""

    def _build(self) -> None:
        try:
            import transformers
        except ImportError as exc:
            raise EncoderLoadError(f"visual encoder {self.name!r}: transformers is not installed "
                                   f"({VISION_HINT})") from exc
        self._processor = transformers.AutoImageProcessor.from_pretrained(self.model_ref)
        model = transformers.AutoModel.from_pretrained(self.model_ref)
        self._tokenizer: Any = None
        if hasattr(model, "get_text_features"):
            self._tokenizer = transformers.AutoTokenizer.from_pretrained(self.model_ref)
        self._model = model.eval().to(self.device)
        self.model_info = f"hf-vision:{self.model_ref} ({type(model).__name__}, device={self.device})"

    def _features(self, images: list[Any]) -> Any:
        inputs = self._processor(images=images, return_tensors="pt").to(self.device)
        if hasattr(self._model, "get_image_features"):
            return self._model.get_image_features(**inputs)
        out = self._model(**inputs)
        for key in ("image_embeds", "pooler_output"):
            value = getattr(out, key, None)
            if value is not None:
                return value
        return out.last_hidden_state.mean(dim=1)

    def _text_features(self, texts: list[str]) -> Any:
        if self._tokenizer is None:
            raise ValueError(f"visual encoder {self.name!r} ({self.model_ref}) has no text tower: "
                             "image -> image search only")
        inputs = self._tokenizer(texts, padding=True, truncation=True, return_tensors="pt").to(self.device)
        return self._model.get_text_features(**inputs)


def load_native_visual_encoder(label: str, model_ref: str, dim: int) -> OpenClipImageEncoder | HFImageEncoder:
    """Load the vision model of ``label`` from ``model_ref`` (open_clip first for CLIP-like models).

    Raises EncoderLoadError (never falls back to another visual model).
    """
    if prefer_open_clip(label, model_ref):
        try:
            return OpenClipImageEncoder(model_ref, dim, label).load()
        except EncoderLoadError as exc:
            if not (os.path.isdir(model_ref) and os.path.isfile(os.path.join(model_ref, "config.json"))):
                raise exc
    return HFImageEncoder(model_ref, dim, label).load()

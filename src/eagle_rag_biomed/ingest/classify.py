"""CLASSIFY_CHUNK and CLASSIFY_VISUAL of the biomed plugin (docs/biomed.md, "Classifiers").

:class:`BiomedTextClassifier`, in order:

1. SMILES / InChI in the text, or a compound document -> ``eagle_chemical`` / molformer / chemical, 0.7;
2. the TDR profile ``general`` -> the core ``eagle_text`` / bge-small / text (TDR confidence, default 0.6);
3. otherwise (biomedical) -> ``eagle_text_biomed`` / pubmedbert / biomed_text (TDR confidence, default 0.75),
   plus ``eagle_text_medcpt`` / medcpt-article when the ``medcpt_index`` option is on.

All text decisions but the MedCPT copy share ``exclusive_group="biomed_text"``: a chunk is written to
exactly one of eagle_chemical, eagle_text_biomed and eagle_text. Text that is mostly CJK is left to
the core (its multilingual collection): the domain encoders are English.

:class:`BiomedImageClassifier` routes image chunks on caption, alt text, content summary, parent
section, modality and file extension (first rule that fires): radiology -> ``eagle_medical_radiology``
(0.8); pathology -> ``eagle_medical_pathology`` (0.8); chemical image or .mol/.sdf/.pdb ->
``eagle_chemical`` (0.75); .dcm/.nii/.nii.gz -> radiology (0.85); else the core ``eagle_visual``
(0.5). Only the fallback reaches the general visual model. :func:`image_decisions` adds the image's text
record first: its summary (caption, alt text, EXIF, DICOM and NIfTI header fields) goes to
``eagle_text_biomed`` / pubmedbert as chunk type ``image_metadata``, for every image; the visual
decision follows unless the chunk's ``vision`` is ``none`` (its visual label has no model).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

from eagle_rag.plugin_api import Chunk, ChunkClassification
from eagle_rag.plugin_api.text import cjk_ratio
from eagle_rag_biomed.names import Collection, EncoderLabel
from eagle_rag_biomed.options import BiomedOptions

TEXT_GROUP = "biomed_text"
VISUAL_GROUP = "biomed_visual"
SMILES_RE = re.compile(
    r"InChI=|\bSMILES\b|C\(=O\)|\[(?:C|N|O|S|P)@{1,2}H?\]|\[(?:nH|NH\d?\+?|O-|N\+|Na\+|Cl-)\]"
    r"|(?<![A-Za-z])(?:c1cc|C1CC|C1=CC|c1ccc)[A-Za-z0-9()=#@+\-\[\]\\/]{4,}")
RADIOLOGY_RE = re.compile(r"\b(?:(?-i:CT|MRI?|PET|CXR)|radiograph\w*|x-?ray|ultrasound|sonograph\w*|mammogra\w*|"
                          r"computed tomography|magnetic resonance|angiogra\w*|fluoroscop\w*|T1-weighted|"
                          r"T2-weighted|FLAIR)\b", re.IGNORECASE)
PATHOLOGY_RE = re.compile(r"H&E|\b(?:hematoxylin|haematoxylin|eosin|biops(?:y|ies)|dysplasia|(?-i:IHC)|"
                          r"immunohistochem\w*|histolog\w*|histopatholog\w*|whole[- ]slide|cytolog\w*|"
                          r"pathology slide)\b", re.IGNORECASE)
CHEMICAL_IMAGE_RE = re.compile(r"\b(?:chemical structure|structural formula|molecular structure|skeletal formula|"
                               r"structure diagram|SMILES|ball-and-stick|molecule rendering)\b", re.IGNORECASE)
RADIOLOGY_MODALITIES = frozenset({"ct", "mr", "mri", "us", "ultrasound", "radiology", "cr", "dx", "pt", "xa",
                                  "mg", "rf", "nm", "pet"})
PATHOLOGY_MODALITIES = frozenset({"pathology", "histology", "he", "sm", "gm", "microscopy"})
NO_VISION = "none"
"""``metadata["vision"]`` of an image whose visual label has no model: only its text record is written."""
IMAGE_TEXT_TYPE = "image_metadata"
CHEMICAL_SUFFIXES = (".mol", ".sdf", ".pdb")
MEDICAL_VOLUME_SUFFIXES = (".dcm", ".dicom", ".nii", ".nii.gz")


@dataclass(frozen=True)
class BiomedTextClassifier:
    """Routes one text chunk (see the module docstring). Reads the TDR keys of ``chunk.metadata``."""

    options: BiomedOptions
    cjk_threshold: float = 0.3

    def classify(self, chunk: Chunk) -> list[ChunkClassification] | None:
        """The decisions for ``chunk``; None for mostly-CJK text (the core decides)."""
        meta = chunk.metadata
        if meta.get("biomed_doc_type") == "compound" or chunk.source_type == "compound" or SMILES_RE.search(chunk.text):
            return [ChunkClassification(Collection.CHEMICAL, EncoderLabel.MOLFORMER, "chemical", TEXT_GROUP,
                                        "smiles_override", 0.7)]
        if cjk_ratio(chunk.text) > self.cjk_threshold:
            return None
        profile = str(meta.get("biomed_text_profile") or self.options.doc_semantic_router.ambiguous_default)
        confidence = meta.get("biomed_text_profile_confidence")
        if profile == "general":
            conf = float(confidence) if confidence is not None else self.options.general_confidence
            return [ChunkClassification(Collection.CORE_TEXT, "bge-small", "text", TEXT_GROUP, "tdr_general", conf)]
        conf = float(confidence) if confidence is not None else self.options.biomedical_confidence
        out = [ChunkClassification(Collection.TEXT_BIOMED, EncoderLabel.PUBMEDBERT, "biomed_text", TEXT_GROUP,
                                   "tdr_biomedical", conf)]
        if self.options.medcpt_index:
            out.append(ChunkClassification(Collection.TEXT_MEDCPT, "medcpt-article", "biomed_text", "biomed_medcpt",
                                           "medcpt_index", conf))
        return out


def _suffix(path: str) -> str:
    name = PurePath(path).name.lower()
    return ".nii.gz" if name.endswith(".nii.gz") else PurePath(name).suffix


class BiomedImageClassifier:
    """Routes one image chunk to a medical image collection, the chemical one, or the core ``eagle_visual``."""

    def classify(self, chunk: Chunk) -> ChunkClassification:
        """The decision for ``chunk`` (never None: the fallback is the core visual collection)."""
        meta = chunk.metadata
        text = " ".join(str(meta.get(k) or "") for k in ("caption", "alt_text", "content_summary", "parent_section",
                                                           "study_description", "series_description"))
        text = f"{text} {chunk.text}"
        modality = str(meta.get("modality") or "").strip().lower()
        suffix = _suffix(str(meta.get("image_path") or chunk.metadata.get("document_name") or ""))

        def decide(collection: str, encoder: str, rule: str, confidence: float, kind: str = "medical_image") -> (
                ChunkClassification):
            return ChunkClassification(collection, encoder, kind, VISUAL_GROUP, rule, confidence)

        if modality in RADIOLOGY_MODALITIES or RADIOLOGY_RE.search(text):
            return decide(Collection.RADIOLOGY, "medimageinsight", "radiology", 0.8)
        if modality in PATHOLOGY_MODALITIES or PATHOLOGY_RE.search(text):
            return decide(Collection.PATHOLOGY, "uni2", "pathology", 0.8)
        if CHEMICAL_IMAGE_RE.search(text) or suffix in CHEMICAL_SUFFIXES:
            return decide(Collection.CHEMICAL, "molformer", "chemical_image", 0.75, "chemical")
        if suffix in MEDICAL_VOLUME_SUFFIXES:
            return decide(Collection.RADIOLOGY, "medimageinsight", "medical_volume_extension", 0.85)
        return decide(Collection.CORE_VISUAL, "general-visual", "general_image_fallback", 0.5, "image")


def image_decisions(chunk: Chunk, options: BiomedOptions) -> list[ChunkClassification]:
    """The text record of an image, then its visual decision unless ``metadata["vision"]`` is ``none``."""
    text = ChunkClassification(Collection.TEXT_BIOMED, EncoderLabel.PUBMEDBERT, IMAGE_TEXT_TYPE, TEXT_GROUP,
                               "image_metadata", options.biomedical_confidence)
    if chunk.metadata.get("vision") == NO_VISION:
        return [text]
    return [text, BiomedImageClassifier().classify(chunk)]

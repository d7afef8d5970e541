"""The seven domain encoder labels (plus ``general-visual``), registered with the core registry.

=================  ========  ===  ==================================================  ==================================
label              modality  dim  reference checkpoint                                override (env var)
=================  ========  ===  ==================================================  ==================================
pubmedbert         text      768  microsoft/BiomedNLP-PubMedBERT-base-uncased-abs...  EAGLE_BIOMED_PUBMEDBERT_MODEL
molformer          text      768  seyonec/ChemBERTa-zinc-base-v1                      EAGLE_BIOMED_MOLFORMER_MODEL
medcpt-query       text      768  ncbi/MedCPT-Query-Encoder                           EAGLE_BIOMED_MEDCPT_QUERY_MODEL
medcpt-article     text      768  ncbi/MedCPT-Article-Encoder                         EAGLE_BIOMED_MEDCPT_ARTICLE_MODEL
medimageinsight    visual    1024 microsoft/BiomedCLIP-PubMedBERT_256-vit_base_...    EAGLE_BIOMED_MEDIMAGE_MODEL
uni2               visual    1536 MahmoodLab/UNI2-h                                   EAGLE_BIOMED_UNI2_MODEL
medcpt-rerank      rerank    1    ncbi/MedCPT-Cross-Encoder                           EAGLE_BIOMED_MEDCPT_RERANK_MODEL
general-visual     visual    512  (core ``eagle_visual``; none)                       EAGLE_BIOMED_GENERAL_VISUAL_MODEL
=================  ========  ===  ==================================================  ==================================

No model hub is reachable here, so a reference checkpoint is used only when configured (a hub id or a
local folder). Without one, text labels resolve to the bundled bge-small (384-d, so their
collections are 384-d) and ``medcpt-rerank`` to the bundled MiniLM cross-encoder; visual labels fail
with :class:`EncoderLoadError` unless the deterministic stand-in is allowed. Modes (option
``encoder_mode`` or ``EAGLE_BIOMED_ENCODER_MODE``): ``deterministic`` (hash vectors), ``require_native``
(fail fast), ``auto`` (native, then hash vectors only with ``EAGLE_BIOMED_ALLOW_DETERMINISTIC=1``).
Hard rule: a medical image label never falls back to the general visual model. Encoders are built
on first use of their label (a failure is remembered, so it is not retried per document).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from eagle_rag.plugin_api import CrossEncoder, EncoderLoadError, EncoderMode, Modality, TextEncoder
from eagle_rag.plugin_api.encoders import (
    BUNDLED_BGE_SMALL,
    NO_MODEL,
    DeterministicEncoder,
    EncoderFactory,
    EncoderRegistry,
    EncoderSpec,
    load_native_text_encoder,
)
from eagle_rag_biomed.encoders.cross_encoder import MedCPTReranker
from eagle_rag_biomed.encoders.vision import DeterministicImageEncoder, load_native_visual_encoder
from eagle_rag_biomed.options import ALLOW_DETERMINISTIC_ENV, BiomedOptions, allow_deterministic, encoder_mode

log = logging.getLogger(__name__)
BUNDLED_TEXT_DIM = 384


@dataclass(frozen=True)
class DomainEncoder:
    """One label: modality, native dimension, its reference checkpoint and the env var that configures it."""

    label: str
    modality: Modality
    dim: int
    checkpoint: str
    env_var: str
    role: str


DOMAIN_ENCODERS: tuple[DomainEncoder, ...] = (
    DomainEncoder("pubmedbert", Modality.TEXT, 768, "microsoft/BiomedNLP-PubMedBERT-base-uncased-abstract-fulltext",
                  "EAGLE_BIOMED_PUBMEDBERT_MODEL", "biomedical text"),
    DomainEncoder("molformer", Modality.TEXT, 768, "seyonec/ChemBERTa-zinc-base-v1",
                  "EAGLE_BIOMED_MOLFORMER_MODEL", "chemical structures (SMILES)"),
    DomainEncoder("medcpt-query", Modality.TEXT, 768, "ncbi/MedCPT-Query-Encoder",
                  "EAGLE_BIOMED_MEDCPT_QUERY_MODEL", "MedCPT queries"),
    DomainEncoder("medcpt-article", Modality.TEXT, 768, "ncbi/MedCPT-Article-Encoder",
                  "EAGLE_BIOMED_MEDCPT_ARTICLE_MODEL", "MedCPT articles"),
    DomainEncoder("medimageinsight", Modality.VISUAL, 1024, "microsoft/BiomedCLIP-PubMedBERT_256-vit_base_patch16_224",
                  "EAGLE_BIOMED_MEDIMAGE_MODEL", "radiology images (BiomedCLIP)"),
    DomainEncoder("uni2", Modality.VISUAL, 1536, "MahmoodLab/UNI2-h", "EAGLE_BIOMED_UNI2_MODEL",
                  "pathology images (UNI2, image -> image only)"),
    DomainEncoder("medcpt-rerank", Modality.RERANK, 1, "ncbi/MedCPT-Cross-Encoder",
                  "EAGLE_BIOMED_MEDCPT_RERANK_MODEL", "MedCPT cross-encoder (Tier-2 rerank)"),
)
GENERAL_VISUAL = DomainEncoder("general-visual", Modality.VISUAL, 512, "", "EAGLE_BIOMED_GENERAL_VISUAL_MODEL",
                               "general images of the core eagle_visual collection")
MEDICAL_IMAGE_LABELS = frozenset({"medimageinsight", "uni2"})
BIOMED_LABELS = frozenset(d.label for d in DOMAIN_ENCODERS)
ALL_ENCODERS = (*DOMAIN_ENCODERS, GENERAL_VISUAL)


def configured_model(defn: DomainEncoder, options: BiomedOptions, environ: Mapping[str, str]) -> str | None:
    """The model reference configured for a label (``models`` option, then env var), or None."""
    ref = options.models.get(defn.label) or environ.get(defn.env_var, "")
    return ref.strip() or None


def label_dim(defn: DomainEncoder, configured: str | None) -> int:
    """The vector dimension of a label: 384 for a text label on the bundled model, else its native one."""
    if defn.modality is Modality.TEXT and configured is None:
        return BUNDLED_TEXT_DIM
    return defn.dim


def _once(build: Callable[[], TextEncoder | CrossEncoder]) -> EncoderFactory:
    """A factory that remembers an EncoderLoadError, so a missing model is not retried per document."""
    failure: list[EncoderLoadError] = []

    def factory() -> TextEncoder | CrossEncoder:
        if failure:
            raise failure[0]
        try:
            return build()
        except EncoderLoadError as exc:
            failure.append(exc)
            raise

    return factory


def _fallback(defn: DomainEncoder, ref: str, mode: EncoderMode, allowed: bool, exc: EncoderLoadError,
              stand_in: Callable[[], TextEncoder]) -> TextEncoder:
    """Apply the mode rules after a failed native load: raise, or the hash stand-in with a WARNING."""
    if mode is EncoderMode.REQUIRE_NATIVE:
        raise EncoderLoadError(f"{exc} (encoder mode require_native)") from exc
    if not allowed:
        raise EncoderLoadError(f"{exc} (encoder mode auto: set {ALLOW_DETERMINISTIC_ENV}=1 to allow "
                               "non-semantic hash vectors)") from exc
    log.warning("ENCODER FALLBACK: %s label %r (model %r) could not be loaded: %s. Using a deterministic "
                "hash encoder because %s=1: results are NOT semantic.", defn.modality.value, defn.label,
                ref, exc, ALLOW_DETERMINISTIC_ENV)
    return stand_in()


def _text_build(defn: DomainEncoder, ref: str | None, dim: int, mode: EncoderMode, allowed: bool,
                threads: int | None, batch_size: int) -> Callable[[], TextEncoder]:
    model_ref = ref or BUNDLED_BGE_SMALL

    def build() -> TextEncoder:
        if mode is EncoderMode.DETERMINISTIC:
            return DeterministicEncoder(dim, name=defn.label)
        try:
            encoder = load_native_text_encoder(defn.label, model_ref, dim, threads=threads, batch_size=batch_size)
        except EncoderLoadError as exc:
            return _fallback(defn, model_ref, mode, allowed, exc, lambda: DeterministicEncoder(dim, name=defn.label))
        if encoder.dim != dim:
            raise EncoderLoadError(f"encoder {defn.label!r}: {model_ref} gives {encoder.dim}-d vectors, expected {dim}")
        # say which model stands behind the label (describe() and the audit read model_info)
        encoder.model_info = f"{model_ref} -> {getattr(encoder, 'model_info', type(encoder).__name__)}"  # type: ignore[attr-defined]
        return encoder

    return build


def _visual_build(defn: DomainEncoder, ref: str | None, mode: EncoderMode,
                  allowed: bool) -> Callable[[], TextEncoder]:
    def build() -> TextEncoder:
        if mode is EncoderMode.DETERMINISTIC:
            return DeterministicImageEncoder(defn.dim, defn.label)
        try:
            if ref is None:
                hint = f" (the reference model is {defn.checkpoint})" if defn.checkpoint else ""
                raise EncoderLoadError(f"visual encoder {defn.label!r}: no checkpoint configured; set "
                                       f"{defn.env_var} to a local checkpoint or hub id{hint}")
            return load_native_visual_encoder(defn.label, ref, defn.dim)
        except EncoderLoadError as exc:
            # the only stand-in is the hash encoder: never the general visual model
            return _fallback(defn, ref or "", mode, allowed, exc,
                             lambda: DeterministicImageEncoder(defn.dim, defn.label))

    return build


def _describe(defn: DomainEncoder, ref: str | None, dim: int) -> str:
    if ref is not None:
        return f"{defn.role}: configured model {ref} ({defn.env_var})"
    if defn.modality is Modality.TEXT:
        return (f"{defn.role}: bundled bge-small-en-v1.5 ({dim}-d) standing in, no checkpoint configured "
                f"(set {defn.env_var}, e.g. {defn.checkpoint})")
    if defn.modality is Modality.RERANK:
        return (f"{defn.role}: bundled ms-marco-MiniLM-L-12-v2 standing in, no checkpoint configured "
                f"(set {defn.env_var}, e.g. {defn.checkpoint})")
    return f"{defn.role}: no checkpoint configured ({defn.env_var}); fails unless deterministic vectors are allowed"


def domain_encoder_specs(options: BiomedOptions, environ: Mapping[str, str] | None = None, *,
                         threads: int | None = None, batch_size: int = 32,
                         rerank_max_passage_tokens: int | None = None) -> list[EncoderSpec]:
    """The :class:`EncoderSpec` of every label (nothing is loaded). Raises ValueError for a bad mode."""
    env = os.environ if environ is None else environ
    mode, allowed = encoder_mode(options, env), allow_deterministic(options, env)
    specs: list[EncoderSpec] = []
    for defn in ALL_ENCODERS:
        ref = configured_model(defn, options, env)
        dim = label_dim(defn, ref)
        build: Callable[[], TextEncoder | CrossEncoder]
        if defn.modality is Modality.TEXT:
            build = _text_build(defn, ref, dim, mode, allowed, threads, batch_size)
        elif defn.modality is Modality.VISUAL:
            build = _visual_build(defn, ref, mode, allowed)
        else:
            def build(defn: DomainEncoder = defn, ref: str | None = ref) -> CrossEncoder:
                return MedCPTReranker(defn.label, ref, mode, allowed, threads=threads,
                                      max_passage_tokens=rerank_max_passage_tokens)
        model_ref = ref or (BUNDLED_BGE_SMALL if defn.modality is Modality.TEXT else
                            "bundled:ms-marco-MiniLM-L-12-v2" if defn.modality is Modality.RERANK else "")
        specs.append(EncoderSpec(defn.label, defn.modality, dim, _once(build),
                                 description=_describe(defn, ref, dim), model_ref=model_ref or NO_MODEL))
    return specs


def has_domain_checkpoint(encoders: EncoderRegistry | None, label: str) -> bool:
    """True when ``label`` resolves to a configured checkpoint, not to the bundled bge-small standing in
    or to nothing (``encoders`` is the encoder registry, or None)."""
    if encoders is None or label not in encoders.labels():
        return False
    return encoders.spec(label).model_ref not in ("", NO_MODEL, BUNDLED_BGE_SMALL)


def register_encoders(registry: EncoderRegistry, options: BiomedOptions,
                      environ: Mapping[str, str] | None = None, *, threads: int | None = None,
                      batch_size: int = 32, rerank_max_passage_tokens: int | None = None) -> None:
    """Register every label of :func:`domain_encoder_specs` (ValueError if a label is already taken)."""
    for spec in domain_encoder_specs(options, environ, threads=threads, batch_size=batch_size,
                                     rerank_max_passage_tokens=rerank_max_passage_tokens):
        registry.register_encoder(spec)

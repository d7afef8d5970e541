"""Which model each encoder label uses after ``eagle-rag reindex`` (recorded in the registry).

:mod:`eagle_rag.ops.reindex` writes a :class:`EncoderVersion` under ``reindex/<label>``; every engine that
opens reads them (:meth:`eagle_rag.kernel.runtime.Runtime.load_encoder_versions`, which hands them to
:func:`apply_encoder_versions`) so a label keeps the model its collections were built with, whichever
process built them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from eagle_rag.encoders.factory import resolve_text_encoder
from eagle_rag.encoders.registry import EncoderRegistry, EncoderSpec

if TYPE_CHECKING:
    from eagle_rag.settings import Settings

STATE_PREFIX = "reindex/"
"""The registry keys of the recorded versions: ``reindex/<label>``."""


class Phase(StrEnum):
    BUILDING = "building"
    """New collections are being filled; the old ones serve."""
    SWITCHED = "switched"
    """The new collections serve; the old ones are kept for ``--rollback``."""
    FINAL = "final"
    """The new collections serve; the old ones were dropped (``--drop-old``)."""


@dataclass
class EncoderVersion:
    """What the registry records about one label's reindex (JSON under ``reindex/<label>``)."""

    label: str
    model_ref: str
    dim: int
    previous_model_ref: str
    previous_dim: int
    phase: Phase
    collections: dict[str, dict[str, str]] = field(default_factory=dict)
    """Logical name -> ``{"old": physical, "new": physical}`` (sentence companions included)."""

    def to_json(self) -> str:
        return json.dumps({**asdict(self), "phase": self.phase.value})

    @classmethod
    def from_json(cls, text: str) -> EncoderVersion:
        data = json.loads(text)
        return cls(**{**data, "phase": Phase(data["phase"])})


def _spec(settings: Settings, base: EncoderSpec, model_ref: str, dim: int) -> EncoderSpec:
    enc = settings.encoders
    label = base.label
    return EncoderSpec(label=label, modality=base.modality, dim=dim, model_ref=model_ref,
                       description=f"configured model {model_ref} (eagle-rag reindex)",
                       factory=lambda: resolve_text_encoder(label, model_ref, dim, enc.mode,
                                                            settings.allow_deterministic, threads=enc.threads or None,
                                                            batch_size=enc.batch_size))


def use_model(encoders: EncoderRegistry, settings: Settings, label: str, model_ref: str, dim: int,
              collections: list[str]) -> None:
    """Make ``label`` resolve to ``model_ref`` in this engine (``dim``-d), and its collections ``dim``-d."""
    registry = encoders
    registry.register_encoder(_spec(settings, registry.spec(label), model_ref, dim), replace=True)
    known = {p.name: p for p in registry.collections()}
    for name in collections:
        if name in known:
            registry.register_collection(replace(known[name], dim=dim), replace=True)


def apply_encoder_versions(found: list[EncoderVersion], encoders: EncoderRegistry, settings: Settings) -> None:
    """Give each reindexed label of ``found`` its recorded model (labels still building keep the old one)."""
    for version in found:
        if version.phase is not Phase.BUILDING and version.label in encoders.labels():
            use_model(encoders, settings, version.label, version.model_ref, version.dim, list(version.collections))

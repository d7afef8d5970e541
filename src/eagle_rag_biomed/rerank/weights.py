"""Tier-2 weight profiles: one per workflow, and per-profile overrides from settings.

The formula is ``final = w_ce*ce_norm + w_li*li_norm + w_prior*prior + w_entity*entity + w_sec*section
- w_xdrug_penalty*xdrug`` (:mod:`eagle_rag_biomed.rerank.tier2`). The domain weights
(:data:`BASE_TABLE`):

============ ===== ======== ===== =============== =============================================
profile      w_ce  w_entity w_sec w_xdrug_penalty  used for
============ ===== ======== ===== =============== =============================================
default      0.50  0.25     0.15  2.0             general queries (fallback)
regulatory   0.30  0.20     0.35  2.5             drug label / prescribing information queries
drug_entity  0.35  0.35     0.10  3.0             a drug named
chemical     0.25  0.40     0.10  3.0             SMILES / compound queries
combination  0.35  0.35     0.10  2.5             two or more drugs combined
============ ===== ======== ===== =============== =============================================

``w_prior`` weighs the incoming (hybrid + RRF) rank, so that the cross-encoder refines the fused
ranking instead of replacing it; ``w_li`` weighs a late-interaction (ColBERT MaxSim) score. The model
weights (:data:`MODEL_WEIGHTS`; ``w_ce`` here replaces the table's) were set on a training split
(bench/README.md and eval/biomed/RETRIEVAL.md give the measurements; docs/biomed.md, "Weight profiles"):

============ ===== ======= =====
profile      w_ce  w_prior w_li
============ ===== ======= =====
default      0.50  1.5     0.75
regulatory   0.30  0.5     0.25
drug_entity  0.50  1.0     3.0
chemical     0.25  0.5     0.0
combination  0.35  0.5     0.5
============ ===== ======= =====

Override any weight of any profile with
``plugins.options.biomed.retrieval_scoring.<profile>.<weight>`` (``general`` is an alias of ``default``;
the pseudo-profile ``all`` applies to every profile first).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

__all__ = ["DEFAULT_WEIGHTS", "PROFILE_WEIGHTS", "BASE_TABLE", "MODEL_WEIGHTS", "ProfileWeights", "weights_for"]


@dataclass(frozen=True)
class ProfileWeights:
    """The weights of one Tier-2 profile."""

    w_ce: float
    w_entity: float
    w_sec: float
    w_xdrug_penalty: float
    w_prior: float = 0.5
    w_li: float = 0.0

    @property
    def positive_total(self) -> float:
        """The highest score the formula can give (every signal at 1.0, no penalty)."""
        return self.w_ce + self.w_entity + self.w_sec + self.w_prior + self.w_li


BASE_TABLE: dict[str, tuple[float, float, float, float]] = {
    "default": (0.50, 0.25, 0.15, 2.0),
    "regulatory": (0.30, 0.20, 0.35, 2.5),
    "drug_entity": (0.35, 0.35, 0.10, 3.0),
    "chemical": (0.25, 0.40, 0.10, 3.0),
    "combination": (0.35, 0.35, 0.10, 2.5),
}
"""(w_ce, w_entity, w_sec, w_xdrug_penalty) of each profile."""
MODEL_WEIGHTS: dict[str, tuple[float, float, float]] = {
    "default": (0.50, 1.5, 0.75),
    "regulatory": (0.30, 0.5, 0.25),
    "drug_entity": (0.50, 1.0, 3.0),
    "chemical": (0.25, 0.5, 0.0),
    "combination": (0.35, 0.5, 0.5),
}
"""(w_ce, w_prior, w_li) of each profile: the weights of the model signals and the incoming rank."""
PROFILE_WEIGHTS: dict[str, ProfileWeights] = {
    name: ProfileWeights(ce, entity, sec, xdrug, w_prior=prior, w_li=li)
    for name, (_base_ce, entity, sec, xdrug) in BASE_TABLE.items()
    for ce, prior, li in [MODEL_WEIGHTS[name]]
}
DEFAULT_WEIGHTS = PROFILE_WEIGHTS["default"]
_ALIASES = {"general": "default"}
_NAMES = {f.name for f in fields(ProfileWeights)}


def _profile_name(workflow: str) -> str:
    name = _ALIASES.get(workflow, workflow)
    return name if name in PROFILE_WEIGHTS else "default"


def _overrides(raw: Any, profile: str) -> dict[str, float]:
    if not isinstance(raw, Mapping):
        raise ValueError(f"retrieval_scoring.{profile} must be a mapping of weights")
    out: dict[str, float] = {}
    for key, value in raw.items():
        if key not in _NAMES:
            raise ValueError(f"retrieval_scoring.{profile}: unknown weight {key!r}; valid: {', '.join(sorted(_NAMES))}")
        try:
            out[key] = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"retrieval_scoring.{profile}.{key}: not a number: {value!r}") from None
    return out


def weights_for(workflow: str, retrieval_scoring: Mapping[str, Any] | None = None) -> ProfileWeights:
    """The weights of a workflow's profile with the settings' overrides applied.

    ``retrieval_scoring.all`` applies to every profile first, then ``retrieval_scoring.<profile>``
    (``general`` and ``default`` name the same profile). An unknown workflow uses ``default``.
    Raises ValueError for an unknown weight name or a non-numeric value.
    """
    name = _profile_name(workflow)
    weights = PROFILE_WEIGHTS[name]
    scoring = retrieval_scoring or {}
    if "all" in scoring:
        weights = replace(weights, **_overrides(scoring["all"], "all"))
    for key, value in scoring.items():
        if key != "all" and _profile_name(key) == name and _ALIASES.get(key, key) == name:
            weights = replace(weights, **_overrides(value, key))
    return weights

"""The explanation of one hit (``explain=true``): why it matched and how its score was made."""

from __future__ import annotations

from typing import Any

from eagle_rag_datasets.search.matching import Coverage
from eagle_rag_datasets.search.ranking import PRIOR_WEIGHT, RankedHit


def explain_hit(hit: RankedHit, base: Coverage | None, engine: str, use_prior: bool) -> dict[str, Any]:
    """Tier, coverage, per-unit evidence, expansions used, engine score, prior, and the semantic
    similarity (None below the floor) with the fused RRF score of the third fusion group."""
    out: dict[str, Any] = {
        "tier": int(hit.tier),
        "tier_name": hit.tier.name.lower(),
        "match": hit.match.value,
        "coverage": round(hit.coverage, 4),
        "name_coverage": round(hit.title_coverage, 4),
        "engine": engine,
        "proximity": round(hit.proximity, 4),
        "engine_score": round(hit.score, 6),
        "prior": round(hit.prior, 4),
        "prior_factor": round(1.0 + PRIOR_WEIGHT * hit.prior, 4) if use_prior else 1.0,
        "similarity": None if hit.similarity is None else round(hit.similarity, 4),
        "fused": round(hit.fused, 6),
    }
    if base is not None:
        units = []
        for unit, found in zip(base.query.units, base.units, strict=True):
            units.append({
                "unit": unit.text,
                "required": not unit.soft,
                "weight": unit.weight,
                "found": round(found.any.get(hit.ordinal, 0.0), 4),
                "in_name": round(found.title.get(hit.ordinal, 0.0), 4),
            })
        out["units"] = units
    out.update(hit.notes)
    return out

"""The biomed plugin's warm-up (``eagle_warm_up``): the ontology matcher and the Tier-2 models.

The core's warm-up (:mod:`eagle_rag.ops.warm_up`) already ran a probe query through every stage and
embedded it with every routed query encoder; the models below run only when a pool has candidates,
so an empty or fresh index would leave them for the first real query. A model that cannot load is
logged and skipped here: the query then falls back as it always does (docs/biomed.md, "Tier-2").
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from eagle_rag.plugin_api import HookContext, hookimpl
from eagle_rag_biomed.encoders.late_interaction import get_scorer
from eagle_rag_biomed.names import NAMESPACE
from eagle_rag_biomed.ontology.umls import match_entities
from eagle_rag_biomed.options import biomed_options

__all__ = ["eagle_warm_up"]

log = logging.getLogger(__name__)
PROBE = "imatinib dose in chronic myeloid leukemia"
PASSAGE = "Imatinib 400 mg daily is the standard first-line dose in chronic-phase chronic myeloid leukemia."


def _load(name: str, run: Callable[[], object], loaded: list[str]) -> None:
    try:
        run()
    except Exception as exc:  # noqa: BLE001 - the query path falls back on the same failure
        log.warning("biomed warm-up: %s did not load (%s); the first query will try again", name, exc)
        return
    loaded.append(name)


@hookimpl
def eagle_warm_up(ctx: HookContext) -> list[str] | None:
    """Load the ontology matcher, the Tier-2 cross-encoder and the late-interaction model the options
    switch on, each run once; None outside the biomed namespace."""
    if ctx.namespace != NAMESPACE:
        return None
    opts = biomed_options(ctx.settings)
    loaded: list[str] = []
    _load("ontology matcher", lambda: match_entities(PROBE), loaded)
    tier2 = opts.stages.tier2 and opts.rerank_policy == "domain"
    if tier2 and opts.stages.cross_encoder:
        label = opts.domain_rerank_encoder
        _load(f"cross-encoder {label}",
              lambda: ctx.services.encoders.cross_encoder(label).score_pairs(PROBE, [PASSAGE]), loaded)
    if tier2 and opts.stages.late_interaction:
        scorer = get_scorer(opts.tier2.late_interaction_encoder, opts.tier2.late_interaction_tokens)
        _load(f"late interaction {scorer.name}", lambda: scorer.score_pairs(PROBE, [PASSAGE]), loaded)
    return loaded

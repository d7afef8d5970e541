"""The query side's knobs, read from ``settings.plugins.options.biomed`` (the same block as the ingest side).

The seeds' knobs (``default_dual_text_search``, ``medcpt_dual_search``, ``exploratory_search_collections``,
``collection_recall_top_k``, ``rerank_policy``, ``use_general_rerank``, ``domain_rerank_encoder``,
``retrieval_scoring``) are validated by :mod:`eagle_rag_biomed.options`; this module adds the
query-side blocks:

``stages``  switches for the ablation of the pipeline (all on by default):
            ``assemble``, ``dense_suffix``, ``tier1``, ``supplement``, ``inject``, ``tier2``,
            ``cross_encoder``, ``late_interaction``, ``chemical_branch``. ``dense_suffix`` defaults to
            ``auto``: on when the ``pubmedbert`` label has a real checkpoint, off while the bundled
            bge-small stands in for it (the suffix cost 0.012 nDCG@10 on the SciFact train split there).
``tier1``   ``pool`` (hits of a plan re-scored, default 20), ``max_chars`` (2048), ``mode``
            (``cosine``: sort by cosine as the seeds do; ``fuse``, the default: RRF of the incoming and
            cosine ranks, which scored 0.7294 against 0.7271 nDCG@10 on 300 SciFact train queries).
``tier2``   ``pool`` (candidates scored by the models, default 30), ``max_chars`` (passage cut, 2048),
            ``late_interaction_encoder`` (default ``colbert``), ``late_interaction_tokens`` (the passage
            cut of the late-interaction model, 16 to 512 tokens, default 256), ``normalise`` (how model scores enter the
            formula: ``minmax`` of the raw scores, or ``rank``: the reciprocal rank, min-max normalised).
Both tiers take ``with_name``: models read the document name before the text (as the ingest embeds it),
unless the text already starts with it. On by default in Tier-2 (809 SciFact train claims: 0.7614 ->
0.7637 nDCG@10, the name reaching the later chunks of an abstract), off in Tier-1.

Set them with a YAML settings file or one env var holding JSON, e.g.
``EAGLE_RAG_PLUGINS__OPTIONS__BIOMED='{"stages": {"tier1": false}}'``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eagle_rag.plugin_api import Settings
from eagle_rag_biomed.late_interaction import PASSAGE_TOKENS
from eagle_rag_biomed.options import PLUGIN_NAME, BiomedOptions, biomed_options


class _Block(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Stages(_Block):
    """Which query stages run (for ablations); values may be booleans or "true"/"false" strings."""

    assemble: bool = True
    dense_suffix: bool | Literal["auto"] = "auto"
    tier1: bool = True
    supplement: bool = True
    inject: bool = True
    tier2: bool = True
    cross_encoder: bool = True
    late_interaction: bool = True
    chemical_branch: bool = True


class Tier1Options(_Block):
    pool: int = Field(20, ge=1, le=500)
    max_chars: int = Field(2048, ge=64)
    with_name: bool = False
    mode: Literal["cosine", "fuse"] = "fuse"


class Tier2Options(_Block):
    pool: int = Field(30, ge=1, le=500)
    max_chars: int = Field(2048, ge=64)
    with_name: bool = True
    late_interaction_encoder: str = "colbert"
    late_interaction_tokens: int = Field(PASSAGE_TOKENS, ge=16, le=512)
    normalise: Literal["minmax", "rank"] = "minmax"


class QueryOptions(BaseModel):
    """The query-side view of the biomed options block (unknown top-level keys belong to others)."""

    model_config = ConfigDict(extra="ignore")

    stages: Stages = Field(default_factory=Stages)
    tier1: Tier1Options = Field(default_factory=Tier1Options)
    tier2: Tier2Options = Field(default_factory=Tier2Options)


class QueryOptionsError(ValueError):
    """An invalid query-side option; the message names the key."""


_CACHE: dict[int, tuple[Settings, QueryOptions]] = {}


def query_options(settings: Settings) -> QueryOptions:
    """The validated query-side options of ``settings`` (cached per settings object).

    Raises QueryOptionsError naming each bad key.
    """
    cached = _CACHE.get(id(settings))
    if cached is not None and cached[0] is settings:
        return cached[1]
    raw: dict[str, Any] = settings.plugin_options(PLUGIN_NAME)
    try:
        options = QueryOptions.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"plugins.options.biomed.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                             for e in exc.errors())
        raise QueryOptionsError(f"invalid biomed query options: {problems}") from exc
    if len(_CACHE) > 64:
        _CACHE.clear()
    _CACHE[id(settings)] = (settings, options)
    return options


def seed_options(settings: Settings) -> BiomedOptions:
    """The seeds' knobs of the biomed block (validated by :mod:`eagle_rag_biomed.options`)."""
    return biomed_options(settings)

"""The biomed plugin's options (``settings.plugins.options.biomed``): one typed model for both sides.

:func:`biomed_options` validates the block once per settings object; an invalid value or an unknown
key (at any level) raises :class:`BiomedOptionsError` naming the key. Ingest-side
knobs: ``encoder_mode``, ``allow_deterministic``, ``models``, ``medcpt_index``, the confidences and
``doc_semantic_router`` (the document router, docs/biomed.md, "The document router"). Query-side knobs:
the routing switches (``default_dual_text_search``, ``medcpt_dual_search``,
``exploratory_search_collections``, ``collection_recall_top_k``), the rerank policy
(``rerank_policy``, ``use_general_rerank``, ``domain_rerank_encoder``), the Tier-2 weight overrides
(``retrieval_scoring``) and three blocks:

``stages``  switches for ablations (all on by default): ``assemble``, ``dense_suffix``, ``tier1``,
            ``supplement``, ``inject``, ``tier2``, ``cross_encoder``, ``late_interaction``,
            ``chemical_branch``. ``dense_suffix`` defaults to ``auto``: on only when the
            ``pubmedbert`` label has a real checkpoint (docs/biomed.md, "Query expansion").
``tier1``   ``pool`` (hits of a plan re-scored, 20), ``max_chars`` (2048), ``with_name`` (off) and
            ``mode``: ``fuse`` (RRF of the incoming and cosine ranks, the default) or ``cosine``
            (sort by cosine alone).
``tier2``   ``pool`` (candidates scored by the models, 30), ``max_chars`` (2048), ``with_name`` (on:
            models read the document name before the text, as the ingest embeds it),
            ``late_interaction_encoder`` (``colbert``), ``late_interaction_tokens`` (16 to 512, 256)
            and ``normalise`` (``minmax`` of the raw model scores, or ``rank``).

The LLM of the document router is off by default (no LLM is reachable from these machines) and is
any OpenAI-compatible chat API (``base_url``, ``model``, the API key read from the environment
variable named by ``api_key_env``). Set options with a YAML settings file or one env var holding
JSON, e.g. ``EAGLE_RAG_PLUGINS__OPTIONS__BIOMED='{"stages": {"tier1": false}}'``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eagle_rag.plugin_api import EncoderMode, Settings
from eagle_rag_biomed.encoders.late_interaction import PASSAGE_TOKENS
from eagle_rag_biomed.names import PLUGIN_NAME

ENCODER_MODE_ENV = "EAGLE_BIOMED_ENCODER_MODE"
ALLOW_DETERMINISTIC_ENV = "EAGLE_BIOMED_ALLOW_DETERMINISTIC"
_TRUE = {"1", "true", "yes", "on"}
Profile = Literal["biomedical", "general"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FusionWeights(_Strict):
    """Tier-1 fusion weights: ``0.55*prototype + 0.25*umls + 0.15*imrad + 0.05*entropy``."""

    prototype: float = 0.55
    umls: float = 0.25
    imrad: float = 0.15
    entropy: float = 0.05


class FusionOptions(_Strict):
    weights: FusionWeights = Field(default_factory=FusionWeights)


class RouterLlmOptions(_Strict):
    """Tier-2 arbitration through an OpenAI-compatible ``POST {base_url}/chat/completions``."""

    enabled: bool = False
    base_url: str = ""
    model: str = ""
    api_key_env: str = "EAGLE_BIOMED_ROUTER_LLM_API_KEY"
    timeout_s: float = Field(10.0, gt=0, le=300)
    max_sketch_chars: int = Field(6000, ge=100)


class DocRouterOptions(_Strict):
    """The tiered document router (TDR) of :mod:`eagle_rag_biomed.ingest.doc_router`."""

    enabled: bool = True
    sketch_max_tokens: int = Field(2048, ge=16)
    prototype_config: str = ""
    fusion: FusionOptions = Field(default_factory=FusionOptions)
    confidence_threshold: float = -0.005
    llm_margin: float = Field(0.12, ge=0.0)
    llm: RouterLlmOptions = Field(default_factory=RouterLlmOptions)
    ambiguous_default: Profile = "general"
    """Threshold and default chosen on the labelled set (eval/biomed/doc_router/README.md)."""


class Stages(_Strict):
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


class Tier1Options(_Strict):
    pool: int = Field(20, ge=1, le=500)
    max_chars: int = Field(2048, ge=64)
    with_name: bool = False
    mode: Literal["cosine", "fuse"] = "fuse"


class Tier2Options(_Strict):
    pool: int = Field(30, ge=1, le=500)
    max_chars: int = Field(2048, ge=64)
    with_name: bool = True
    late_interaction_encoder: str = "colbert"
    late_interaction_tokens: int = Field(PASSAGE_TOKENS, ge=16, le=512)
    normalise: Literal["minmax", "rank"] = "minmax"


class BiomedOptions(BaseModel):
    """Every knob of the biomed plugin, ingest and query side (see the module docstring).

    ``encoder_mode`` / ``allow_deterministic`` left unset fall back to the environment variables
    ``EAGLE_BIOMED_ENCODER_MODE`` (default auto) and ``EAGLE_BIOMED_ALLOW_DETERMINISTIC``.
    ``models`` maps an encoder label to a model reference and wins over its environment variable.
    ``medcpt_index`` also writes biomedical text chunks to ``eagle_text_medcpt`` (article encoder).
    """

    model_config = ConfigDict(extra="forbid")

    default_dual_text_search: bool = False
    exploratory_search_collections: list[str] = Field(default_factory=list)
    use_general_rerank: bool = False
    rerank_policy: Literal["domain", "general", "none"] = "domain"
    domain_rerank_encoder: str = "medcpt-rerank"
    retrieval_scoring: dict[str, Any] = Field(default_factory=dict)
    medcpt_dual_search: bool = False
    collection_recall_top_k: int = Field(20, ge=1)
    encoder_mode: EncoderMode | None = None
    allow_deterministic: bool | None = None
    models: dict[str, str] = Field(default_factory=dict)
    medcpt_index: bool = False
    biomedical_confidence: float = Field(0.75, ge=0.0, le=1.0)
    general_confidence: float = Field(0.6, ge=0.0, le=1.0)
    doc_semantic_router: DocRouterOptions = Field(default_factory=DocRouterOptions)
    stages: Stages = Field(default_factory=Stages)
    tier1: Tier1Options = Field(default_factory=Tier1Options)
    tier2: Tier2Options = Field(default_factory=Tier2Options)


class BiomedOptionsError(ValueError):
    """The ``plugins.options.biomed`` block is invalid; the message names the key."""


def parse_options(raw: Mapping[str, Any]) -> BiomedOptions:
    """Validate a raw options block. Raises BiomedOptionsError naming each bad key."""
    try:
        return BiomedOptions.model_validate(dict(raw))
    except ValidationError as exc:
        problems = "; ".join(f"plugins.options.biomed.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                             for e in exc.errors())
        raise BiomedOptionsError(f"invalid biomed plugin options: {problems}") from exc


_CACHE: dict[int, tuple[Settings, BiomedOptions]] = {}


def biomed_options(settings: Settings) -> BiomedOptions:
    """The validated options of ``settings`` (cached per settings object)."""
    cached = _CACHE.get(id(settings))
    if cached is not None and cached[0] is settings:
        return cached[1]
    options = parse_options(settings.plugin_options(PLUGIN_NAME))
    if len(_CACHE) > 64:
        _CACHE.clear()
    _CACHE[id(settings)] = (settings, options)
    return options


def encoder_mode(options: BiomedOptions, environ: Mapping[str, str] | None = None) -> EncoderMode:
    """The option ``encoder_mode``, else ``EAGLE_BIOMED_ENCODER_MODE``, else auto (ValueError if unknown)."""
    if options.encoder_mode is not None:
        return options.encoder_mode
    env = os.environ if environ is None else environ
    raw = env.get(ENCODER_MODE_ENV, "").strip()
    return EncoderMode(EncoderMode.from_str(raw)) if raw else EncoderMode.AUTO


def allow_deterministic(options: BiomedOptions, environ: Mapping[str, str] | None = None) -> bool:
    """The option ``allow_deterministic``, else ``EAGLE_BIOMED_ALLOW_DETERMINISTIC`` in 1/true/yes/on."""
    if options.allow_deterministic is not None:
        return options.allow_deterministic
    env = os.environ if environ is None else environ
    return env.get(ALLOW_DETERMINISTIC_ENV, "").strip().lower() in _TRUE

"""The biomed plugin's options (``settings.plugins.options.biomed``): one typed model for both sides.

:func:`biomed_options` validates the block once per settings object; an invalid value or an unknown
key (at any level) raises :class:`BiomedOptionsError` naming the key (an unknown one with its nearest
valid name). The plugin declares the model with ``eagle_options_model``, so the core checks the block
when the engine starts and ``eagle-rag config show`` lists every option with its help text. Ingest-side
knobs: ``encoder_mode``, ``allow_deterministic``, ``models``, ``medcpt_index``, the confidences and
``doc_semantic_router`` (the document router, docs/biomed.md, "The document router"), each declared
``WRITES_INDEX`` so that an evaluation index written under other values is not reused. Query-side knobs:
the routing switches (``default_dual_text_search``, ``medcpt_dual_search``,
``exploratory_search_collections``, ``collection_recall_top_k``), the rerank policy
(``rerank_policy``, ``use_general_rerank``, ``domain_rerank_encoder``), the Tier-2 weight overrides
(``retrieval_scoring``) and three blocks:

``stages``  switches for ablations (all on by default): ``assemble``, ``dense_suffix``, ``tier1``,
            ``supplement``, ``inject``, ``tier2``, ``cross_encoder``, ``late_interaction``,
            ``chemical_branch``. ``dense_suffix`` defaults to ``auto``: on only when the
            ``pubmedbert`` label has a real checkpoint (docs/biomed.md, "Query expansion").
``tier1``   ``pool`` (hits of a plan re-scored, 20), ``max_chars`` (2048), ``with_name`` (off),
            ``mode``: ``fuse`` (RRF of the incoming and cosine ranks, the default) or ``cosine``
            (sort by cosine alone), and ``stored_vectors`` (on: the collection's own vectors).
``tier2``   ``pool`` (candidates scored by the models, 30), ``max_chars`` (2048), ``with_name`` (on:
            models read the document name before the text, as the ingest embeds it),
            ``late_interaction_encoder`` (``colbert``), ``late_interaction_tokens`` (16 to 512, 256),
            ``normalise`` (``minmax`` of the raw model scores, or ``rank``), ``window_chars`` (0) and
            ``cross_encoder_pool`` (20: candidates the cross-encoder reads).

The LLM of the document router is off by default (no LLM is reachable from these machines) and is
any OpenAI-compatible chat API (``base_url``, ``model``, the API key read from the environment
variable named by ``api_key_env``). Set options with a YAML settings file or one env var holding
JSON, e.g. ``EAGLE_RAG_PLUGINS__OPTIONS__BIOMED='{"stages": {"tier1": false}}'``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from eagle_rag.plugin_api import EncoderMode, PluginOptionsError, Settings
from eagle_rag.plugin_api.options import WRITES_INDEX, validate_plugin_options
from eagle_rag_biomed.encoders.late_interaction import PASSAGE_TOKENS
from eagle_rag_biomed.names import PLUGIN_NAME

ENCODER_MODE_ENV = "EAGLE_BIOMED_ENCODER_MODE"
ALLOW_DETERMINISTIC_ENV = "EAGLE_BIOMED_ALLOW_DETERMINISTIC"
_TRUE = {"1", "true", "yes", "on"}
GENERAL_TEXT_WEIGHT = 0.8
"""RRF weight of the core ``eagle_text`` plan added because it holds rows (chosen on SciFact train,
bench/README.md): its first hit weighs as much as the biomedical collection's hit of rank ``61 / w - 60``."""
Profile = Literal["biomedical", "general"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FusionWeights(_Strict):
    """Tier-1 fusion weights: ``0.55*prototype + 0.25*umls + 0.15*imrad + 0.05*entropy``."""

    prototype: float = Field(0.55, description="weight of the prototype signal (sketch cosine with the "
                             "biomedical minus the general prototype texts)")
    umls: float = Field(0.25, description="weight of the ontology-entity density of the sketch")
    imrad: float = Field(0.15, description="weight of the IMRaD sections found among the chunks")
    entropy: float = Field(0.05, description="weight of the word entropy of the sketch")


class FusionOptions(_Strict):
    weights: FusionWeights = Field(default_factory=FusionWeights)


class RouterLlmOptions(_Strict):
    """Tier-2 arbitration through an OpenAI-compatible ``POST {base_url}/chat/completions``."""

    enabled: bool = Field(False, description="ask the LLM about documents in the ambiguous band")
    base_url: str = Field("", description="OpenAI-compatible API root (POST {base_url}/chat/completions)")
    model: str = Field("", description="chat model name sent to the API")
    api_key_env: str = Field("EAGLE_BIOMED_ROUTER_LLM_API_KEY",
                             description="environment variable that holds the API key (the key is never a setting)")
    timeout_s: float = Field(10.0, gt=0, le=300, description="seconds one LLM call may take")
    max_sketch_chars: int = Field(6000, ge=100, description="the sketch sent to the LLM is cut to this many characters")


class DocRouterOptions(_Strict):
    """The tiered document router (TDR) of :mod:`eagle_rag_biomed.ingest.doc_router`."""

    enabled: bool = Field(True, description="judge each document biomedical or general before its chunks are "
                          "classified (off: every document is biomedical)")
    sketch_max_tokens: int = Field(2048, ge=16, description="size of the document sketch the router reads "
                                   "(x 4 characters)")
    prototype_config: str = Field("", description="YAML file of prototype texts; empty = the packaged ones")
    fusion: FusionOptions = Field(default_factory=FusionOptions)
    confidence_threshold: float = Field(-0.05, description="Tier-1 threshold on the fused score (chosen on the "
                                        "labelled set and SciFact abstracts, eval/biomed/doc_router/README.md)")
    llm_margin: float = Field(0.12, ge=0.0, description="half-width of the band around the threshold that "
                              "Tier 2 (the LLM, else ambiguous_default) decides")
    llm: RouterLlmOptions = Field(default_factory=RouterLlmOptions)
    ambiguous_default: Profile = Field("general", description="profile of a document in the band without an LLM "
                                       "verdict: biomedical | general (chosen with the threshold)")
    short_chars: int = Field(500, ge=0, description="a document shorter than this (characters of its text) is "
                             "too short for the Tier-1 signals: in the band it gets short_default (0: off)")
    short_default: Profile = Field("biomedical", description="profile of a short document in the band without "
                                   "an LLM verdict (a PubMed snippet, a note: bench/HISTORY.md, BioASQ)")


class Stages(_Strict):
    """Which query stages run (for ablations); values may be booleans or "true"/"false" strings."""

    assemble: bool = Field(True, description="append the canonical names of the drugs a query names")
    dense_suffix: bool | Literal["auto"] = Field("auto", description="expand the dense query with ontology "
                                                 "synonyms: true | false | auto (only with a real pubmedbert "
                                                 "checkpoint)")
    tier1: bool = Field(True, description="Tier-1: entity filter and domain-encoder cosine rerank of each plan")
    supplement: bool = Field(True, description="entity-anchored extra candidates (RETRIEVE_SUPPLEMENT)")
    inject: bool = Field(True, description="put the supplement's hits into the merged list (RRF_POST_MERGE)")
    tier2: bool = Field(True, description="Tier-2: the weighted rerank of the merged candidates")
    cross_encoder: bool = Field(True, description="the cross-encoder signal of Tier-2 (mode full)")
    late_interaction: bool = Field(True, description="the late-interaction (ColBERT) signal of Tier-2 (mode full)")
    chemical_branch: bool = Field(True, description="the compound re-ordering of the chemical workflow after Tier-2")


class Tier1Options(_Strict):
    pool: int = Field(20, ge=1, le=500, description="hits of a plan re-scored by the domain encoder")
    max_chars: int = Field(2048, ge=64, description="passage characters the encoder reads")
    with_name: bool = Field(False, description="put the document name in front of the passage")
    mode: Literal["cosine", "fuse"] = Field("fuse", description="fuse: RRF of the incoming and cosine ranks | "
                                            "cosine: sort by cosine alone")
    stored_vectors: bool = Field(True, description="read each hit's vector from its collection when the "
                                 "collection's encoder is Tier-1's (what the ingest embedded: the document name, "
                                 "then the text) instead of encoding the passage at query time")


class Tier2Options(_Strict):
    pool: int = Field(30, ge=1, le=500, description="merged candidates scored by the Tier-2 models")
    max_chars: int = Field(2048, ge=64, description="passage characters the models read")
    with_name: bool = Field(True, description="the models read the document name before the text, as the "
                            "ingest embeds it")
    late_interaction_encoder: str = Field("colbert", description="encoder label of the late-interaction signal")
    late_interaction_tokens: int = Field(PASSAGE_TOKENS, ge=16, le=512,
                                         description="passage tokens the late-interaction model reads")
    normalise: Literal["minmax", "rank"] = Field("minmax", description="minmax: min-max of the raw model scores | "
                                                 "rank: their reciprocal rank")
    window_chars: int = Field(0, ge=0, description="characters of each passage the Tier-2 models read: the "
                                 "sentences around the one with most query words (0 = the whole passage)")
    cross_encoder_pool: int = Field(20, ge=1, le=500, description="candidates the cross-encoder reads: the best of "
                                    "the pool by the other signals (a pool's size or more = every candidate)")


class BiomedOptions(BaseModel):
    """Every knob of the biomed plugin, ingest and query side (see the module docstring).

    ``encoder_mode`` / ``allow_deterministic`` left unset fall back to the environment variables
    ``EAGLE_BIOMED_ENCODER_MODE`` (default auto) and ``EAGLE_BIOMED_ALLOW_DETERMINISTIC``.
    ``models`` maps an encoder label to a model reference and wins over its environment variable.
    ``medcpt_index`` also writes biomedical text chunks to ``eagle_text_medcpt`` (article encoder).
    """

    model_config = ConfigDict(extra="forbid")

    default_dual_text_search: bool = Field(False, description="also search the core eagle_text for every "
                                           "text query")
    general_text_weight: float = Field(GENERAL_TEXT_WEIGHT, gt=0, le=1, description="RRF weight of the core "
                                       "eagle_text in the merge across collections when it is searched only because "
                                       "it holds rows (the document router sent some documents there); 1 for "
                                       "default_dual_text_search (docs/biomed.md, Routing)")
    exploratory_search_collections: list[str] = Field(default_factory=list,
                                                      description="collections appended to every route")
    use_general_rerank: bool = Field(False, description="Tier-2 by the core cross-encoder (policy general) when "
                                     "rerank_policy is not set")
    rerank_policy: Literal["domain", "general", "none"] = Field(
        "domain", description="Tier-2 of a biomed request: domain (the plugin's weighted rerank) | general (the "
        "core cross-encoder) | none (merged order)")
    domain_rerank_encoder: str = Field("medcpt-rerank", description="cross-encoder label of the domain Tier-2")
    retrieval_scoring: dict[str, Any] = Field(default_factory=dict, description="Tier-2 weight overrides: "
                                              "<profile>.<weight> (docs/biomed.md, Tier-2)")
    medcpt_dual_search: bool = Field(False, description="also search eagle_text_medcpt")
    collection_recall_top_k: int = Field(20, ge=1, description="hits kept per collection plan; the "
                                         "supplement's limit")
    encoder_mode: EncoderMode | None = Field(None, description="deterministic | require_native | auto of the "
                                             "plugin's encoders; unset = env EAGLE_BIOMED_ENCODER_MODE, else auto",
                                             json_schema_extra=WRITES_INDEX)
    allow_deterministic: bool | None = Field(None, description="auto mode may fall back to hash vectors; unset = "
                                             "env EAGLE_BIOMED_ALLOW_DETERMINISTIC", json_schema_extra=WRITES_INDEX)
    models: dict[str, str] = Field(default_factory=dict, description="encoder label -> model reference (wins "
                                   "over the label's environment variable)", json_schema_extra=WRITES_INDEX)
    medcpt_index: bool = Field(False, description="also write biomedical text chunks to eagle_text_medcpt "
                               "(MedCPT article encoder)", json_schema_extra=WRITES_INDEX)
    biomedical_confidence: float = Field(0.75, ge=0.0, le=1.0, description="chunk classification confidence of "
                                         "a biomedical document when the router gives none",
                                         json_schema_extra=WRITES_INDEX)
    general_confidence: float = Field(0.6, ge=0.0, le=1.0, description="the same for a general document",
                                      json_schema_extra=WRITES_INDEX)
    doc_semantic_router: DocRouterOptions = Field(default_factory=DocRouterOptions, json_schema_extra=WRITES_INDEX)
    stages: Stages = Field(default_factory=Stages)
    tier1: Tier1Options = Field(default_factory=Tier1Options)
    tier2: Tier2Options = Field(default_factory=Tier2Options)


class BiomedOptionsError(PluginOptionsError):
    """The ``plugins.options.biomed`` block is invalid; the message names the key."""


def parse_options(raw: Mapping[str, Any]) -> BiomedOptions:
    """Validate a raw options block. Raises BiomedOptionsError naming each bad key (an unknown one with
    its nearest valid name)."""
    try:
        options = validate_plugin_options(PLUGIN_NAME, BiomedOptions, raw)
    except PluginOptionsError as exc:
        raise BiomedOptionsError(str(exc)) from exc
    assert isinstance(options, BiomedOptions)
    return options


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

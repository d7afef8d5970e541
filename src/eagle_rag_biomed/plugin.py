"""The ``biomed`` plugin module (entry point ``eagle_rag.plugins: biomed``).

* ``eagle_options_model``: the model of ``plugins.options.biomed``, which the core checks at start-up
  and ``eagle-rag config show`` lists.
* ``eagle_register``: validates ``plugins.options.biomed`` (:mod:`eagle_rag_biomed.options`), registers
  the domain encoder labels (:mod:`eagle_rag_biomed.encoders.labels`) and the collections
  (:mod:`eagle_rag_biomed.names`), and keeps the options and the chemical fingerprint store as
  extensions of ``ctx.services``.
* Ingest hooks: :mod:`eagle_rag_biomed.hooks.ingest` (route selector, parse, enrich, classify, embed,
  upsert of the chemical collection).
* Query hooks: :mod:`eagle_rag_biomed.hooks.query` (assemble, classify, dense expand, Tier-1,
  supplement, injection, Tier-2) and the ``eagle-rag eval biomed`` command (:mod:`eagle_rag_biomed.hooks.cli`).
* ``eagle_warm_up``: :mod:`eagle_rag_biomed.hooks.warm_up` (ontology matcher, Tier-2 models).
* ``eagle_filter_vocabulary``: the names of its sections and document types (``label`` -> ``drug_label``).
* HTTP routes: :mod:`eagle_rag_biomed.hooks.api` (``POST /biomed/compounds``, ``GET /biomed/entities/{name}``).
* MCP tools: :mod:`eagle_rag_biomed.hooks.mcp` (``biomed_query_entities``, ``biomed_retrieve_compounds``).

docs/biomed.md describes every stage; docs/architecture.md the hooks.
"""

from __future__ import annotations

import os
from pathlib import Path

from eagle_rag.plugin_api import HookContext, hookimpl
from eagle_rag.plugin_api.encoders import EncoderRegistry
from eagle_rag_biomed.chem.store import SERVICE_KEY, FingerprintStore, fingerprint_dir
from eagle_rag_biomed.encoders.labels import register_encoders
from eagle_rag_biomed.hooks.api import eagle_api_register  # noqa: F401 - HTTP routes of this plugin
from eagle_rag_biomed.hooks.ingest import (  # noqa: F401 - hook implementations of this plugin
    eagle_chunk_enrich,
    eagle_classify_chunk,
    eagle_classify_visual,
    eagle_embed_text,
    eagle_embed_tokens,
    eagle_embed_visual,
    eagle_ingest_route_selector,
    eagle_parse,
    eagle_parse_records,
    eagle_upsert_vectors,
)
from eagle_rag_biomed.hooks.mcp import eagle_mcp_tools  # noqa: F401 - MCP tools of this plugin
from eagle_rag_biomed.hooks.query import (  # noqa: F401 - hook implementations of this plugin
    biomed_classify_query,
    biomed_cli_register,
    biomed_dense_expand,
    biomed_post_rrf_rerank,
    biomed_query_assemble,
    biomed_rerank_plan,
    biomed_retrieve_supplement,
    biomed_rrf_post_merge,
)
from eagle_rag_biomed.hooks.warm_up import eagle_warm_up  # noqa: F401 - models loaded at serve start
from eagle_rag_biomed.ingest.sections import filter_vocabulary
from eagle_rag_biomed.names import register_collections
from eagle_rag_biomed.options import BiomedOptions, biomed_options

OPTIONS_KEY = "biomed_options"


@hookimpl
def eagle_filter_vocabulary() -> dict[str, dict[str, str]]:
    """The names of the sections and document types this plugin labels (``Dosage and Administration``
    -> ``dosage``, ``label`` -> ``drug_label``): :func:`eagle_rag_biomed.ingest.sections.filter_vocabulary`."""
    return filter_vocabulary()


RELEVANCE_FILE = Path(__file__).resolve().parent / "data" / "relevance_biomed.json"
"""The relevance-probability parameters of the biomed profile (fitted by bench/bench_relevance.py)."""


@hookimpl
def eagle_relevance_parameters(profile: str) -> Path | None:
    """The relevance parameters this plugin ships for the ``biomed`` profile."""
    return RELEVANCE_FILE if profile == "biomed" else None


@hookimpl
def eagle_options_model() -> type[BiomedOptions]:
    """The model of ``plugins.options.biomed`` (checked at start-up, listed by ``config show``)."""
    return BiomedOptions


@hookimpl
def eagle_register(ctx: HookContext, encoders: EncoderRegistry) -> None:
    """Register the biomed encoder labels and collections; returns None.

    Raises BiomedOptionsError for invalid plugin options and ValueError for a taken label or a
    collection whose encoder does not fit, so a misconfigured engine fails at start-up.
    """
    options = biomed_options(ctx.settings)
    enc = ctx.settings.encoders
    register_encoders(encoders, options, os.environ, threads=enc.threads or None, batch_size=enc.batch_size,
                      rerank_max_passage_tokens=ctx.settings.search.cross_encoder_max_tokens)
    register_collections(encoders)
    ctx.services.set_extension(OPTIONS_KEY, options)
    if ctx.services.extension(SERVICE_KEY, FingerprintStore) is None:
        ctx.services.set_extension(SERVICE_KEY, FingerprintStore(fingerprint_dir(ctx.settings.data_path)))

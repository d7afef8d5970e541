"""The ``biomed`` plugin module (entry point ``eagle_rag.plugins: biomed``).

* ``eagle_register``: validates ``plugins.options.biomed``, registers the domain encoder labels
  (:mod:`eagle_rag_biomed.encoders`) and the collections (:mod:`eagle_rag_biomed.collections`), and
  puts the options and the chemical fingerprint store into ``ctx.services``.
* Ingest hooks: :mod:`eagle_rag_biomed.ingest_hooks` (route selector, parse, enrich, classify, embed,
  upsert of the chemical collection).
* Query hooks: added by the query side (see the marked place below).
"""

from __future__ import annotations

import os

from eagle_rag.plugin_api import EncoderRegistry, HookContext, hookimpl
from eagle_rag_biomed.collections import register_collections
from eagle_rag_biomed.compound_search import SERVICE_KEY, FingerprintStore, fingerprint_dir
from eagle_rag_biomed.encoders import register_encoders
from eagle_rag_biomed.ingest_hooks import (  # noqa: F401 - hook implementations of this plugin
    eagle_chunk_enrich,
    eagle_classify_chunk,
    eagle_classify_visual,
    eagle_embed_text,
    eagle_embed_visual,
    eagle_ingest_route_selector,
    eagle_parse,
    eagle_upsert_vectors,
)
from eagle_rag_biomed.options import biomed_options

# ----------------------------------------------------------------------------- query side
# The query-side hook implementations (QUERY_ASSEMBLE, CLASSIFY_QUERY, QUERY_DENSE_EXPAND, RERANK,
# RETRIEVE_SUPPLEMENT, RRF_POST_MERGE, RERANK_MERGED) are imported here, e.g.
#     from eagle_rag_biomed.retrieval_hooks import *  # noqa: F403
from eagle_rag_biomed.retrieval_hooks import (  # noqa: F401 - query-side hook implementations of this plugin
    biomed_classify_query,
    biomed_cli_register,
    biomed_dense_expand,
    biomed_post_rrf_rerank,
    biomed_query_assemble,
    biomed_rerank_plan,
    biomed_retrieve_supplement,
    biomed_rrf_post_merge,
)

# ----------------------------------------------------------------------------- end of query side

OPTIONS_KEY = "biomed_options"


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

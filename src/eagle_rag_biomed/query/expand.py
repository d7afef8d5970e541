"""Query expansion (QUERY_ASSEMBLE and QUERY_DENSE_EXPAND): canonical drug names, sparse terms, dense suffix.

The terms come from the request's :class:`~eagle_rag_biomed.query.analysis.QueryAnalysis`
(docs/biomed.md, "Query expansion"):

* assembly: a drug the query writes another way (a brand name or an alias, "Gleevec") is appended
  by its canonical name ("imatinib"), so the lexical channel finds documents that use the generic
  name (``QueryAnalysis.canonical_names``);
* sparse terms: the query's drugs plus the intent's section cues (``_`` read as a space), each once
  (``QueryAnalysis.sparse_terms``);
* dense suffix: only for the ``pubmedbert`` plan, ``"{query} [biomed entities: a, b, ...]"``, and only
  when the ``dense_suffix`` stage is on (``auto``: only with a real PubMedBERT checkpoint, because the
  bundled general-purpose stand-in reads the suffix as noise).
"""

from __future__ import annotations

from eagle_rag.plugin_api import CollectionQueryPlan, HookContext
from eagle_rag_biomed.encoders.labels import has_domain_checkpoint
from eagle_rag_biomed.names import EncoderLabel
from eagle_rag_biomed.options import biomed_options
from eagle_rag_biomed.query.analysis import QueryAnalysis

__all__ = ["dense_query", "dense_suffix_on"]


def dense_suffix_on(ctx: HookContext) -> bool:
    """The ``dense_suffix`` stage: True / False, or ``auto`` = only with a real pubmedbert checkpoint."""
    setting = biomed_options(ctx.settings).stages.dense_suffix
    if setting != "auto":
        return bool(setting)
    encoders = ctx.services.encoders if ctx.services.has("encoders") else None
    return has_domain_checkpoint(encoders, EncoderLabel.PUBMEDBERT)


def dense_query(ctx: HookContext, analysis: QueryAnalysis, plan: CollectionQueryPlan | None) -> str:
    """The dense query of one plan: with the entity suffix for the pubmedbert plan, else the query."""
    if plan is not None and plan.encoder == EncoderLabel.PUBMEDBERT and dense_suffix_on(ctx):
        return analysis.dense_query
    return analysis.query

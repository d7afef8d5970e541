"""A Tier-2 signal for texts the cross-encoder cannot read: the multilingual e5 query-passage cosine.

The bundled cross-encoder is English; a Chinese query (or a Chinese passage) gets no score from it
(:mod:`eagle_rag.retrieve.cross_rerank`). With ``search.multilingual_rerank_weight`` above 0, the
candidates it did not score are ranked by the cosine of the e5 query vector (``"query: "``) and
the e5 passage vector (``"passage: "``); that rank is one more weighted RRF list of the core
Tier-2 (stage ``multilingual_cosine`` in the trail, its score the cosine). The passage vector is
read from the vector store when the candidate's collection holds vectors of the same label (the
``eagle_text_multilingual`` collection, cosine metric); any other candidate is embedded. The
signal declares the languages of its label (``EncoderSpec.languages``; empty means any), like
every reranker. See docs/architecture.md, "Rerankers and languages".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from eagle_rag.analysis import model_covers
from eagle_rag.context import HookContext
from eagle_rag.protocols import StoreFilter
from eagle_rag.retrieve.channels import embed_query
from eagle_rag.retrieve.safe_hooks import call_hook
from eagle_rag.types import NodeWithScore, ranked

MULTILINGUAL_SCORER_LABEL = "e5-multilingual"
STAGE = "multilingual_cosine"
STORED_FANOUT = 8
"""Rows read per wanted chunk when the stored vectors of the candidates' documents are searched: a
document may hold several chunks, and every one of them passes the document filter."""
MAX_STORED_ROWS = 16384
COSINE_METRICS = ("COSINE", "IP")
"""Metrics whose stored score is the cosine of two unit vectors (the encoders' vectors are normalised)."""


def multilingual_ranked(ctx: HookContext, query: str, nodes: Sequence[NodeWithScore]) -> list[NodeWithScore]:
    """The ``nodes`` the e5 label may read with ``query``, ranked by cosine (stage ``multilingual_cosine``,
    ranks from 1); [] when ``search.multilingual_rerank_weight`` is 0 or the query is outside its languages."""
    if ctx.settings.search.multilingual_rerank_weight <= 0 or not nodes:
        return []
    languages = ctx.services.encoders.spec(MULTILINGUAL_SCORER_LABEL).languages
    if not model_covers(languages, query):
        return []
    readable = [n for n in nodes if model_covers(languages, n.node.text)]
    if not readable:
        return []
    cosines = query_passage_cosines(ctx, query, readable)
    return ranked([dataclasses.replace(n, score=c) for n, c in zip(readable, cosines, strict=True)], STAGE)


def query_passage_cosines(ctx: HookContext, query: str, nodes: Sequence[NodeWithScore]) -> list[float]:
    """The e5 cosine of ``query`` and each node's text: stored passage vectors where they exist, the
    others embedded as passages."""
    vector = np.asarray(embed_query(ctx, MULTILINGUAL_SCORER_LABEL, query), dtype=np.float32)
    cosines = _stored_cosines(ctx, vector, nodes)
    missing = [n for n in nodes if n.node_id not in cosines]
    if missing:
        passages = call_hook(ctx, ctx.services.pm.hook.eagle_embed_text, None, encoder=MULTILINGUAL_SCORER_LABEL,
                             texts=[n.node.text for n in missing], kind="passage")
        if not passages or len(passages) != len(missing):
            raise RuntimeError(f"no plugin could embed passages with encoder {MULTILINGUAL_SCORER_LABEL!r}")
        embedded = np.asarray(passages, dtype=np.float32) @ vector
        cosines.update((n.node_id, float(c)) for n, c in zip(missing, embedded, strict=True))
    return [cosines[n.node_id] for n in nodes]


def _reusable(ctx: HookContext, collection: str) -> bool:
    """True when ``collection`` stores unit vectors of the e5 label under a cosine metric."""
    try:
        profile = ctx.services.encoders.collection(collection)
    except ValueError:
        return False
    return (profile.default_encoder == MULTILINGUAL_SCORER_LABEL and profile.metric in COSINE_METRICS
            and ctx.services.vectors.has_collection(collection))


def _stored_cosines(ctx: HookContext, vector: np.ndarray, nodes: Sequence[NodeWithScore]) -> dict[str, float]:
    """Cosines read from the vector store: one search per collection, filtered to the nodes' documents."""
    groups: dict[str, list[NodeWithScore]] = {}
    for n in nodes:
        if n.node_id and n.collection:
            groups.setdefault(n.collection, []).append(n)
    found: dict[str, float] = {}
    for collection, group in groups.items():
        if not _reusable(ctx, collection):
            continue
        wanted = {n.node_id for n in group}
        documents = tuple(sorted({n.node.document_id for n in group}))
        limit = min(MAX_STORED_ROWS, len(group) * STORED_FANOUT)
        hits = ctx.services.vectors.search(collection, vector.tolist(), limit, StoreFilter(document_ids=documents))
        found.update((h.id, float(h.score)) for h in hits if h.id in wanted)
    return found

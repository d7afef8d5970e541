"""Warm-up: load once, at start, what the first query of a process would otherwise load.

Models, vocabularies and store connections are built lazily (a cheap :class:`~eagle_rag.engine.Engine`),
so without a warm-up the first search of a process pays for all of them. :func:`warm_up` does that
work up front, in this order:

1. every collection that exists gets its vector store connection and lexical index opened;
2. one tiny query per script (:data:`PROBES`: an English and a Chinese one) runs through every stage
   of the pipeline in mode ``full`` (QUERY_ASSEMBLE ... RERANK_MERGED, nothing written, no metrics
   counted), so the plugins' per-query code paths (an ontology matcher, compiled patterns) run once;
3. the query encoder of every plan those probes are routed to embeds its probe (also for a
   collection that holds nothing yet);
4. ``eagle_warm_up`` asks each plugin to load the rest (rerankers, late-interaction models, side
   stores) and to run each model once.

``eagle-rag serve`` calls it before it writes ``server.json`` (the moment it reports ready).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from eagle_rag.ingest.writer import collection_names
from eagle_rag.protocols import StoreFilter
from eagle_rag.retrieve.safe_hooks import call_hook
from eagle_rag.types import Modality, SearchMode, SearchRequest

if TYPE_CHECKING:
    from eagle_rag.kernel.runtime import Runtime as Engine

log = logging.getLogger(__name__)

PROBES = ("aspirin dose in adults with fever", "阿司匹林的剂量")
"""The warm-up queries: one in Latin script, one in CJK script, so every text route is taken."""


@dataclass
class WarmUpReport:
    """What :func:`warm_up` loaded, in order, and how long each step took (milliseconds)."""

    loaded: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        return sum(self.timings_ms.values()) / 1000


def warm_up(engine: Engine) -> WarmUpReport:
    """Load and exercise what the engine's first query needs (see the module docstring).

    Returns the report. A store that cannot be reached raises as a search would; a plugin failure is
    handled as in a search (:func:`eagle_rag.retrieve.safe_hooks.call_hook`).
    """
    report = WarmUpReport()
    started = time.perf_counter()

    def lap(step: str) -> None:
        nonlocal started
        now = time.perf_counter()
        report.timings_ms[step] = round((now - started) * 1000, 1)
        started = now

    for collection in collection_names(engine.ctx):
        if engine.vectors.has_collection(collection):
            report.loaded.append(f"collection {collection}")
        if engine.has_lexical_index(collection):
            engine.lexical_for(collection)
    lap("stores")
    ctx = engine.request_context()
    encoders: dict[str, str] = {}
    for probe in PROBES:
        request = SearchRequest(query=probe, top_k=1, mode=SearchMode.FULL)
        result = engine.retriever.retrieve(ctx.for_request(), request, StoreFilter())
        for plan in result.decision.plans:
            encoders.setdefault(plan.encoder, probe)
    lap("pipeline")
    for label, probe in encoders.items():
        if engine.encoders.spec(label).modality is Modality.VISUAL:
            continue
        call_hook(ctx, engine.pm.hook.eagle_embed_text, None, encoder=label, texts=[probe], kind="query")
        report.loaded.append(f"query encoder {label}")
    lap("encoders")
    for names in call_hook(ctx, engine.pm.hook.eagle_warm_up, []) or []:
        report.loaded.extend(names)
    lap("plugins")
    log.info("warmed up in %.1f s: %s", report.seconds, ", ".join(report.loaded) or "nothing to load")
    return report

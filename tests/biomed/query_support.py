"""Helpers of the biomed query-side tests: a request context on deterministic encoders, hits, fake stores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from eagle_rag.context import HookContext, Services
from eagle_rag.encoders import default_registry
from eagle_rag.kernel.audit import PluginAudit
from eagle_rag.kernel.plugin_manager import build_plugin_manager
from eagle_rag.protocols import ScoredId, StoreFilter
from eagle_rag.settings import load_settings
from eagle_rag.types import Chunk, NodeWithScore, QueryRetrievalIntent, SearchMode, SearchRequest
from eagle_rag_biomed.encoders.labels import register_encoders
from eagle_rag_biomed.names import register_collections
from eagle_rag_biomed.options import parse_options
from eagle_rag_biomed.query.analysis import QueryAnalysis, analyze_query


def registry() -> Any:
    """The core + biomed encoder labels and collections, all on deterministic (hash) encoders."""
    reg = default_registry("deterministic")
    register_encoders(reg, parse_options({"encoder_mode": "deterministic"}), environ={})
    register_collections(reg)
    return reg


def hit(node_id: str, text: str = "", score: float = 0.0, doc: str = "", path: str = "",
        meta: Mapping[str, Any] | None = None, chunk_type: str = "text",
        collection: str = "eagle_text_biomed") -> NodeWithScore:
    """A NodeWithScore built from its parts."""
    chunk = Chunk(id=node_id, text=text or node_id, document_id=doc or f"doc-{node_id}", path=path,
                  chunk_type=chunk_type, metadata=dict(meta or {}))
    return NodeWithScore(node=chunk, score=score, collection=collection)


class FakeVectors:
    """A vector store holding fixed hits per collection; records the searches it answers."""

    def __init__(self, hits: Mapping[str, Sequence[NodeWithScore]] | None = None,
                 counts: Mapping[str, int] | None = None) -> None:
        self.hits = {k: list(v) for k, v in (hits or {}).items()}
        self.counts = dict(counts or {})
        self.searches: list[tuple[str, int, StoreFilter | None]] = []

    def has_collection(self, name: str) -> bool:
        return name in self.hits or name in self.counts

    def count(self, collection: str, flt: StoreFilter | None = None) -> int:
        if collection in self.counts:
            return self.counts[collection]
        nodes = self.hits.get(collection, [])
        if flt is not None and flt.document_ids:
            nodes = [n for n in nodes if n.node.document_id in flt.document_ids]
        return len(nodes)

    def has_rows(self, collection: str, flt: StoreFilter | None = None) -> bool:
        return self.count(collection, flt) > 0

    def search(self, collection: str, vector: Any, top_k: int, flt: StoreFilter | None = None) -> list[ScoredId]:
        self.searches.append((collection, top_k, flt))
        nodes = self.hits.get(collection, [])
        if flt is not None and flt.document_ids:
            nodes = [n for n in nodes if n.node.document_id in flt.document_ids]
        return [ScoredId(n.node.id, n.score, n.node) for n in nodes[:top_k]]

    def get_rows(self, collection: str, chunk_ids: Sequence[str]) -> list[tuple[Chunk, list[float]]]:
        return []  # no stored vectors: Tier-1 embeds the passages


class FakeRegistry:
    """A document registry answering name lookups and records from fixed data."""

    def __init__(self, names: Mapping[str, str] | None = None, records: Mapping[str, Any] | None = None,
                 tags: Mapping[str, set[str]] | None = None) -> None:
        self.names = dict(names or {})
        self.records = dict(records or {})
        self.tags = dict(tags or {})
        self.lookups: list[tuple[tuple[str, ...], str | None, str | None]] = []

    def lookup_document_ids_by_name_terms(self, terms: Sequence[str], kb_name: str | None = None,
                                          namespace: str | None = None) -> list[str]:
        self.lookups.append((tuple(terms), kb_name, namespace))
        return sorted(d for d, name in self.names.items() if any(t.lower() in name.lower() for t in terms))

    def get(self, document_id: str) -> Any:
        return self.records.get(document_id)

    def document_ids_with_tags(self, tags: Sequence[str]) -> set[str]:
        return {d for tag in tags for d in self.tags.get(tag, set())}


def context(tmp_path: Path, namespace: str = "biomed", options: Mapping[str, Any] | None = None,
            services: Mapping[str, Any] | None = None,
            search: Mapping[str, Any] | None = None) -> HookContext:
    """A request context in the biomed profile with deterministic encoders and the core plugin manager.

    The late-interaction stage is off unless ``options`` switch it on (it loads a real model).
    """
    biomed = dict(options or {})
    biomed["stages"] = {"late_interaction": False, **biomed.get("stages", {})}
    overrides: dict[str, Any] = {"profile": "biomed", "data_dir": str(tmp_path / "data"),
                                 "plugins": {"enabled": [], "default_namespace": "biomed",
                                             "options": {"biomed": biomed}}}
    if search:
        overrides["search"] = dict(search)
    settings = load_settings(environ={}, overrides=overrides)
    pm = build_plugin_manager(settings, environ={})
    given = dict(services or {})
    base = Services(pm=given.get("pm", pm), encoders=given.get("encoders") or registry(),
                    vectors=given.get("vectors") or FakeVectors(), registry=given.get("registry") or FakeRegistry())
    return HookContext(namespace=namespace, settings=settings, audit=PluginAudit(), services=base)


def analysis(query: str, intent: QueryRetrievalIntent | None = None,
             drugs: Sequence[str] | None = None) -> QueryAnalysis:
    """The analysis of ``query``, with its intent or drugs replaced (to test one stage's rule in isolation)."""
    found = analyze_query(query)
    changes: dict[str, Any] = {}
    if intent is not None:
        changes["intent"] = intent
    if drugs is not None:
        changes["drugs"] = tuple(drugs)
    return replace(found, **changes) if changes else found


def request(query: str = "q", mode: SearchMode = SearchMode.HYBRID) -> SearchRequest:
    """A search request for ``query`` in ``mode`` (what the query hooks receive)."""
    return SearchRequest(query, mode=mode)


def decisions(ctx: HookContext, category: str | None = None) -> list[Any]:
    """The decisions the context's audit recorded (optionally of one category)."""
    recent = ctx.audit.ring.recent(1000)
    return [d for d in recent if category is None or d.category == category]


def spy_cross_encoder(ctx: HookContext, label: str = "medcpt-rerank") -> list[list[str]]:
    """Record the passages each call of ``label``'s cross-encoder reads (it still scores them): the
    returned list gets one entry per ``score_pairs`` call."""
    seen: list[list[str]] = []
    encoder = ctx.services.encoders.cross_encoder(label)
    original = encoder.score_pairs

    def spy(query: str, texts: list[str]) -> list[float]:
        seen.append(list(texts))
        return list(original(query, texts))

    encoder.score_pairs = spy
    ctx.services.encoders.cross_encoder = lambda _label: encoder
    return seen

"""Entity, section and cross-drug signals of a hit, shared by Tier-1, the supplement and Tier-2.

All drug names are compared lower-cased (``match_drug_entities`` gives lower-cased canonical names, and
the ingest side writes ``primary_drugs`` from the same matcher). "Blob" matching is a plain substring
test, so ``imatinib`` is found in the file name ``label_imatinib.md``.

``entity_boost_score``          1.0 primary_drugs metadata names a query drug;
                                0.5 a query drug is in path / file_name / document_name / source_uri;
                                0.0 otherwise.
``entity_match_score``          1.0 when the boost is 1.0; 0.75 when it is 0.5 or a query drug is in
                                text[:512]; 0.0 otherwise.
``section_match_score``         share of the section cues found in biomed_section / path /
                                content_summary[:200] (a cue matches as written or with ``_`` as spaces).
``cross_drug_penalty``          1.0 when the hit's primary_drugs is non-empty, shares no drug with the
                                query, and no query drug is in its whole text or the blob; else 0.0.
                                A query without drugs penalises nothing; a hit that names the query's
                                drug anywhere in its text is not about other drugs only (docs/biomed.md,
                                "Entity, section and cross-drug signals").
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from eagle_rag.plugin_api import Chunk, NodeWithScore
from eagle_rag.plugin_api.ingest import embed_input
from eagle_rag.plugin_api.text import source_file_name
from eagle_rag_biomed.rerank.window import best_window

__all__ = ["TEXT_WINDOW", "chunk_passage", "cross_drug_penalty", "enrich_file_names", "entity_boost_score",
           "entity_match_score", "node_meta", "parse_primary_drugs", "passage_text",
           "section_match_score", "window_text"]

TEXT_WINDOW = 512
SUMMARY_WINDOW = 200
_BLOB_KEYS = ("path", "file_name", "document_name", "source_uri")


def parse_primary_drugs(value: Any) -> list[str]:
    """``primary_drugs`` as a lower-cased list: a list, a CSV string or a JSON array string."""
    if value is None or value == "":
        return []
    items: Iterable[Any]
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                loaded = json.loads(text)
            except ValueError:
                loaded = text.strip("[]").split(",")
            items = loaded if isinstance(loaded, list) else [loaded]
        else:
            items = text.split(",")
    elif isinstance(value, Iterable):
        items = value
    else:
        items = [value]
    out: list[str] = []
    for item in items:
        name = str(item).strip().strip("'\"").lower()
        if name and name not in out:
            out.append(name)
    return out


def node_meta(node: NodeWithScore) -> dict[str, Any]:
    """The hit's metadata with its ``path`` (the chunk field) added for blob matching."""
    chunk = node.node
    return {**chunk.metadata, "path": chunk.path}


def _blob(meta: Mapping[str, Any]) -> str:
    return " ".join(str(meta.get(key) or "") for key in _BLOB_KEYS).lower()


def _drugs(query_drugs: Sequence[str]) -> list[str]:
    return [d.strip().lower() for d in query_drugs if d and d.strip()]


def entity_boost_score(meta: Mapping[str, Any], query_drugs: Sequence[str]) -> float:
    """1.0 / 0.5 / 0.0 by where a query drug appears (see the module table)."""
    drugs = _drugs(query_drugs)
    if not drugs:
        return 0.0
    primary = set(parse_primary_drugs(meta.get("primary_drugs")))
    if primary.intersection(drugs):
        return 1.0
    blob = _blob(meta)
    if any(d in blob for d in drugs):
        return 0.5
    return 0.0


def entity_match_score(node: NodeWithScore, query_drugs: Sequence[str]) -> float:
    """Tier-2 entity signal: 1.0 / 0.75 / 0.75 (drug in text[:512]) / 0.0."""
    boost = entity_boost_score(node_meta(node), query_drugs)
    if boost >= 1.0:
        return 1.0
    if boost >= 0.5:
        return 0.75
    head = node.node.text[:TEXT_WINDOW].lower()
    if any(d in head for d in _drugs(query_drugs)):
        return 0.75
    return 0.0


def section_match_score(node: NodeWithScore, section_cues: Sequence[str]) -> float:
    """Share of ``section_cues`` found in biomed_section / path / content_summary[:200]; 0.0 without cues."""
    cues = [c.strip().lower() for c in section_cues if c and c.strip()]
    if not cues:
        return 0.0
    meta = node.node.metadata
    blob = " ".join([str(meta.get("biomed_section") or ""), node.node.path,
                     str(meta.get("content_summary") or "")[:SUMMARY_WINDOW]]).lower()
    hits = sum(1 for cue in cues if cue in blob or cue.replace("_", " ") in blob)
    return hits / len(cues)


def cross_drug_penalty(node: NodeWithScore, query_drugs: Sequence[str]) -> float:
    """1.0 when the hit is about other drugs only (see the module table), else 0.0."""
    drugs = _drugs(query_drugs)
    if not drugs:
        return 0.0
    meta = node_meta(node)
    primary = parse_primary_drugs(meta.get("primary_drugs"))
    if not primary or set(primary).intersection(drugs):
        return 0.0
    window = node.node.text.lower() + " " + _blob(meta)
    return 0.0 if any(d in window for d in drugs) else 1.0


def passage_text(node: NodeWithScore, max_chars: int, with_name: bool = False) -> str:
    """What a model reads of a hit, cut to ``max_chars``: its text, or with ``with_name`` what the ingest
    embedded (:func:`eagle_rag.ingest.dispatch.embed_input`: the document name, then the text)."""
    return chunk_passage(node.node, max_chars, with_name)


def chunk_passage(chunk: Chunk, max_chars: int, with_name: bool = False) -> str:
    """:func:`passage_text` of a chunk (the ingest computes token vectors of the same text)."""
    return (embed_input(chunk) if with_name else chunk.text)[:max_chars]


def window_text(node: NodeWithScore, max_chars: int, with_name: bool, stems: frozenset[str], budget: int) -> str:
    """What the cross-encoder reads of a hit with a window of ``budget`` characters
    (:func:`~eagle_rag_biomed.rerank.window.best_window`; 0 = :func:`passage_text`): the document
    name as :func:`passage_text` puts it, then the window of the text, cut to ``max_chars``."""
    if budget <= 0:
        return passage_text(node, max_chars, with_name)
    chunk = node.node
    named = embed_input(chunk) if with_name else chunk.text
    name = named[: len(named) - len(chunk.text)]
    return (name + best_window(chunk.text, stems, budget))[:max_chars]


def enrich_file_names(nodes: Sequence[NodeWithScore], registry: Any) -> list[NodeWithScore]:
    """Fill ``file_name``, ``document_name`` and ``source_uri`` from the document registry where missing.

    One registry read per document; a document the registry does not know keeps its metadata. Returns
    new nodes (inputs are not changed).
    """
    records: dict[str, Any] = {}
    out: list[NodeWithScore] = []
    for node in nodes:
        meta = node.node.metadata
        if meta.get("file_name") and meta.get("document_name") and meta.get("source_uri"):
            out.append(node)
            continue
        doc_id = node.node.document_id
        if doc_id not in records:
            records[doc_id] = registry.get(doc_id) if registry is not None else None
        record = records[doc_id]
        if record is None:
            out.append(node)
            continue
        extra = {"file_name": source_file_name(record.source_uri), "document_name": record.name,
                 "source_uri": record.source_uri}
        merged = {**extra, **{k: v for k, v in meta.items() if v}}
        out.append(replace(node, node=replace(node.node, metadata=merged)))
    return out

"""BM25 lexical index on Milvus's BM25 function: one distributed engine for both channels at scale.

Each logical collection gets a Milvus collection ``<collection>__bm25`` next to its vectors: a
VARCHAR ``terms`` field with an analyzer, a SPARSE_FLOAT_VECTOR ``sparse`` field that the server
computes from it (``Function(function_type=FunctionType.BM25)``), indexed SPARSE_INVERTED_INDEX /
BM25 with k1 1.2 and b 0.75 (checked with ``describe_index`` at creation), plus the chunk fields of
the vector store for filters and exact round trips.

Index and query agree because both sides feed the shared Python analyzer's terms, joined by
spaces. Milvus Lite 3.2 only has the ``standard`` (``\\w+``, lower-cased) and ``jieba`` tokenizers,
and a Milvus server's standard tokenizer splits CJK per character, so a term that is not plain
``[a-z0-9]+`` (``pd-1``, ``x_y``, ``straße``, a CJK bigram) is written as ``_`` + the hex of its UTF-8
bytes: one token for every tokenizer, and never equal to a plain term (those have no ``_``).

Caveat: Milvus Lite computes BM25 statistics (N, df, avgdl) per segment. Rows written in one
session share a segment until the 128 MB memtable flushes, so scores match tantivy's there; across
flushes (another ingest run, a large corpus) scores drift until compaction merges segments. A Milvus
server keeps global statistics. Like tantivy, changes are buffered until :meth:`commit`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from pymilvus import MilvusClient
from pymilvus.exceptions import MilvusException

from eagle_rag.analysis import analyze, analyze_query
from eagle_rag.protocols import ScoredId, StoreFilter
from eagle_rag.stores import milvus_schema as ms
from eagle_rag.stores.filters import InvalidFilterError, build_milvus_filter, milvus_string_literal
from eagle_rag.stores.milvus import MAX_TOP_K, MilvusVectorStore, is_released
from eagle_rag.stores.milvus_bm25_schema import (
    ANALYZER,
    BM25_PARAMS,
    TERMS_MAX_BYTES,
    check_bm25_index,
    create_bm25_collection,
)
from eagle_rag.stores.milvus_capabilities import Feature
from eagle_rag.types import Chunk

_T = TypeVar("_T")
SUFFIX = "__bm25"
__all__ = ["ANALYZER", "BM25_PARAMS", "SUFFIX", "MilvusLexicalIndex", "check_bm25_index", "create_bm25_collection",
           "encode_term", "encode_terms", "hybrid_search"]
_PLAIN = re.compile(r"[a-z0-9]+")
_FIELDS = frozenset({*ms.OUTPUT_FIELDS, "terms"})
_BATCH = 512


def encode_term(term: str) -> str:
    """``term`` as one token for any whitespace/``\\w+`` tokenizer (module docstring)."""
    return term if _PLAIN.fullmatch(term) else "_" + term.encode("utf-8").hex()


def encode_terms(terms: Sequence[str], max_bytes: int = TERMS_MAX_BYTES) -> str:
    """The ``terms`` field: encoded terms joined by spaces, cut at a term boundary to ``max_bytes``."""
    out: list[str] = []
    size = 0
    for term in terms:
        token = encode_term(term)
        size += len(token) + (1 if out else 0)
        if size > max_bytes:
            break
        out.append(token)
    return " ".join(out)


class MilvusLexicalIndex:
    """A :class:`~eagle_rag.protocols.LexicalIndex` in the Milvus database of ``store``.

    Uses the store's client (one connection per database); the collection is created on the first
    commit that writes. ``add``, ``delete_document`` and ``delete_chunks`` are buffered, in order,
    until :meth:`commit`.
    """

    def __init__(self, store: MilvusVectorStore, collection: str) -> None:
        self._store = store
        self.name = f"{collection}{SUFFIX}"
        self._ops: list[tuple[str, Any]] = []
        self._exists = False
        self._lock = threading.RLock()

    @property
    def client(self) -> MilvusClient:
        """The store's client, once the server is known to have the BM25 function (Milvus 2.5+).

        Raises:
            ServerUnsupported: the server is older (one line naming the feature and the version).
        """
        self._store.require(Feature.BM25_FUNCTION, "lexical.backend")
        return self._store.client

    def exists(self) -> bool:
        """True when the Milvus collection exists (nothing was committed before otherwise); an
        existing collection is loaded (a reopened Milvus Lite file starts with it released)."""
        with self._lock:
            if not self._exists and self.client.has_collection(self.name):
                if "Loaded" not in str(self.client.get_load_state(self.name)["state"]):
                    self.client.load_collection(self.name)
                self._exists = True
            return self._exists

    def add(self, chunks: Sequence[Chunk]) -> int:
        """Buffer ``chunks`` (replacing chunks with the same id at commit); returns how many.

        Raises:
            ValueError: for an empty id, an identifier over its limit or metadata that is not
                JSON-serialisable.
        """
        rows = []
        for chunk in chunks:
            row = ms.chunk_to_row(chunk, [], (), _FIELDS)
            row["terms"] = encode_terms(analyze(chunk.text))
            rows.append(row)
        with self._lock:
            if rows:
                self._ops.append(("upsert", rows))
        return len(rows)

    def delete_document(self, document_id: str) -> int:
        """Buffer the deletion of every chunk of ``document_id``; returns how many are committed."""
        with self._lock:
            removed = self.count(StoreFilter(document_ids=(document_id,)))
            self._ops.append(("filter", f"document_id == {milvus_string_literal(document_id)}"))
            return removed

    def delete_chunks(self, chunk_ids: Sequence[str]) -> int:
        """Buffer the deletion of these chunk ids; returns how many of them are committed."""
        wanted = sorted({i for i in chunk_ids if i})
        with self._lock:
            if not wanted or not self.exists():
                return 0
            found = sum(1 for _ in self._query(f"id in [{', '.join(map(milvus_string_literal, wanted))}]", ["id"]))
            self._ops.append(("ids", wanted))
            return found

    def commit(self) -> None:
        """Apply the buffered changes in order; they are visible to search when this returns."""
        with self._lock:
            ops, self._ops = self._ops, []
            if not ops:
                return
            if not self.exists() and any(kind == "upsert" for kind, _ in ops):
                create_bm25_collection(self.client, self.name)
                self._exists = True
            if not self._exists:
                return
            for kind, value in ops:
                if kind == "upsert":
                    for start in range(0, len(value), _BATCH):
                        self.client.upsert(self.name, value[start:start + _BATCH])
                elif kind == "filter":
                    self.client.delete(self.name, filter=value)
                else:
                    for start in range(0, len(value), _BATCH):
                        self.client.delete(self.name, ids=value[start:start + _BATCH])

    def query_terms(self, query: str, extra_terms: Sequence[str] = ()) -> list[str]:
        """Return the distinct analyzed terms searched for ``query`` plus ``extra_terms``."""
        terms = analyze_query(query)
        for extra in extra_terms:
            terms.extend(analyze_query(extra))
        return list(dict.fromkeys(terms))

    def search(self, query: str, top_k: int, flt: StoreFilter | None = None,
               extra_terms: Sequence[str] = ()) -> list[ScoredId]:
        """Up to ``top_k`` chunks by BM25 score, best first; [] for top_k <= 0 or no query terms.

        A filter value that cannot be written in a Milvus filter (e.g. an invalid kb name) matches
        nothing, as in tantivy: nothing stored can carry it.
        """
        terms = self.query_terms(query, extra_terms)
        expr = _filter_expr(flt)
        if top_k <= 0 or not terms or expr is None or not self.exists():
            return []
        result = self._loaded(lambda: self.client.search(
            self.name, data=[encode_terms(terms)], anns_field="sparse", filter=expr, limit=min(top_k, MAX_TOP_K),
            output_fields=list(ms.OUTPUT_FIELDS), search_params={"metric_type": "BM25"}))
        # Milvus Lite reports the BM25 score negated as a distance; a server reports it as is
        return [ScoredId(id=str(hit["id"]), score=abs(float(hit["distance"])),
                         chunk=ms.row_to_chunk({**hit["entity"], "id": hit["id"]}))
                for hit in result[0]]

    def count(self, flt: StoreFilter | None = None) -> int:
        """Return the number of committed chunks that pass ``flt``."""
        expr = _filter_expr(flt)
        if expr is None or not self.exists():
            return 0
        return self._loaded(lambda: ms.count_rows(self.client, self.name, expr))

    def _loaded(self, call: Callable[[], _T]) -> _T:
        """``call()``; run once more after loading the collection when the server had released it (a
        restarted Milvus Lite server starts with every collection released)."""
        try:
            return call()
        except MilvusException as exc:
            if not is_released(exc):
                raise
            self.client.load_collection(self.name)
            return call()

    def chunk_ids_for_document(self, document_id: str) -> set[str]:
        """Return the ids of every committed chunk of ``document_id``."""
        expr = f"document_id == {milvus_string_literal(document_id)}"
        return {str(row["id"]) for row in self._query(expr, ["id"])}

    def chunk_refs(self, flt: StoreFilter | None = None) -> Iterator[tuple[str, str]]:
        """Yield ``(chunk id, document id)`` of every committed chunk that passes ``flt``."""
        for row in self._query(_filter_expr(flt), ["id", "document_id"]):
            yield str(row["id"]), str(row["document_id"])

    def _query(self, expr: str | None, fields: list[str]) -> Iterator[dict[str, Any]]:
        if expr is not None and self.exists():
            yield from ms.iterate(self.client, self.name, expr, fields)

    def drop(self) -> None:
        """Drop the Milvus collection and forget buffered changes (tests and admin)."""
        with self._lock:
            self._ops = []
            if self.exists():
                self.client.drop_collection(self.name)
            self._exists = False

    def close(self) -> None:
        """Commit pending changes (the client belongs to the vector store, which closes it)."""
        self.commit()


def _filter_expr(flt: StoreFilter | None) -> str | None:
    """The Milvus filter expression of ``flt``; None when a value cannot match any stored row."""
    try:
        return build_milvus_filter(flt)
    except InvalidFilterError:
        return None


def hybrid_search(client: MilvusClient, name: str, vector: Sequence[float], sparse_query: str, top_k: int,
                  flt: StoreFilter | None = None, rrf_k: int = 60, depth: int = 100) -> list[ScoredId]:
    """Server-side hybrid search on a collection made by ``create_bm25_collection(..., dim=...)``.

    Milvus runs the dense ANN request (``vector``, COSINE) and the BM25 request (``sparse_query``,
    the text the BM25 function analyzes: ``encode_terms(analyze_query(q))`` for our analyzer, or raw
    text for Milvus's own) with ``depth`` candidates each and fuses them with ``RRFRanker(rrf_k)``:
    ``score = sum(1 / (rrf_k + rank))``, ranks from 1. The option for a Milvus cluster, where the
    fusion then runs next to the data; the engine's own pipeline fuses in Python. Returns the hits
    with the RRF score, best first.
    """
    from pymilvus import AnnSearchRequest, RRFRanker

    expr = build_milvus_filter(flt)
    requests = [
        AnnSearchRequest(data=[list(vector)], anns_field="vector", limit=depth, expr=expr,
                         param={"metric_type": "COSINE", "params": {"ef": max(depth, 64)}}),
        AnnSearchRequest(data=[sparse_query], anns_field="sparse", limit=depth, expr=expr,
                         param={"metric_type": "BM25"}),
    ]
    result = client.hybrid_search(name, requests, ranker=RRFRanker(rrf_k), limit=min(top_k, MAX_TOP_K),
                                  output_fields=list(ms.OUTPUT_FIELDS))
    return [ScoredId(id=str(hit["id"]), score=float(hit["distance"]),
                     chunk=ms.row_to_chunk({**hit["entity"], "id": hit["id"]}))
            for hit in result[0]]

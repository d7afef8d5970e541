"""BM25 lexical index on tantivy, fed by the shared analyzer (DESIGN.md sections 3 and 4).

The ``terms`` field holds ``" ".join(analyze(text))`` indexed with tantivy's ``whitespace``
tokenizer, so index and query terms come from the same Python analyzer. Queries are built from
term queries (never ``parse_query`` on user text). Scores are tantivy's BM25 (k1 1.2, b 0.75)
with index-wide statistics; like Lucene, documents deleted but not yet merged away still count
in those statistics.

The store owns the only ``IndexWriter`` of its index (tantivy allows one writer per index):
``add`` and ``delete_document`` are buffered until :meth:`TantivyLexicalIndex.commit`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import tantivy
from tantivy import Occur, Query

from eagle_rag.analysis import analyze, analyze_query
from eagle_rag.protocols import ScoredId, StoreFilter
from eagle_rag.types import Chunk

_RAW_FIELDS = ("id", "document_id", "kb_name", "chunk_type")
_FILTERS = (("kb_name", "kb_names"), ("document_id", "document_ids"), ("chunk_type", "chunk_types"))


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    for field in _RAW_FIELDS:
        builder.add_text_field(field, stored=field == "id", tokenizer_name="raw",
                               index_option="basic")
    builder.add_text_field("terms", tokenizer_name="whitespace", index_option="position")
    builder.add_bytes_field("payload", stored=True, indexed=False)
    return builder.build()


def chunk_to_payload(chunk: Chunk) -> bytes:
    """Return the stored JSON payload of ``chunk``.

    Raises:
        ValueError: when the chunk metadata is not JSON-serialisable.
    """
    data = {"id": chunk.id, "text": chunk.text, "document_id": chunk.document_id,
            "kb_name": chunk.kb_name, "path": chunk.path, "chunk_type": chunk.chunk_type,
            "source_type": chunk.source_type, "source_chunk_id": chunk.source_chunk_id,
            "ordinal": chunk.ordinal, "metadata": dict(chunk.metadata)}
    try:
        return json.dumps(data, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"chunk {chunk.id!r}: metadata is not JSON-serialisable: {exc}") from exc


def _total(result: tantivy.SearchResult) -> int:
    """The match count of a search run with ``count=True`` (missing from the type stubs)."""
    count: int | None = getattr(result, "count", None)
    return int(count or 0)


def payload_to_chunk(payload: bytes) -> Chunk:
    """Rebuild the :class:`Chunk` stored by :func:`chunk_to_payload`."""
    data: dict[str, Any] = json.loads(payload.decode("utf-8"))
    return Chunk(**data)


class TantivyLexicalIndex:
    """A :class:`~eagle_rag.protocols.LexicalIndex` in a tantivy index directory.

    ``path`` None keeps the index in memory (tests only). The writer is created on the first
    write, so read-only users of an index do not take its lock. Opening a directory that holds
    an index with another schema raises ValueError.
    """

    def __init__(self, path: Path | str | None = None, *, writer_heap_bytes: int = 64_000_000,
                 writer_threads: int = 1) -> None:
        self._path = Path(path) if path is not None else None
        self._schema = _schema()
        if self._path is None:
            self._index = tantivy.Index(self._schema)
        else:
            self._path.mkdir(parents=True, exist_ok=True)
            try:
                self._index = tantivy.Index(self._schema, path=str(self._path), reuse=True)
            except ValueError as exc:
                raise ValueError(f"cannot open the lexical index at {self._path}: {exc}") from exc
        self._heap = writer_heap_bytes
        self._threads = writer_threads
        self._writer: tantivy.IndexWriter | None = None
        self._pending = False
        self._lock = threading.RLock()

    @property
    def path(self) -> Path | None:
        """The index directory, or None for an in-memory index."""
        return self._path

    def _get_writer(self) -> tantivy.IndexWriter:
        if self._writer is None:
            try:
                self._writer = self._index.writer(self._heap, self._threads)
            except ValueError as exc:
                raise RuntimeError(
                    f"cannot open a writer on the lexical index {self._path}: another writer "
                    f"holds its lock ({exc})"
                ) from exc
        return self._writer

    def add(self, chunks: Sequence[Chunk]) -> int:
        """Buffer ``chunks`` for indexing, replacing any indexed chunk with the same id.

        Returns the number of chunks buffered. Visible to search after :meth:`commit`.

        Raises:
            ValueError: for an empty chunk id or metadata that is not JSON-serialisable.
        """
        docs: list[tuple[str, tantivy.Document]] = []
        for chunk in chunks:
            if not chunk.id:
                raise ValueError("chunk id must not be empty")
            doc = tantivy.Document()
            doc.add_text("id", chunk.id)
            doc.add_text("document_id", chunk.document_id)
            doc.add_text("kb_name", chunk.kb_name)
            doc.add_text("chunk_type", chunk.chunk_type)
            doc.add_text("terms", " ".join(analyze(chunk.text)))
            doc.add_bytes("payload", chunk_to_payload(chunk))
            docs.append((chunk.id, doc))
        with self._lock:
            writer = self._get_writer()
            for chunk_id, doc in docs:
                writer.delete_documents_by_term("id", chunk_id)
                writer.add_document(doc)
            self._pending = self._pending or bool(docs)
        return len(docs)

    def delete_document(self, document_id: str) -> int:
        """Buffer the deletion of every chunk of ``document_id``.

        Returns how many committed chunks it removes (chunks added since the last commit are
        removed too, but not counted). Takes effect for search after :meth:`commit`.
        """
        with self._lock:
            removed = self.count(StoreFilter(document_ids=(document_id,)))
            self._get_writer().delete_documents_by_term("document_id", document_id)
            self._pending = True
            return removed

    def delete_chunks(self, chunk_ids: Sequence[str]) -> int:
        """Buffer the deletion of the chunks with these ids; returns how many of them are committed.

        Takes effect for search after :meth:`commit`.
        """
        wanted = list(dict.fromkeys(i for i in chunk_ids if i))
        if not wanted:
            return 0
        with self._lock:
            query = Query.term_set_query(self._schema, "id", wanted)
            removed = _total(self._index.searcher().search(query, limit=1, count=True))
            writer = self._get_writer()
            for chunk_id in wanted:
                writer.delete_documents_by_term("id", chunk_id)
            self._pending = True
            return removed

    def chunk_refs(self, flt: StoreFilter | None = None) -> Iterator[tuple[str, str]]:
        """Yield ``(chunk id, document id)`` of every committed chunk that passes ``flt``."""
        searcher = self._index.searcher()
        query = self._filter_query(flt) or Query.all_query()
        total = _total(searcher.search(query, limit=1, count=True))
        if not total:
            return
        for _, address in searcher.search(query, limit=total, count=False).hits:
            data = json.loads(bytes(searcher.doc(address).get_first("payload") or b"{}"))
            yield str(data.get("id", "")), str(data.get("document_id", ""))

    def commit(self) -> None:
        """Commit buffered changes (durable on disk) and make them visible to search."""
        with self._lock:
            if self._writer is not None and self._pending:
                self._writer.commit()
                self._pending = False
            self._index.reload()

    def _filter_query(self, flt: StoreFilter | None) -> Query | None:
        if flt is None or flt.empty:
            return None
        clauses: list[tuple[Occur, Query]] = []
        for field, attr in _FILTERS:
            values: tuple[str, ...] = getattr(flt, attr)
            if values:
                terms = Query.term_set_query(self._schema, field, list(dict.fromkeys(values)))
                clauses.append((Occur.Must, Query.const_score_query(terms, 0.0)))
        return Query.boolean_query(clauses)

    def query_terms(self, query: str, extra_terms: Sequence[str] = ()) -> list[str]:
        """Return the distinct analyzed terms searched for ``query`` plus ``extra_terms``."""
        terms = analyze_query(query)
        for extra in extra_terms:
            terms.extend(analyze_query(extra))
        return list(dict.fromkeys(terms))

    def search(self, query: str, top_k: int, flt: StoreFilter | None = None,
               extra_terms: Sequence[str] = ()) -> list[ScoredId]:
        """Return up to ``top_k`` chunks by BM25 score (best first, ties by index order).

        A chunk matches when it has any query term and passes every filter (kb name in
        ``kb_names``, document id in ``document_ids``, chunk type in ``chunk_types``). Filters add
        nothing to the score. Returns [] for ``top_k`` <= 0 or a query without terms.
        """
        terms = self.query_terms(query, extra_terms)
        if top_k <= 0 or not terms:
            return []
        should = [(Occur.Should, Query.term_query(self._schema, "terms", t, index_option="freq"))
                  for t in terms]
        q = Query.boolean_query(should)
        flt_query = self._filter_query(flt)
        if flt_query is not None:
            q = Query.boolean_query([(Occur.Must, q), (Occur.Must, flt_query)])
        searcher = self._index.searcher()
        hits = searcher.search(q, limit=top_k, count=False).hits
        out: list[ScoredId] = []
        for score, address in hits:
            chunk = payload_to_chunk(bytes(searcher.doc(address).get_first("payload") or b""))
            out.append(ScoredId(id=chunk.id, score=float(score), chunk=chunk))
        return out

    def count(self, flt: StoreFilter | None = None) -> int:
        """Return the number of committed chunks that pass ``flt``."""
        searcher = self._index.searcher()
        flt_query = self._filter_query(flt)
        if flt_query is None:
            return int(searcher.num_docs)
        return _total(searcher.search(flt_query, limit=1, count=True))

    def chunk_ids_for_document(self, document_id: str) -> set[str]:
        """Return the ids of every committed chunk of ``document_id``."""
        searcher = self._index.searcher()
        query = Query.term_query(self._schema, "document_id", document_id)
        total = _total(searcher.search(query, limit=1, count=True))
        if not total:
            return set()
        hits = searcher.search(query, limit=total, count=False).hits
        return {str(searcher.doc(address).get_first("id")) for _, address in hits}

    def close(self) -> None:
        """Commit pending changes and release the writer (and its lock)."""
        with self._lock:
            if self._writer is not None:
                self.commit()
                self._writer.wait_merging_threads()
                self._writer = None

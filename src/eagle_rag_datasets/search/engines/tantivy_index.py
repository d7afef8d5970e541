"""The ``index`` engine: BM25 from a tantivy index (tantivy 0.27), in memory or in a folder.

Fields hold text pre-analysed by the shared analyzer and are indexed with tantivy's built-in
``whitespace`` tokenizer, so index and query terms agree. Queries are BooleanQuery trees of
TermQuery clauses (never ``parse_query`` on user text): for each weighted term, a boosted clause on
``title`` (x ``TITLE_BOOST``) and one on ``body``; a one-character CJK term queries ``chars``. A
zero-weight clause on the ``ord`` field restricts scoring to the candidate cards.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

import tantivy

from eagle_rag_datasets.catalog.terms import CardTerms
from eagle_rag_datasets.search.engines.base import TITLE_BOOST, WeightedTerm

_HEAP = 50_000_000


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("ord", stored=True, indexed=True, fast=True)
    for name in ("title", "body", "chars"):
        builder.add_text_field(name, tokenizer_name="whitespace", index_option="freq")
    return builder.build()


class TantivyEngine:
    """A tantivy index over analysed cards; ordinals are positions in the card list."""

    def __init__(self, analysed: Sequence[CardTerms], path: str | Path | None = None) -> None:
        self.schema = _schema()
        if path is not None:
            Path(path).mkdir(parents=True, exist_ok=True)
            self.index = tantivy.Index(self.schema, path=str(path), reuse=False)
        else:
            self.index = tantivy.Index(self.schema)
        writer = self.index.writer(heap_size=_HEAP, num_threads=1)
        for ordinal, terms in enumerate(analysed):
            doc = tantivy.Document(title=" ".join(terms.title), body=" ".join(terms.body),
                                   chars=" ".join(sorted(terms.chars)))
            doc.add_unsigned("ord", ordinal)
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()
        self._ords = self._address_map(len(analysed))

    def _address_map(self, size: int) -> dict[tuple[int, int], int]:
        out: dict[tuple[int, int], int] = {}
        if size == 0:
            return out
        for _score, address in self.searcher.search(tantivy.Query.all_query(), limit=size).hits:
            out[(address.segment_ord, address.doc)] = int(self.searcher.doc(address)["ord"][0])
        return out

    def _clause(self, field: str, term: str, boost: float) -> tuple[tantivy.Occur, tantivy.Query]:
        query = tantivy.Query.term_query(self.schema, field, term)
        return tantivy.Occur.Should, tantivy.Query.boost_query(query, boost)

    def scores(self, terms: Sequence[WeightedTerm], candidates: Collection[int]) -> dict[int, float]:
        if not candidates or not terms:
            return {}
        clauses = []
        for field, term, weight in terms:
            if field == "char":
                clauses.append(self._clause("chars", term, weight))
            else:
                clauses.append(self._clause("title", term, weight * TITLE_BOOST))
                clauses.append(self._clause("body", term, weight))
        scoring = tantivy.Query.boolean_query(clauses)
        only = tantivy.Query.term_set_query(self.schema, "ord", sorted(candidates))
        query = tantivy.Query.boolean_query([
            (tantivy.Occur.Must, scoring),
            (tantivy.Occur.Must, tantivy.Query.boost_query(only, 0.0)),
        ])
        hits = self.searcher.search(query, limit=len(candidates)).hits
        return {self._ords[(a.segment_ord, a.doc)]: float(score) for score, a in hits}

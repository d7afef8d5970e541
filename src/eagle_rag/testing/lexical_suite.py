"""The shared :class:`~eagle_rag.protocols.LexicalIndex` suite.

Subclass :class:`LexicalIndexSuite` and override its ``index`` fixture with one that yields an
empty index (and removes it afterwards). A store whose BM25 statistics for rows not yet sealed
into a segment differ under a filter also overrides :meth:`LexicalIndexSuite.seal`.

The scoring tests pin BM25 down (k1 1.2, b 0.75, Lucene IDF, statistics over the whole index,
query analysis by :func:`eagle_rag.analysis.analyze_query`); the agreement test needs ``bm25s``.
"""

from __future__ import annotations

import math
import random

import pytest

from eagle_rag.analysis import analyze, analyze_query
from eagle_rag.protocols import LexicalIndex, StoreFilter
from eagle_rag.testing.fixtures import missing_fixture
from eagle_rag.types import Chunk

TEXTS = [
    "PD-1 blockade with pembrolizumab in advanced melanoma",
    "Anti-PD1 antibodies improve survival of lung cancer patients",
    "IL-6 signalling drives inflammation in rheumatoid arthritis",
    "VEGFR1-3 inhibitors reduce tumour angiogenesis",
    "Tumours treated with checkpoint inhibitors shrink",
    "肺癌的免疫治疗进展",
    "Metformin lowers blood glucose in type 2 diabetes",
    "Melanoma incidence rises with ultraviolet exposure",
]
"""The suite's corpus: biomedical symbols (PD-1, IL-6, VEGFR1-3), British spelling, Chinese."""


def make_chunk(i: int, text: str | None = None, doc: str = "", kb: str = "kb1", chunk_type: str = "text") -> Chunk:
    """Chunk ``c<i:03d>`` of ``doc-<i % 3>`` with text ``TEXTS[i % 8]`` unless given, every field set."""
    return Chunk(
        id=f"c{i:03d}", text=TEXTS[i % len(TEXTS)] if text is None else text,
        document_id=doc or f"doc-{i % 3}", kb_name=kb, path=f"Abstract > P{i}",
        chunk_type=chunk_type, source_type="pubmed", source_chunk_id=f"s{i}", ordinal=i,
        metadata={"i": i, "title": "Ünïcode 中文", "nested": {"x": [1, 2.5, None, True]}},
    )


class LexicalIndexSuite:
    """Every :class:`LexicalIndex` passes these tests. Override the ``index`` fixture."""

    @pytest.fixture
    def index(self) -> LexicalIndex:
        """An empty LexicalIndex, removed after the test. Abstract: a subclass overrides it."""
        missing_fixture(self, LexicalIndexSuite, "index", "an empty LexicalIndex")

    @pytest.fixture
    def loaded(self, index: LexicalIndex) -> LexicalIndex:
        """``index`` holding :data:`TEXTS` (c000-c004 in kb1, c005-c007 in kb2, c004 a table), committed."""
        chunks = [make_chunk(i, kb="kb1" if i < 5 else "kb2", chunk_type="table" if i == 4 else "text")
                  for i in range(len(TEXTS))]
        assert index.add(chunks) == len(TEXTS)
        index.commit()
        return index

    def seal(self, index: LexicalIndex) -> None:
        """Seal every committed row into a segment whose BM25 statistics a filter does not change.

        Nothing to do for most stores. Milvus Lite scores rows not yet flushed to a segment with
        statistics over the rows that pass the filter; in flushed segments a filter only masks rows.
        """

    def test_implements_protocol(self, index: LexicalIndex) -> None:
        assert isinstance(index, LexicalIndex)

    def test_search_ranks_and_round_trips(self, loaded: LexicalIndex) -> None:
        hits = loaded.search("melanoma", top_k=5)
        assert {h.id for h in hits} == {"c000", "c007"}
        assert all(h.score > 0 for h in hits)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert next(h for h in hits if h.id == "c000").chunk == make_chunk(0)

    def test_uncommitted_changes_are_invisible(self, index: LexicalIndex) -> None:
        index.add([make_chunk(0)])
        assert index.search("melanoma", 5) == [] and index.count() == 0
        index.commit()
        assert [h.id for h in index.search("melanoma", 5)] == ["c000"] and index.count() == 1

    def test_biomedical_symbols_and_chinese(self, loaded: LexicalIndex) -> None:
        assert {h.id for h in loaded.search("PD-1", 10)} >= {"c000", "c001"}
        assert loaded.search("pd1 pembrolizumab", 10)[0].id == "c000"
        assert [h.id for h in loaded.search("IL6", 10)] == ["c002"]
        assert [h.id for h in loaded.search("vegfr1-3", 10)] == ["c003"]
        assert [h.id for h in loaded.search("tumors", 10)] == []  # US spelling is another term
        assert {h.id for h in loaded.search("tumour", 10)} == {"c003", "c004"}  # stemmed
        assert [h.id for h in loaded.search("肺癌", 10)] == ["c005"]

    def test_query_syntax_is_not_interpreted(self, loaded: LexicalIndex) -> None:
        for query in ['title:melanoma AND (x OR "', "melanoma^10 -pembrolizumab", "*", "::", "\\"]:
            ids = {h.id for h in loaded.search(query, 10)}
            assert ids <= {"c000", "c007"}
        assert loaded.search("the of and", 10) == []
        assert loaded.search("", 10) == []
        assert loaded.search("melanoma", 0) == []

    def test_extra_terms_are_analyzed_and_added(self, loaded: LexicalIndex) -> None:
        assert {h.id for h in loaded.search("metformin", 10)} == {"c006"}
        hits = loaded.search("metformin", 10, extra_terms=["Angiogenesis", "IL-6"])
        assert {h.id for h in hits} == {"c006", "c003", "c002"}

    def test_filters_restrict_without_changing_scores(self, loaded: LexicalIndex) -> None:
        plain = {h.id: h.score for h in loaded.search("melanoma inhibitors", 10)}
        assert set(plain) == {"c000", "c003", "c004", "c007"}
        self.seal(loaded)
        plain = {h.id: h.score for h in loaded.search("melanoma inhibitors", 10)}
        filtered = loaded.search("melanoma inhibitors", 10, flt=StoreFilter(kb_names=("kb2",)))
        assert {h.id for h in filtered} == {"c007"}
        assert filtered[0].score == pytest.approx(plain["c007"], rel=1e-6)
        both = StoreFilter(kb_names=("kb1", "kb2"), document_ids=("doc-0", "doc-1"))
        assert {h.id for h in loaded.search("melanoma inhibitors", 10, flt=both)} == {"c000", "c003",
                                                                                       "c004", "c007"}
        only = StoreFilter(document_ids=("doc-1",), chunk_types=("table",))
        assert {h.id for h in loaded.search("melanoma inhibitors", 10, flt=only)} == {"c004"}
        hostile = StoreFilter(kb_names=('kb1" OR "1"="1',), document_ids=("*",))
        assert loaded.search("melanoma", 10, flt=hostile) == []
        assert loaded.count(hostile) == 0

    def test_counts(self, loaded: LexicalIndex) -> None:
        assert loaded.count() == 8
        assert loaded.count(StoreFilter(kb_names=("kb1",))) == 5
        assert loaded.count(StoreFilter(kb_names=("kb1", "kb2"))) == 8
        assert loaded.count(StoreFilter(document_ids=("doc-0",))) == 3
        assert loaded.count(StoreFilter(kb_names=("kb2",), document_ids=("doc-0",))) == 1
        assert loaded.count(StoreFilter(chunk_types=("table",))) == 1

    def test_add_replaces_same_id(self, loaded: LexicalIndex) -> None:
        new = Chunk(id="c000", text="Aspirin prevents stroke", document_id="doc-0", kb_name="kb1")
        first = Chunk(id="c001", text="first version", document_id="doc-1")
        last = Chunk(id="c001", text="second version glucose", document_id="doc-1")
        assert loaded.add([new, first, last]) == 3
        loaded.commit()
        assert loaded.count() == 8
        assert [h.id for h in loaded.search("melanoma", 10)] == ["c007"]
        assert loaded.search("aspirin", 10)[0].chunk == new
        assert loaded.search("version", 10)[0].chunk == last
        assert len(loaded.search("version", 10)) == 1

    def test_delete_document(self, loaded: LexicalIndex) -> None:
        assert loaded.chunk_ids_for_document("doc-0") == {"c000", "c003", "c006"}
        assert loaded.delete_document("doc-0") == 3
        loaded.commit()
        assert loaded.chunk_ids_for_document("doc-0") == set()
        assert loaded.count() == 5
        assert [h.id for h in loaded.search("melanoma", 10)] == ["c007"]
        assert loaded.delete_document("doc-0") == 0
        assert loaded.delete_document('doc-1" OR 1=1') == 0
        loaded.commit()
        assert loaded.count() == 5

    def test_delete_chunks_and_chunk_refs(self, loaded: LexicalIndex) -> None:
        assert sorted(loaded.chunk_refs()) == sorted((f"c{i:03d}", f"doc-{i % 3}") for i in range(8))
        assert sorted(loaded.chunk_refs(StoreFilter(document_ids=("doc-1",)))) == [
            ("c001", "doc-1"), ("c004", "doc-1"), ("c007", "doc-1")]
        assert list(loaded.chunk_refs(StoreFilter(kb_names=('kb1" OR "1"="1',)))) == []
        assert loaded.delete_chunks(["c001", "c004", "nope", "c001"]) == 2
        assert loaded.count() == 8  # buffered until commit
        loaded.commit()
        assert loaded.chunk_ids_for_document("doc-1") == {"c007"} and loaded.count() == 6
        assert loaded.delete_chunks([]) == 0

    def test_bm25_uses_index_wide_statistics(self, index: LexicalIndex) -> None:
        """Scores follow BM25 (k1 1.2, b 0.75) with N, df and avgdl over all segments."""
        chunks = [make_chunk(i) for i in range(len(TEXTS))]
        for start in range(0, len(chunks), 3):  # one segment per commit
            index.add(chunks[start : start + 3])
            index.commit()
        docs = [analyze(t) for t in TEXTS]
        n, avgdl = len(docs), sum(map(len, docs)) / len(docs)
        for term in ("melanoma", "inhibitor", "pd1"):
            df = sum(term in d for d in docs)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            hits = index.search(term, 10)
            assert len(hits) == df
            for hit in hits:
                doc = analyze(hit.chunk.text)
                tf = doc.count(term)
                expected = idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(doc) / avgdl))
                assert hit.score == pytest.approx(expected, rel=1e-5)

    def test_ranking_agrees_with_bm25s(self, index: LexicalIndex) -> None:
        """Same tokens, same BM25 (Lucene IDF): the store = (k1 + 1) x bm25s, top 10 identical.

        Documents stay under 40 terms, where tantivy's one-byte length norm is exact.
        """
        import bm25s  # the reference implementation, a development dependency

        rng = random.Random(42)
        vocab = ["tumour", "melanoma", "pd-1", "il-6", "insulin", "glucose", "kinase", "receptor",
                 "antibody", "trial", "cohort", "mouse", "survival", "dose", "toxicity", "gene",
                 "protein", "cell", "therapy", "risk", "肺癌", "治疗", "metformin", "aspirin"]
        weights = [1 / (r + 1) for r in range(len(vocab))]
        texts = [" ".join(rng.choices(vocab, weights, k=rng.randint(3, 10))) for _ in range(150)]
        index.add([Chunk(id=f"b{i:03d}", text=t, document_id="d") for i, t in enumerate(texts)])
        index.commit()
        tokens = [analyze(t) for t in texts]
        reference = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
        reference.index(tokens, show_progress=False)
        for query in ["melanoma survival", "PD-1 antibody therapy", "glucose insulin metformin",
                      "肺癌治疗", "kinase", "toxicity dose risk trial"]:
            expected = reference.get_scores(analyze_query(query))
            hits = index.search(query, top_k=10)
            ranked = sorted(range(len(texts)), key=lambda i: (-round(float(expected[i]), 4), i))
            assert [h.id for h in hits] == [f"b{i:03d}" for i in ranked[:10]]
            for hit in hits:
                assert hit.score == pytest.approx(2.2 * float(expected[int(hit.id[1:])]), rel=1e-4)

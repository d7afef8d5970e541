"""The three engines over the same cards: ``index`` (tantivy), ``bm25`` (pure Python), ``substring``
(docs/datasets.md, section 7)."""

from eagle_rag_datasets.search.engines.base import Engine, ScoringEngine, WeightedTerm

__all__ = ["Engine", "ScoringEngine", "WeightedTerm"]

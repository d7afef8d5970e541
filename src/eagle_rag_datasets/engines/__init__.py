"""The three engines over the same cards: ``index`` (tantivy), ``bm25`` (pure Python), ``substring``."""

from eagle_rag_datasets.engines.base import Engine, ScoringEngine, WeightedTerm

__all__ = ["Engine", "ScoringEngine", "WeightedTerm"]

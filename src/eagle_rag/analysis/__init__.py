"""The shared analyzer."""
from eagle_rag.analysis.analyzer import analyze, analyze_query, cjk_ratio, compact_name, normalize

__all__ = ["analyze", "analyze_query", "cjk_ratio", "compact_name", "normalize"]

"""The shared analyzer."""
from eagle_rag.analysis.analyzer import analyze, analyze_query, cjk_ratio, compact_name, normalize
from eagle_rag.analysis.language import CJK_MIN_RATIO, Language, model_covers, text_language

__all__ = ["CJK_MIN_RATIO", "Language", "analyze", "analyze_query", "cjk_ratio", "compact_name", "model_covers",
           "normalize", "text_language"]

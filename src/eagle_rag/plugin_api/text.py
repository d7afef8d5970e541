"""Text and path helpers a plugin shares with the core: the analyzer's normalisation and terms,
script detection, display paths and file names.

Part of the plugin API (:mod:`eagle_rag.plugin_api`): stable, and the only place a plugin takes these from.
"""

from __future__ import annotations

from eagle_rag.analysis import analyze, cjk_ratio, compact_name, model_covers, normalize
from eagle_rag.redact import public_path
from eagle_rag.stores.registry import source_file_name

__all__ = ["analyze", "cjk_ratio", "compact_name", "model_covers", "normalize", "public_path", "source_file_name"]

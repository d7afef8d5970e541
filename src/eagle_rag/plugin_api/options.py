"""A plugin's options block: validation with the nearest-name message, and the marker of options that
change what the index holds.

Part of the plugin API (:mod:`eagle_rag.plugin_api`): stable, and the only place a plugin takes these from.
"""

from __future__ import annotations

from eagle_rag.kernel.plugin_options import WRITES_INDEX, validate_plugin_options

__all__ = ["WRITES_INDEX", "validate_plugin_options"]

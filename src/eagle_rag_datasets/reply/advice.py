"""How a dataset reply asks for a longer list, and each surface's own words for it.

The reply says :data:`MORE_CARDS` when it shows fewer cards than match; each surface names its own
control and limit instead (:func:`naming_control`): the MCP tool ``top_k`` (at most 50), the CLI
``--k`` (at most 100), the console's "Cards" field (at most 100; ``js/datasets.js``). The HTTP API
keeps the neutral words, which its own ``top_k`` answers.
"""

from __future__ import annotations

MORE_CARDS = "Ask for more cards"
"""The words of a reply that shows fewer cards than match (the HTTP answer keeps them)."""


def naming_control(message: str, control: str, limit: int) -> str:
    """``message`` with :data:`MORE_CARDS` replaced by ``Raise CONTROL (at most LIMIT)``."""
    return message.replace(MORE_CARDS, f"Raise {control} (at most {limit})")

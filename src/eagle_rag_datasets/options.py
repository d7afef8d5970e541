"""The datasets plugin's options (``settings.plugins.options.datasets``), declared to the core.

The core checks the block against :class:`DatasetsOptions` when the engine starts (an unknown key
is an error naming its nearest valid name) and ``eagle-rag config show`` lists each option.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class DatasetsOptions(BaseModel):
    """Every knob of the datasets plugin."""

    model_config = ConfigDict(extra="forbid")

    cards_path: str | None = Field(
        None, description="dataset-card catalog (JSONL) that datasets search and check read; unset = the "
        "bundled cards; a file that does not exist stops the start")

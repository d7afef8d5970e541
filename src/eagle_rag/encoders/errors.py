"""Errors raised by the encoder layer."""

from __future__ import annotations


class EncoderLoadError(RuntimeError):
    """A model could not be found or loaded (missing files, missing optional extra, hub unreachable).

    The message always says which label / model reference failed and what to do about it.
    """

"""The language of a text as the rerankers see it: decided by script, like the query router.

A text whose letters are at least :data:`CJK_MIN_RATIO` CJK characters counts as Chinese
(``zh``), so a mixed Chinese-English query counts as Chinese, as it does for routing; any other
text counts as English (``en``): the bundled corpora and models are English or Chinese. A model
declares the languages it was trained on (``EncoderSpec.languages``); an empty set means any.
See docs/architecture.md, "Rerankers and languages".
"""

from __future__ import annotations

from collections.abc import Collection
from enum import StrEnum

from eagle_rag.analysis.analyzer import cjk_ratio

CJK_MIN_RATIO = 0.05
"""A text with at least this share of CJK letters is Chinese for routing and reranking."""


class Language(StrEnum):
    EN = "en"
    ZH = "zh"


def text_language(text: str) -> Language:
    """``zh`` when at least :data:`CJK_MIN_RATIO` of the letters are CJK, else ``en``."""
    return Language.ZH if cjk_ratio(text) >= CJK_MIN_RATIO else Language.EN


def model_covers(languages: Collection[str], text: str) -> bool:
    """True when a model trained on ``languages`` (empty: any) may score ``text``."""
    return not languages or text_language(text).value in languages

"""The profile the tests of the core run: ``general``, the core's own pipeline.

A plain install runs ``biomed`` (:data:`eagle_rag.settings.DEFAULT_PROFILE`). A test of the core builds
its settings with ``GENERAL`` as their environment (``load_settings(environ=GENERAL, ...)``), and the
processes a test starts get ``EAGLE_RAG_PROFILE=general`` (``tests/conftest.py`` sets it for the
processes that inherit the test's environment; helpers that build an environment from scratch set it
themselves). A test of the biomedical pipeline, or of the default, says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

GENERAL: Mapping[str, str] = MappingProxyType({"EAGLE_RAG_PROFILE": "general"})

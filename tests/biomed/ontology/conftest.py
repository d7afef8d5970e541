"""Fixtures of the ontology tests: the packaged ontology, built once per session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("ahocorasick")

from eagle_rag_biomed.ontology import umls  # noqa: E402


@pytest.fixture(scope="session")
def packaged() -> umls.Ontology:
    """The real ontology: curated rules + the packaged compiled vocabulary (no MRCONSO)."""
    return umls.build_ontology(environ={})


@pytest.fixture
def use_packaged(packaged: umls.Ontology) -> Iterator[umls.Ontology]:
    """Make the packaged ontology the process-wide one for the API functions."""
    umls.set_ontology(packaged)
    yield packaged
    umls.reset_ontology_cache()

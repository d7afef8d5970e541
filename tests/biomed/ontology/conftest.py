"""Fixtures of the ontology tests: the packaged ontology (built once) and small hand-made ones."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ahocorasick")

from eagle_rag_biomed.ontology import umls  # noqa: E402
from eagle_rag_biomed.ontology.vocabulary import VocabularyEntry  # noqa: E402

ONTOLOGY_SOURCES = Path(__file__).resolve().parents[4] / "shared" / "data" / "ontology"


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


def small_vocabulary() -> list[VocabularyEntry]:
    """A few compiled entries in the packaged format."""
    return [
        VocabularyEntry("CAT", "gene", {"hgnc": "HGNC:1516"}, ["catalase"]),
        VocabularyEntry("SET", "gene", {"hgnc": "HGNC:10760"}, ["SET nuclear proto-oncogene"]),
        VocabularyEntry("FLT1", "gene", {"hgnc": "HGNC:3763"}, ["VEGFR1", "FLT"]),
        VocabularyEntry("KMT2A", "gene", {"hgnc": "HGNC:7132"}, ["MLL", "lysine methyltransferase 2A"]),
        VocabularyEntry("Zongertinib", "drug", {"drugbank": "DB99999"}, []),
        VocabularyEntry("Acetaminophen", "drug", {"drugbank": "DB00316"}, ["Paracetamol", "APAP"]),
        VocabularyEntry("Imatinib", "drug", {"drugbank": "DB00619"}, ["Imatinibum", "CGP 57148"]),
        VocabularyEntry("angiosarcoma", "disease", {"doid": "DOID:0001816", "cui": "C0018923"},
                        ["hemangiosarcoma"]),
    ]


@pytest.fixture
def small() -> Iterator[umls.Ontology]:
    """Curated rules + :func:`small_vocabulary`, installed as the process-wide ontology."""
    ontology = umls.build_ontology(vocabulary=small_vocabulary(), environ={})
    umls.set_ontology(ontology)
    yield ontology
    umls.reset_ontology_cache()

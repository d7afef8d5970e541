"""A small compiled vocabulary in the packaged format, for fast tests of merging and matching."""

from __future__ import annotations

from pathlib import Path

from eagle_rag_biomed.ontology.vocabulary import VocabularyEntry

ONTOLOGY_SOURCES = Path(__file__).resolve().parents[4] / "shared" / "data" / "ontology"


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

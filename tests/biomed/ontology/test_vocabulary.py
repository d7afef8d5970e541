"""The compiled vocabulary: scale, specific lookups per source, the synonym filters."""

from __future__ import annotations

import pytest

from eagle_rag_biomed.ontology import umls
from eagle_rag_biomed.ontology.common_words import packaged_common_words
from eagle_rag_biomed.ontology.compiler.filters import SurfaceKind, keep_surface, uninvert
from eagle_rag_biomed.ontology.vocabulary import packaged_vocabulary

from .vocab_fixtures import small_vocabulary

pytestmark = pytest.mark.unit

COMMON = packaged_common_words()


def test_scale_of_the_packaged_vocabulary() -> None:
    entries = packaged_vocabulary()
    by_type: dict[str, int] = {}
    for entry in entries:
        by_type[entry.type] = by_type.get(entry.type, 0) + 1
    assert by_type["drug"] > 15_000  # DrugBank open vocabulary: 19,842 drugs, a few dropped as words
    assert by_type["gene"] > 40_000  # HGNC: 43,882 approved symbols
    assert by_type["disease"] > 12_000  # DO 12,296 terms + MeSH C descriptors not in DO
    assert by_type["chemical"] > 5_000  # MeSH D descriptors not in DrugBank
    assert sum(len(e.synonyms) for e in entries) > 150_000


@pytest.mark.usefixtures("use_packaged")
@pytest.mark.parametrize(("name", "canonical", "id_name", "id_value"), [
    ("paracetamol", "Acetaminophen", "drugbank", "DB00316"),  # DrugBank synonym -> drug
    ("MLL", "KMT2A", "hgnc", "HGNC:7132"),  # HGNC previous symbol -> current symbol
    ("Pulmonary Neoplasms", "Lung Neoplasms", "mesh", "D008175"),  # MeSH entry term -> descriptor
    ("hemangiosarcoma", "angiosarcoma", "doid", "DOID:0001816"),  # DO synonym -> DO term
])
def test_lookups_per_source(name: str, canonical: str, id_name: str, id_value: str) -> None:
    result = umls.resolve_entity(name)
    assert result["entity"] == canonical and result["ids"][id_name] == id_value


@pytest.mark.usefixtures("use_packaged")
def test_do_disease_carries_its_umls_cui() -> None:
    assert umls.resolve_entity("angiosarcoma")["cui"] == "C0018923"
    assert umls.resolve_entity("lung non-small cell carcinoma")["cui"] == "C0007131"


@pytest.mark.usefixtures("use_packaged")
def test_mesh_chemicals_merge_into_drugbank_drugs() -> None:
    imatinib = umls.resolve_entity("Imatinib Mesylate")
    assert imatinib["entity"] == "imatinib"  # curated, with DrugBank and MeSH ids merged in
    assert imatinib["ids"]["drugbank"] == "DB00619" and imatinib["ids"]["mesh"] == "D000068877"


@pytest.mark.usefixtures("use_packaged")
def test_common_words_do_not_resolve_to_compiled_drugs() -> None:
    assert umls.resolve_entity("water")["found"] is False
    assert umls.resolve_entity("chicken")["found"] is False
    assert umls.match_entities("Water intake", include_keywords=False) == []
    water = umls.resolve_entity("Dihydrogen oxide")  # the DrugBank entry stays, through its synonyms
    assert water["found"] is True and water["entity"] == "Water"


def test_small_vocabulary_merge_into_curated() -> None:
    ontology = umls.build_ontology(vocabulary=small_vocabulary(), environ={})
    imatinib = ontology.index.resolve("CGP 57148")
    assert imatinib is not None and imatinib.canonical == "imatinib" and imatinib.source == "curated"
    assert imatinib.ids == {"drugbank": "DB00619"}
    assert imatinib.aliases[:2] == ["Gleevec", "Glivec"]  # curated aliases stay first


@pytest.mark.parametrize(("surface", "kind", "kept"), [
    ("SET", SurfaceKind.GENE_SYMBOL, True),  # approved symbols always stay (the matcher guards them)
    ("WAS", SurfaceKind.GENE_ALIAS, False),  # an alias that is a common word
    ("HER-2", SurfaceKind.GENE_ALIAS, True),
    ("CI", SurfaceKind.GENE_ALIAS, False),  # a statistics abbreviation
    ("Water", SurfaceKind.DRUG, False),
    ("Chicken", SurfaceKind.DRUG, False),
    ("Caffeine", SurfaceKind.DRUG, True),
    ("Gleevec", SurfaceKind.DRUG, True),
    ("NO", SurfaceKind.DRUG, False),  # a short abbreviation that is a word
    ("cAMP", SurfaceKind.DRUG, True),  # longer: kept, guarded at match time
    ("12345", SurfaceKind.DRUG, False),
    ("ab", SurfaceKind.DISEASE, False),
    ("cancer", SurfaceKind.DISEASE, True),
    ("syndrome", SurfaceKind.DISEASE, False),
    ("x" * 101, SurfaceKind.CHEMICAL, False),
])
def test_keep_surface(surface: str, kind: SurfaceKind, kept: bool) -> None:
    assert keep_surface(surface, kind, COMMON) is kept


@pytest.mark.parametrize(("term", "natural"), [
    ("Neoplasms, Lung", "Lung Neoplasms"),
    ("Carcinoma, Non-Small-Cell Lung", "Non-Small-Cell Lung Carcinoma"),
    ("Benzene, 1,2-dichloro-", None),
    ("Acids, Amino (L)", None),
    ("Lung Neoplasms", None),
])
def test_uninvert(term: str, natural: str | None) -> None:
    assert uninvert(term) == natural

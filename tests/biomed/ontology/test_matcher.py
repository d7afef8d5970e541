"""The Aho-Corasick matcher: the letter-boundary table, digit families, guards, overlaps."""

from __future__ import annotations

import time

import pytest

from eagle_rag_biomed.ontology import umls

pytestmark = pytest.mark.unit


def names(ontology: umls.Ontology, text: str, keywords: bool = False) -> list[str]:
    return [m.canonical for m in ontology.matcher.match(text) if keywords or m.type.value != "keyword"]


# The letter-boundary table ("字母边界匹配"): query -> entities.
@pytest.mark.parametrize(("query", "expected"), [
    ("VEGFR1 expression", ["VEGFR"]),  # EGFR is not found inside VEGFR; VEGFR takes its digit
    ("EGFR mutation", ["EGFR"]),
    ("PD-1 inhibitor", ["PD-1"]),  # the hyphen is kept
    ("metastatic site", []),  # MET is not found inside metastatic
])
def test_letter_boundary_table(packaged: umls.Ontology, query: str, expected: list[str]) -> None:
    curated = [m.canonical for m in packaged.matcher.match(query) if m.source == "curated"
               and m.type.value != "keyword"]
    assert curated == expected


def test_egfr_never_inside_vegfr(packaged: umls.Ontology) -> None:
    assert "EGFR" not in names(packaged, "VEGFR VEGFR2 VEGFR-3 anti-VEGFR therapy")


def test_vegfr_matches_inside_a_digit_range(packaged: umls.Ontology) -> None:
    [match] = packaged.matcher.match("VEGFR1-3 inhibitors")[:1]
    assert match.canonical == "VEGFR" and match.text == "VEGFR1-3" and match.span == (0, 8)


def test_digit_suffix_only_where_the_rules_allow_it(packaged: umls.Ontology) -> None:
    assert names(packaged, "BRCA1/2 carriers") == ["BRCA1/2"]
    assert names(packaged, "PARP1 trapping") == ["PARP"]
    assert "IL-6" not in names(packaged, "IL-60 levels")  # IL-6 has no digit suffix
    assert names(packaged, "EGFR2") == []  # nor has EGFR


def test_pd1_keeps_its_hyphen(packaged: umls.Ontology) -> None:
    match = next(m for m in packaged.matcher.match("anti-PD-1 antibody") if m.canonical == "PD-1")
    assert match.text == "PD-1"


@pytest.mark.parametrize("text", ["the cat sat", "a set of genes", "we met the criteria", "Cat food",
                                  "the kit was used", "camp site"])
def test_common_words_are_not_genes(packaged: umls.Ontology, text: str) -> None:
    assert names(packaged, text) == []


@pytest.mark.parametrize(("text", "gene"), [
    ("CAT gene expression", "CAT"),  # upper case
    ("cat gene expression", "CAT"),  # gene context right after it
    ("expression of SET", "SET"),
    ("MET amplification", "MET"),
    ("met amplification", "MET"),
    ("KIT mutation", "KIT"),
])
def test_guarded_symbols_match_in_upper_case_or_gene_context(packaged: umls.Ontology, text: str,
                                                             gene: str) -> None:
    assert gene in names(packaged, text)


def test_written_form_decides_between_homonyms(packaged: umls.Ontology) -> None:
    assert [m.type.value for m in packaged.matcher.match("cAMP") ] == ["drug"]  # cyclic AMP, not CAMP
    assert [m.canonical for m in packaged.matcher.match("CAMP gene")][:1] == ["CAMP"]


def test_longest_match_wins_and_curated_entities_nest(packaged: umls.Ontology) -> None:
    matches = packaged.matcher.match("small cell lung cancer")
    assert [(m.canonical, m.span) for m in matches][0] == ("Small Cell Lung Carcinoma", (0, 22))
    assert ("lung cancer", (11, 22)) in [(m.canonical, m.span) for m in matches]
    assert names(packaged, "non-small cell lung cancer") == ["non-small cell lung cancer"]


def test_keywords_fill_the_gaps(packaged: umls.Ontology) -> None:
    matches = packaged.matcher.match("EGFR kinase mutation")
    assert [(m.canonical, m.type.value) for m in matches] == [
        ("EGFR", "gene"), ("kinase", "keyword"), ("mutation", "keyword")]
    assert names(packaged, "kinases", keywords=True) == []  # keywords match whole words only


def test_spans_point_into_the_original_text(packaged: umls.Ontology) -> None:
    text = "Patients on Ｇｌｅｅｖｅｃ  (imatinib) with Cétuximab"
    for match in packaged.matcher.match(text):
        assert text[match.span[0]:match.span[1]] == match.text
    assert [m.canonical for m in packaged.matcher.match(text)] == ["imatinib", "imatinib", "cetuximab"]


def test_match_fields(packaged: umls.Ontology) -> None:
    [match] = packaged.matcher.match("aspirin")
    assert (match.canonical, match.type.value, match.cui, match.span, match.text, match.source) == (
        "aspirin", "drug", "C0004057", (0, 7), "aspirin", "curated")


def test_empty_and_unmatched_text(packaged: umls.Ontology) -> None:
    assert packaged.matcher.match("") == []
    assert packaged.matcher.match("1234 --- ...") == []


def test_match_latency_under_one_millisecond(packaged: umls.Ontology) -> None:
    queries = ["osimertinib resistance in EGFR-mutant NSCLC", "VEGFR1-3 inhibitors such as fruquintinib",
               "MET amplification after capmatinib", "the cat sat on the mat", "warfarin dosing and CYP2C9"]
    packaged.matcher.match(queries[0])
    started = time.perf_counter()
    for index in range(500):
        packaged.matcher.match(queries[index % len(queries)])
    assert (time.perf_counter() - started) / 500 < 0.001

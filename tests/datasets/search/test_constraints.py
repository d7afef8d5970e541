"""Constraint terms: which query words constrain, which cards satisfy them, and the message."""

from __future__ import annotations

import pytest

from eagle_rag_datasets import DatasetCatalog
from eagle_rag_datasets.search.constraints import ConstraintKind, detect
from eagle_rag_datasets.search.semantic import semantic_text
from tests.datasets.conftest import card

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def cards() -> DatasetCatalog:
    return DatasetCatalog.from_records([
        card("k/en", "Notes EN", "English discharge summaries.", languages=["English"]),
        card("k/pl", "Notes PL", "Polish clinical notes.", languages=["pol-Latn"]),
        card("k/any", "No Language", "A card that lists no language."),
        card("k/img", "Skin Photos", "Dermoscopic images of skin lesions.", languages=["English"]),
        card("k/mouse", "Murine Genes", "Gene mentions in mouse studies.", languages=["English"]),
        card("k/birds", "Bird Calls", "Rank wildlife audio recordings by taxon.", languages=["English"]),
    ])


def kinds(found) -> list[tuple[str, str, int]]:
    return [(c.kind.value, c.term, len(c.cards)) for c in found]


def test_language_terms_in_english_and_chinese(cards):
    # k/any lists no language, so it contradicts none
    assert kinds(cards.constraints("Polish discharge summaries")) == [("language", "polish", 2)]
    assert kinds(cards.constraints("芬兰语 临床 语料")) == [("language", "芬兰语", 1)]
    assert cards.constraints("Traditional Chinese Medicine corpus") == []  # no language named


def test_modality_species_and_specific_images(cards):
    assert kinds(cards.constraints("chest X-ray dataset")) == [("modality", "x-ray", 0)]
    # a dermoscopy card holds images: the generic group includes every specific kind of image
    assert kinds(cards.constraints("skin images")) == [("modality", "images", 1)]
    assert kinds(cards.constraints("mice gene corpus")) == [("species", "mice", 1)]
    assert kinds(cards.constraints("sensor data of patients")) == []  # "sensor" only on the card side


def test_a_card_about_wildlife_or_taxa_satisfies_an_animal_request(cards):
    # 动物 (animals) inside 野生动物 (wildlife): the card says "wildlife", never "animal"; before the card-side
    # words of the animal group included it, this request was answered "no card is about animals (0 of 6)"
    found = cards.constraints("野生动物叫声音频检索")
    assert [(c.kind.value, c.term, sorted(cards.card_ids[i] for i in c.cards)) for c in found] == [
        ("modality", "音频", ["k/birds"]), ("species", "动物", ["k/birds"])]
    assert kinds(cards.constraints("wildlife sounds")) == [("species", "wildlife", 1)]


def test_named_datasets_constrain_only_when_no_card_carries_them(cards):
    found = cards.constraints("MIMIC-IV notes for ImageNet-style training")
    assert [(c.term, len(c.cards), c.restricts) for c in found] == [("MIMIC-IV", 0, True), ("ImageNet-style", 0, True)]
    # "NotesPL" is a card's name with the space left out: that card carries it (named first), no restriction
    named = [c for c in cards.constraints("GeneTag or NotesPL") if c.kind is ConstraintKind.NAME]
    assert [(c.term, sorted(c.cards), sorted(c.named), c.restricts) for c in named] == [
        ("GeneTag", [], [], True), ("NotesPL", [1], [1], False)]


def test_the_message_names_the_term_and_counts():
    found = detect("Greek abstracts", {"en": frozenset({0, 1})}, frozenset(), lambda kind, group: frozenset(),
                   lambda token: (frozenset(), frozenset()))
    assert found[0].message(386) == "no card in the catalog is in Greek (0 of 386)"
    assert found[0].to_dict(386) == {"kind": "language", "term": "greek", "label": "Greek", "cards": 0, "of": 386}


def test_the_semantic_text_of_a_chinese_query_drops_its_language_terms(cards):
    text = "有没有英文的药物相互作用语料"
    assert semantic_text(text, cards.constraints(text)) == "有没有 的药物相互作用语料"
    assert semantic_text("中文", cards.constraints("中文")) == "中文"  # nothing else left: the query as it is
    mixed = "English 的 临床 语料"  # a Chinese query naming the language in English: the folded term, any case
    assert semantic_text(mixed, cards.constraints(mixed)) == "的 临床 语料"
    latin = "Polish discharge summaries"  # a Latin query is encoded whole
    assert semantic_text(latin, cards.constraints(latin)) == latin


def test_uk_names_the_united_kingdom(cards):
    assert kinds(cards.constraints("UK hospital records")) == [("country", "uk", 0)]

"""Licences named in a request's text: which words are licences, the cards satisfying them, the message."""

from __future__ import annotations

import pytest

from eagle_rag_datasets import DatasetCatalog
from tests.datasets.conftest import card

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def licensed() -> DatasetCatalog:
    return DatasetCatalog.from_records([
        card("x/apache", "SNP Mentions", "SNP mentions in PubMed citations.", license="Apache License 2.0"),
        card("x/apache2", "Edit Retrieval", "Retrieval of edits.", license="apache-2.0"),
        card("x/ccby", "Gene Tags", "Gene mentions.", license="CC_BY_4p0"),
        card("x/ncsa", "Chem Pairs", "Chemistry text pairs.", license="cc-by-nc-sa-4.0"),
        card("x/cc0", "Term Pairs", "Clinical term pairs.", license="Creative Commons Zero v1.0 Universal"),
        card("x/gpl", "Cancer Abstracts", "Sentence classes of cancer abstracts.",
             license="GNU General Public License v3.0 only"),
        card("x/icu", "ICU Scores", "APACHE scores of ICU stays.", license="Data User Agreement"),
    ])


def licences(catalog: DatasetCatalog, text: str) -> list[tuple[str, bool, list[str]]]:
    return [(c.label, c.excluded, sorted(catalog.card_ids[i] for i in c.cards))
            for c in catalog.constraints(text) if c.kind.value == "license"]


def test_licences_named_in_the_text_are_one_constraint_of_alternatives(licensed):
    # before: no licence was read from the text ("CC0" was even a dataset name no card carries: an empty answer)
    assert licences(licensed, "法务只批准了 Apache 2.0 许可证的数据") == [
        ("apache-2.0", False, ["x/apache", "x/apache2"])]
    assert licences(licensed, "only CC0 or public-domain data") == [("cc0 or public-domain", False, ["x/cc0"])]
    assert [c.kind.value for c in licensed.constraints("only CC0 data")] == ["license"]
    assert licences(licensed, "GPL 或 GFDL 许可的语料") == [("gpl or gfdl", False, ["x/gpl"])]
    assert licences(licensed, "chemistry pairs under CC BY-NC-SA 4.0") == [("cc-by-nc-sa-4.0", False, ["x/ncsa"])]
    # CC BY of any version, but not the NC-SA variant
    assert licences(licensed, "gene corpora licensed CC-BY") == [("cc-by", False, ["x/ccby"])]


def test_a_licence_word_that_names_something_else_is_no_licence(licensed):
    assert licences(licensed, "ICU tables with APACHE scores") == []
    assert licences(licensed, "MIT clinical notes") == []  # the institute: no "licence" after it
    assert licences(licensed, "MIT-licensed clinical notes") == [("mit", False, [])]


def test_a_ruled_out_licence_is_excluded_and_an_unmet_one_empties_the_answer(licensed):
    assert licences(licensed, "term pairs, but not CC0") == [
        ("a licence other than cc0", True, ["x/apache", "x/apache2", "x/ccby", "x/gpl", "x/icu", "x/ncsa"])]
    answer = licensed.search("MIT-licensed clinical notes")
    assert answer.hits == () and "no card in the catalog is licensed mit (0 of 7)" in answer.message
    assert [h.id for h in licensed.search("gene mentions under CC BY 4.0", semantic=False).hits] == ["x/ccby"]

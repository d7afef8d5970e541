"""Requests that ask by homepage: the host words of a request and the cards they name or rule out."""

from __future__ import annotations

import pytest

from eagle_rag_datasets import DatasetCatalog
from tests.datasets.conftest import card

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def hosted() -> DatasetCatalog:
    github = [card(f"g/{n}", f"Corpus {n}", "Gene mentions in abstracts.", homepage=f"https://github.com/lab{n}/x")
              for n in range(25)]
    return DatasetCatalog.from_records([
        card("s/linnaeus", "LINNAEUS", "Species mentions in full texts.", homepage="http://linnaeus.sourceforge.net/"),
        card("s/mf", "MutationFinder", "Mutation mentions in abstracts.", homepage="http://mutationfinder.sourceforge.net"),
        card("z/ggponc", "GGPONC", "German oncology guidelines with entities.", homepage="https://zenodo.org/record/1"),
        card("u/umnsrs", "UMNSRS", "Relatedness of clinical term pairs.",
             homepage="https://conservancy.umn.edu/handle/11299/196265"),
        card("u/biosses", "BIOSSES", "Sentence similarity of biomedical sentence pairs.",
             homepage="https://tabilab.cmpe.boun.edu.tr/BIOSSES/"),
        card("b/cblue", "CBLUE", "Chinese biomedical language understanding.", homepage="https://github.com/CBLUEbenchmark/CBLUE"),
        *github,
    ])


def hosts(catalog: DatasetCatalog, text: str) -> list[tuple[str, bool, int]]:
    return [(c.term, c.excluded, len(c.cards)) for c in catalog.constraints(text) if c.kind.value == "name"]


def ids(catalog: DatasetCatalog, text: str) -> list[str]:
    return [hit.id for hit in catalog.search(text).hits]


@pytest.mark.integration
def test_a_request_by_homepage_names_the_cards_at_that_host(hosted):
    # before: no card says "Zenodo" and the word is no name, so the cards at zenodo.org were not asked for
    text = "Our policy says every dataset we cite must have its home page on Zenodo. Which corpora qualify?"
    assert hosts(hosted, text) == [("Zenodo", False, 1)]
    assert ids(hosted, text)[0] == "z/ggponc"


@pytest.mark.integration
def test_a_host_after_a_negation_is_ruled_out(hosted):
    text = "sentence and term similarity datasets, excluding the ones hosted on conservancy.umn.edu"
    assert ("conservancy", True, 30) in hosts(hosted, text)
    assert "u/umnsrs" not in ids(hosted, text)


def test_no_host_without_a_homepage_cue_nor_for_a_host_of_many_or_a_dataset_name(hosted):
    assert hosts(hosted, "German oncology guidelines with entity annotations from Zenodo") == []  # not by homepage
    assert hosts(hosted, "every corpus whose homepage is on github") == []  # 26 cards: a host of many
    assert hosts(hosted, "entries whose home page points to CBLUE") == []  # a word of a card's name


@pytest.fixture(scope="module")
def orgs() -> DatasetCatalog:
    return DatasetCatalog.from_records([
        card("c/verb", "BioSimVerb", "Verb similarity pairs.", homepage="https://github.com/cambridgeltl/bio-sim-verb"),
        card("c/dlg", "MedDialog", "Doctor-patient dialogues.", homepage="https://github.com/UCSD-AI4H/Medical-Dialogue-System"),
        card("c/tcm", "中医知识图谱", "中医医案知识图谱", homepage="https://github.com/x/tcm-kg"),
        card("c/sf", "MutationFinder", "Mutation mentions.", homepage="http://mutationfinder.sourceforge.net"),
    ])


def test_a_host_named_like_a_dataset_or_in_a_short_request_names_its_cards(orgs):
    # before: "SourceForge" was a name carried by the card at that host, but not one of its names (no rank first)
    found = orgs.constraints("Which datasets have their home or download page on SourceForge?")
    assert [(c.term, sorted(orgs.card_ids[i] for i in c.named)) for c in found] == [("SourceForge", ["c/sf"])]
    # before: a short request of an organisation in small letters named nothing ("cambridgeltl" is no name)
    assert hosts(orgs, "cambridgeltl datasets") == [("cambridgeltl", False, 1)]
    # before: nothing named the card of the repository UCSD-AI4H/Medical-Dialogue-System
    named = {orgs.card_ids[i] for c in orgs.constraints("UCSD-AI4H Medical-Dialogue-System") for i in c.named}
    assert named == {"c/dlg"}
    assert hosts(orgs, "TCM 问答") == []  # a bare acronym in a short request is a topic

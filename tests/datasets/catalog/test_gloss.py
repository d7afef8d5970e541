"""English glosses of Chinese text (eagle_rag_datasets.catalog.gloss): forward maximum matching, the
synonym file over CC-CEDICT, function words left out, Latin text kept."""

from __future__ import annotations

import pytest

from eagle_rag_datasets.catalog.gloss import build_glossary, default_glossary, has_chinese

ENTRIES = [
    {"simplified": "药物", "definitions": ["medicaments", "pharmaceuticals"]},
    {"simplified": "不良", "definitions": ["bad", "harmful"]},
    {"simplified": "反应", "definitions": ["to react", "reaction"]},
    {"simplified": "不良反应", "definitions": ["adverse reaction"]},
    {"simplified": "语料", "definitions": ["(linguistics) language material"]},
    {"simplified": "语料库", "definitions": ["corpus"]},
    {"simplified": "王", "definitions": ["surname Wang", "king"]},
    {"simplified": "的", "definitions": ["of"]},
    {"simplified": "分类", "definitions": ["to classify"]},
    {"simplified": "分类", "definitions": ["a second entry of the same word"]},
]


@pytest.mark.unit
def test_the_longest_word_wins_and_senses_are_bare():
    glossary = build_glossary(ENTRIES, [])
    assert glossary.segment("药物不良反应语料库") == ["药物", "不良反应", "语料库"]  # not 不良 + 反应, not 语料 + 库
    # the first usable sense: brackets and a leading "to" dropped, a note about the word ("surname") skipped,
    # the first entry of a word kept
    assert glossary.words["语料"] == "language material"
    assert glossary.words["分类"] == "classify"
    assert glossary.words["王"] == "king"


@pytest.mark.unit
def test_synonym_terms_win_over_the_dictionary_and_function_words_go():
    glossary = build_glossary(ENTRIES, [("药物", "drug")])
    # 的 is a function word; the unknown 库 alone (after 语料 would have been cut) is dropped; Latin stays
    assert glossary.gloss("ADR 药物的不良反应，分类") == "ADR drug adverse reaction classify"
    assert glossary.gloss("no Chinese here") == "no Chinese here"
    assert has_chinese("MIMIC 病历") and not has_chinese("MIMIC notes")


@pytest.mark.integration
def test_the_default_glossary_reads_cc_cedict_under_the_synonym_file():
    glossary = default_glossary()
    # 命名实体识别 is a synonym-file term (the group's first English term); 社交媒体 and 知识库 come from CC-CEDICT
    assert glossary.gloss("命名实体识别") == "named entity recognition"
    assert glossary.gloss("社交媒体 知识库") == "social media knowledge base"

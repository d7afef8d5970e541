"""Constraint terms: which query words constrain, which cards satisfy them, and the message."""

from __future__ import annotations

import pytest

from eagle_rag_datasets import DatasetCatalog
from eagle_rag_datasets.search.constraints import CJK_TEXT, GROUPS, ConstraintKind, detect
from eagle_rag_datasets.search.languages import language_words
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
    # no language named (the topic "traditional chinese medicine", which no card of this catalog mentions, aside)
    assert [c for c in cards.constraints("Traditional Chinese Medicine corpus") if c.kind.value != "topic"] == []


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
    found = cards.constraints("MIMIC-IV notes for ImageNet-style training")  # "-style" compares, names no data
    assert [(c.term, len(c.cards), c.restricts) for c in found] == [("MIMIC-IV", 0, True)]
    # "NotesPL" is a card's name with the space left out: that card carries it (named first), no restriction
    named = [c for c in cards.constraints("GeneTag or NotesPL") if c.kind is ConstraintKind.NAME]
    assert [(c.term, sorted(c.cards), sorted(c.named), c.restricts) for c in named] == [
        ("GeneTag", [], [], True), ("NotesPL", [1], [1], False)]


def test_the_message_names_the_term_and_counts():
    found = detect("Greek abstracts", {"en": frozenset({0, 1})}, frozenset(), lambda kind, group: frozenset(),
                   lambda token: (frozenset(), frozenset()))
    assert found[0].message(386) == "no card in the catalog is in Greek (0 of 386)"
    assert found[0].to_dict(386) == {"kind": "language", "term": "greek", "label": "Greek", "cards": 0, "of": 386,
                                   "excluded": False}


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


def test_a_name_no_card_carries_constrains_only_when_it_is_the_data_asked_for(cards):
    # before: both requests were emptied ("no card in the catalog names microRNA / PaddlePaddle (0 of 6)")
    assert kinds(cards.constraints("Working on microRNA literature curation, need annotated abstracts")) == []
    assert kinds(cards.constraints("the Baidu PaddlePaddle biomedical language model")) == []
    # the request's first word, or a name followed within three words by a data noun, stays a constraint
    assert kinds(cards.constraints("emrQA question-answer pairs")) == [("name", "emrQA", 0)]
    assert kinds(cards.constraints("I need the MIMIC-IV ICU notes")) == [("name", "MIMIC-IV", 0)]


def test_languages_come_from_the_iso_639_tables_in_english_and_chinese(cards):
    # before: Icelandic, Yoruba and 藏语 were in no word list, so nothing constrained these requests
    # (1: only k/any, which lists no language and so contradicts none)
    assert kinds(cards.constraints("Icelandic health FAQ pairs")) == [("language", "icelandic", 1)]
    assert kinds(cards.constraints("藏语医学文本语料")) == [("language", "藏语", 1)]
    assert ("language", "yoruba", 1) in kinds(cards.constraints("Yoruba-English parallel sentences"))
    # Cantonese is a language of its own: a Mandarin card does not satisfy it
    assert kinds(cards.constraints("粤语 问诊 对话")) == [("language", "粤语", 1)]
    assert cards.constraints("Latin American patient notes") == []  # an ordinary word, left out


def test_the_written_languages_of_chinas_peoples_and_kyrgyz_in_chinese_are_languages(cards):
    # before: 布依语 and 侗语 (ISO 639-3 only) and 吉尔吉斯语 (the table says 柯尔克孜语) constrained nothing, so the
    # Chinese health cards answered these requests as neighbours
    assert kinds(cards.constraints("用布依语写的健康科普语料")) == [("language", "布依语", 1)]
    assert kinds(cards.constraints("侗语的健康宣教材料")) == [("language", "侗语", 1)]
    assert kinds(cards.constraints("吉尔吉斯语的医学问答")) == [("language", "吉尔吉斯语", 1)]
    assert kinds(cards.constraints("柯尔克孜语的医学问答")) == [("language", "柯尔克孜语", 1)]
    # their English table names that are ordinary words are left out ("She", "Wa"), and so are 满文 (充满文字) and
    # 白文 (空白文本)
    assert kinds(cards.constraints("She asked for Wa clinic notes")) == []
    assert kinds(cards.constraints("充满文字的空白文本")) == []


def test_a_chinese_word_is_never_one_character_nor_a_language_name_inside_another_word(cards):
    # before: 牛 (cattle) matched inside 牛津 (Oxford), so the request was emptied, "no card is about cattle"
    assert kinds(cards.constraints("牛津 巴黎 地标 建筑 以图搜图")) == []
    assert kinds(cards.constraints("方法语料 和 司法语料")) == []  # 法 + 语料, not 法语 (French)
    assert kinds(cards.constraints("法语语料")) == [("language", "法语", 1)]
    chinese = [w for table in GROUPS.values() for _, words, extra in table.values() for w in f"{words} {extra}".split()
               if CJK_TEXT.search(w)]
    chinese += [w for _, words in language_words().values() for w in words.split() if CJK_TEXT.search(w)]
    assert len(chinese) > 200 and all(len(w) >= 2 for w in chinese)


def test_an_excluded_language_keeps_the_cards_in_other_languages(cards):
    # before: "not English" was an English constraint (the English cards were the only ones kept)
    found = cards.constraints("clinical notes, not English")
    assert [(c.term, c.excluded, sorted(cards.card_ids[i] for i in c.cards)) for c in found] == [
        ("english", True, ["k/any", "k/pl"])]
    assert found[0].message(6) == "no card in the catalog is in a language other than English (2 of 6)"
    zh = cards.constraints("基于 MS MARCO 的英文检索评测，不要越南语翻译版")
    assert [(c.term, c.excluded) for c in zh] == [("英文", False), ("越南语", True)]  # 越南 (Vietnam) not read again
    assert semantic_text("clinical notes, not in English", cards.constraints("clinical notes, not in English")) == (
        "clinical notes,")


def test_a_place_in_the_askers_own_context_is_no_constraint(cards):
    # before: the answer was emptied, "no card in the catalog is from Kenya / Taiwan (0 of 6)"
    assert kinds(cards.constraints("our lab in Kenya needs Polish clinical notes")) == [("language", "polish", 2)]
    assert kinds(cards.constraints("我们的用户主要在台湾，需要医学考试选择题")) == []
    assert kinds(cards.constraints("clinical notes of patients from Kenya")) == [("country", "kenya", 0)]


def test_an_opening_acronym_no_card_carries_and_sequencing_reads_constrain(cards):
    # before: neither was a constraint, and the semantic channel answered with near cards (0.86, 0.85)
    assert kinds(cards.constraints("TCGA pathology reports with cancer stage")) == [("name", "TCGA", 0)]
    assert kinds(cards.constraints("pathology reports like those of TCGA")) == []  # not what is asked for
    assert kinds(cards.constraints("raw sequencing reads (FASTQ) with variant calls")) == [
        ("modality", "sequencing_reads", 0)]


@pytest.fixture(scope="module")
def named_cards() -> DatasetCatalog:
    return DatasetCatalog.from_records([
        card("n/ge11", "BioNLP 2011 GE", "The GENIA event extraction task.", languages=["English"]),
        card("n/cg13", "BioNLP 2013 CG", "Cancer genetics event extraction task.", languages=["English"]),
        card("n/md", "MedDialog", "Doctor-patient conversations.", languages=["Chinese"]),
        card("n/c19", "CHIP2019", "Clinical term normalisation.", languages=["Chinese"]),
        card("n/c20", "CHIP2020", "Clinical term normalisation.", languages=["Chinese"]),
        card("n/ebm", "EBM NLP", "PICO spans in abstracts.", languages=["English"]),
    ])


def test_a_dataset_after_a_negation_is_excluded_by_its_name(named_cards):
    # before: nothing was excluded, and MedDialog, named by the request, was even ranked first
    found = named_cards.constraints("BioNLP event extraction corpora other than the GENIA (GE) ones")
    excluded = [(c.term, sorted(named_cards.card_ids[i] for i in c.cards)) for c in found if c.excluded]
    assert excluded == [("GE", ["n/c19", "n/c20", "n/cg13", "n/ebm", "n/md"])]  # GENIA names no card
    zh = [(c.term, c.excluded, c.restricts) for c in named_cards.constraints("中文医患对话数据，除了 MedDialog 以外的")]
    assert zh == [("中文", False, True), ("MedDialog", True, True)]
    # the negation ends with its bracket: CMeKG, after it, is asked for
    assert [c.excluded for c in named_cards.constraints("tools (not datasets) from the MedDialog project")] == [False]


def test_a_dataset_name_with_a_year_needs_both(named_cards):
    found = [c for c in named_cards.constraints("想找 CHIP 2020 那一届的临床术语标准化数据") if c.versioned]
    assert [(c.term, sorted(named_cards.card_ids[i] for i in c.cards), c.restricts) for c in found] == [
        ("CHIP 2020", ["n/c20"], True)]
    assert [c.cards for c in named_cards.constraints("CHIP 2022 评测数据") if c.versioned] == [frozenset()]
    assert not [c for c in named_cards.constraints("CHIP 2020 之前的那几届") if c.versioned]  # other editions


def test_two_capitalised_words_joined_by_a_hyphen_are_a_name(named_cards):
    found = named_cards.constraints("EBM-NLP (Nye et al.)")
    assert [(c.term, sorted(c.named)) for c in found] == [("EBM-NLP", [5])]  # the card named so ranks first


def test_sign_language_and_chinese_x_ray_words_are_modalities(cards):
    assert kinds(cards.constraints("中国手语的视频数据集")) == [("modality", "视频", 0), ("modality", "手语", 0)]
    assert kinds(cards.constraints("牙科全景片的龋齿标注")) == [("modality", "全景片", 0)]


def test_a_misspelt_language_name_no_card_says_is_that_language(cards):
    # before: "polsih" and "germna" were unknown words, so nothing constrained these requests
    assert kinds(cards.constraints("trec covid polsih")) == [("language", "polish", 2)]
    assert kinds(cards.constraints("germna clinical notes")) == [("language", "german", 1)]
    # a substitution is not taken (green / greek), nor a word some card says (k/mouse says "murine")
    assert cards.constraints("green tea study") == []


@pytest.fixture(scope="module")
def languages() -> DatasetCatalog:
    return DatasetCatalog.from_records([
        card("l/en", "Criteria EN", "Eligibility criteria annotated with entities.", languages=["English"]),
        card("l/zh", "Criteria ZH", "Eligibility criteria sentences classified.", languages=["Chinese"]),
        card("l/both", "Parallel EN-ZH", "English-Chinese parallel sentences.", languages=["English", "Chinese"]),
        card("l/sv", "Notes SV", "Swedish clinical notes.", languages=["Swedish"]),
        card("l/ro", "Notes RO", "Romanian clinical notes.", languages=["Romanian"]),
        card("l/es", "Trials ES", "Spanish trial protocols.", languages=["Spanish"]),
        card("l/fr", "Trials FR", "French trial protocols.", languages=["French"]),
    ])


def labelled(catalog: DatasetCatalog, text: str) -> list[tuple[str, bool, list[str]]]:
    return [(c.label, c.excluded, sorted(catalog.card_ids[i] for i in c.cards)) for c in catalog.constraints(text)]


def test_languages_of_one_list_are_alternatives(languages):
    # before, each language had to hold: only the one bilingual card was left for "English or Chinese"
    assert labelled(languages, "eligibility criteria labelled, in English or in Chinese") == [
        ("English or Chinese", False, ["l/both", "l/en", "l/zh"])]
    assert labelled(languages, "心血管临床文本，德语、英语都可以") == [("German or English", False, ["l/both", "l/en"])]
    response = languages.search("eligibility criteria written in English and in Chinese")
    assert {"l/en", "l/zh"} <= {hit.id for hit in response.hits}


def test_languages_named_apart_or_asked_together_must_all_hold(languages):
    # a list of the languages the catalog has, then the one asked for: Latvian, which no card is in
    found = labelled(languages, "We know you carry Swedish and Romanian notes, but we need Latvian clinical notes.")
    assert found == [("Swedish or Romanian", False, ["l/ro", "l/sv"]), ("Latvian", False, [])]
    answer = languages.search("We know you carry Swedish and Romanian notes, but we need Latvian clinical notes.")
    assert answer.hits == () and "no card in the catalog is in Latvian (0 of 7)" in answer.message
    # parallel data is in both languages at once
    assert labelled(languages, "English and Chinese parallel sentences") == [
        ("English", False, ["l/both", "l/en"]), ("Chinese", False, ["l/both", "l/zh"])]


def test_an_english_clause_that_ends_by_ruling_a_language_out_excludes_it(languages):
    # before, the English of both requests was a language asked for, so only cards in English (and Spanish or
    # French: none) could match
    found = labelled(languages, "Trial protocols in other languages. Spanish and French are both useful; "
                                "English ClinicalTrials.gov text is not what they need.")
    others = ["l/both", "l/es", "l/fr", "l/ro", "l/sv", "l/zh"]
    assert found == [("Spanish or French", False, ["l/es", "l/fr"]), ("a language other than English", True, others)]
    assert labelled(languages, "Welsh-language health FAQ pairs - English-only data won't help") == [
        ("Welsh", False, []), ("a language other than English", True, others)]


def test_an_or_joins_languages_even_in_a_request_for_multilingual_data(languages):
    # "multilingual" asks for several languages at once, but "Thai or Indonesian" names alternatives; before,
    # both had to hold and no card did
    assert labelled(languages, "multilingual notes that include Swedish or Romanian text") == [
        ("Swedish or Romanian", False, ["l/ro", "l/sv"])]
    assert labelled(languages, "multilingual notes in Swedish and Romanian") == [
        ("Swedish", False, ["l/sv"]), ("Romanian", False, ["l/ro"])]


def test_a_language_added_by_as_well_as_is_an_alternative(languages):
    # before: two constraints, only the bilingual card left
    assert labelled(languages, "Chinese hospital data is welcome as well as English.") == [
        ("Chinese or English", False, ["l/both", "l/en", "l/zh"])]


def test_a_modality_in_an_english_clause_that_rules_it_out_is_excluded(cards):
    # before: "images" was a modality asked for, and only image cards could match a request for literature
    found = cards.constraints("Cancer literature resources. Case reports and pathology images are out of scope "
                              "for them.")
    assert [(c.kind.value, c.label, c.excluded, len(c.cards)) for c in found] == [
        ("modality", "something other than images", True, 5)]


def test_a_modality_at_the_end_of_a_ruled_out_list_is_excluded(cards):
    """"Skip machine-translated benchmark copies, chemistry pair tasks and scanned page images" (a tuning
    request of v12): before, the negation's span ended at the first comma, and "images" was asked for."""
    found = cards.constraints("Korean health text. Skip machine-translated copies, chemistry pair tasks and "
                              "scanned page images.")
    assert [(c.kind.value, c.label, c.excluded) for c in found if c.kind.value == "modality"] == [
        ("modality", "something other than images", True)]
    # a list that ends without "and" / "or" is not one: the negation ends at its comma
    kept = cards.constraints("Korean health text, not machine-translated copies, scanned page images welcome")
    assert [(c.term, c.excluded) for c in kept if c.kind.value == "modality"] == [("images", False)]


def test_model_organisms_electron_microscopy_and_insurance_claims_are_constraints(cards):
    # before: "Arabidopsis" read as the plant group (satisfied by any plant corpus); cryo-EM and Medicare claims
    # were no constraint at all, so their topic neighbours answered these requests
    assert kinds(cards.constraints("Arabidopsis thaliana gene function papers")) == [("species", "arabidopsis", 0)]
    assert kinds(cards.constraints("cryo-EM micrographs with particle picks")) == [("modality", "cryo-em", 0)]
    assert kinds(cards.constraints("US Medicare claims with procedure codes")) == [("modality", "medicare", 0)]
    assert kinds(cards.constraints("skin images")) == [("modality", "images", 1)]  # unchanged


def test_languages_of_china_outside_iso_639_1_are_languages(cards):
    # before: no language term, so Chinese health data answered these requests (1: k/any lists no language)
    assert kinds(cards.constraints("需要彝文医学词汇表")) == [("language", "彝文", 1)]
    assert kinds(cards.constraints("傣语的健康问答数据")) == [("language", "傣语", 1)]
    assert kinds(cards.constraints("苗语医学术语表")) == [("language", "苗语", 1)]


def test_skip_outside_and_anything_with_are_negations(cards):
    # before: "images" and "English" were asked for
    found = cards.constraints("reranking tasks with audio and text - skip anything with images")
    assert ("something other than images", True) in [(c.label, c.excluded) for c in found]
    found = cards.constraints("COVID posts from outside the English-speaking world")
    assert [(c.label, c.excluded) for c in found] == [("a language other than English", True)]


def test_languages_before_a_chinese_other_than_are_one_exclusion(languages):
    # before: 以外 after a list was not read, so English and Chinese were both asked for (the bilingual card only)
    assert labelled(languages, "英语、中文以外的语言的临床笔记") == [
        ("a language other than English, Chinese", True, ["l/es", "l/fr", "l/ro", "l/sv"])]
    # one exclusion, outside all of them: the bilingual card is in no other language (each alone would keep it)
    assert labelled(languages, "clinical notes, excluding English and Chinese") == [
        ("a language other than English, Chinese", True, ["l/es", "l/fr", "l/ro", "l/sv"])]


def test_each_of_a_list_of_translations_is_an_alternative(languages):
    # a request for translations asks for languages together, but 都 ("each of them") lists alternatives; before,
    # one card had to be in Swedish and in Romanian, and the answer was "no such card"
    assert labelled(languages, "临床笔记的翻译版本，瑞典语和罗马尼亚语的都列出来") == [
        ("Swedish or Romanian", False, ["l/ro", "l/sv"])]


def test_a_chinese_negation_rules_out_a_modality_a_few_characters_on(cards):
    # before: 图片 was asked for ("也不要通用的文档图片检索": not the generic document-image retrieval)
    found = cards.constraints("需要日语的医学文本数据，也不要通用的文档图片检索")
    assert ("something other than images", True) in [(c.label, c.excluded) for c in found]
    assert ("images", False) in [(c.label, c.excluded) for c in cards.constraints("需要皮肤病的图片数据")]


@pytest.mark.integration
def test_a_dataset_name_with_a_year_names_the_one_card_whose_name_runs_them_together():
    # before: "CCL 2021" named no card ("CCL" is no card's own name), so in the bundled catalog, where no tier found
    # the CCL2021 card (no description) for a wordy request, the answer was "no such card" for a card it holds
    catalog = DatasetCatalog.from_records([
        card("z/eval2021", "CCL2021评测官网", "", tags=["中国计算语言学大会CCL-2021智能医疗对话诊疗评测任务"],
             languages=["zh"]),
        card("z/imcs", "IMCS21", "CBLUE 中医疗对话数据集 IMCS21", languages=["zh"]),
        card("z/chip", "CHIP2020 评测", "CHIP 2020 的医学评测任务", languages=["zh"]),
    ])
    text = "做导诊机器人，想参考 CBLUE 收录的问诊对话数据，还有 CCL 2021 那次的评测"
    (edition,) = [c for c in catalog.constraints(text) if c.kind.value == "name"]
    assert edition.versioned and edition.named == edition.cards == frozenset({0})
    assert [hit.id for hit in catalog.search(text).hits] == ["z/eval2021"]


def test_te_reo_names_the_maori_language():
    catalog = DatasetCatalog.from_records([card("e/qa", "Health QA", "Health questions.", languages=["en"])])
    assert [(c.kind.value, c.label, len(c.cards)) for c in catalog.constraints("te reo Maori health texts")
            if c.kind.value == "language"] == [("language", "Maori", 0)]


def test_a_roman_edition_number_after_a_name_needs_both_in_the_text_or_the_homepage():
    catalog = DatasetCatalog.from_records([
        card("b/chemprot", "ChemProt", "Chemical-protein relations of the BioCreative VI track.",
             languages=["English"]),
        card("b/bioid", "BioID", "Entity identification in figure legends.", languages=["English"],
             homepage="https://biocreative.example.org/tasks/biocreative-vi/track-1/"),
        card("b/covid", "BC7-LitCovid", "COVID-19 articles with topics.", languages=["English"],
             homepage="https://biocreative.example.org/tasks/biocreative-vii/track-5/"),
        card("b/gm", "GeneMention", "Gene mentions of BioCreative II.", languages=["English"]),
    ])

    def editions(text: str) -> list[tuple[str, list[str]]]:
        return [(c.term, sorted(catalog.card_ids[i] for i in c.cards)) for c in catalog.constraints(text)
                if c.versioned]

    # before: only "BioCreative" constrained, and it restricts nothing (some card carries it)
    assert editions("BioCreative VI track data") == [("BioCreative VI", ["b/bioid", "b/chemprot"])]
    assert editions("BioCreative VII tracks") == [("BioCreative VII", ["b/covid"])]  # "biocreative-vii" in its homepage
    assert editions("BioCreative VI 那一届各个评测任务的数据") == [("BioCreative VI", ["b/bioid", "b/chemprot"])]
    assert editions("BioCreative VIII tasks") == [("BioCreative VIII", [])]  # no such edition: the answer is empty
    assert catalog.search("BioCreative VIII tasks").verdict == "unsatisfied"
    # an edition among a bundle's parts is no data asked for; I and V are words and letters as often as numbers
    assert editions("one loader for BioCreative II gene mentions and NCBI disease") == []
    assert editions("BioCreative V tasks") == []


def test_languages_asked_for_each_apart_are_alternatives_even_in_a_request_for_translations(languages):
    # before: "translated" asked for data in both at once, so no card was in Swedish and Romanian together
    # ("no card in the catalog is in Swedish and Romanian"), a false "no such card"
    assert labelled(languages, "translated clinical notes in Swedish and Romanian, in either language") == [
        ("Swedish or Romanian", False, ["l/ro", "l/sv"])]
    assert labelled(languages, "translated Swedish and Romanian clinical notes: those two languages") == [
        ("Swedish or Romanian", False, ["l/ro", "l/sv"])]
    assert labelled(languages, "English and Chinese parallel sentences") == [  # both at once: each must hold
        ("English", False, ["l/both", "l/en"]), ("Chinese", False, ["l/both", "l/zh"])]


def test_a_modality_in_a_clause_ending_in_are_out_is_ruled_out(cards):
    found = cards.constraints("Regulator text only. Slide decks and other page images are out.")
    assert [(c.kind.value, c.label, c.excluded) for c in found] == [("modality", "something other than images", True)]


def test_several_ruled_out_languages_before_a_list_of_asked_ones_do_not_break_the_request(languages):
    # before: IndexError (the asked languages' places pointed past the constraints left once the ruled-out
    # ones were merged into one), a traceback for the asker
    assert labelled(languages, "other than English and Chinese, any of Swedish, Romanian or Spanish") == [
        ("Swedish or Romanian or Spanish", False, ["l/es", "l/ro", "l/sv"]),
        ("a language other than English, Chinese", True, ["l/es", "l/fr", "l/ro", "l/sv"])]


def test_the_last_or_of_a_comma_list_joins_the_whole_list_even_in_a_request_for_translations(languages):
    # before: "Spanish" stood apart from "Swedish or Romanian" (translated data asks for languages at once), so no
    # card held them together: a false "no such card" (v12's "Danish, Swedish or Norwegian")
    text = "clinical notes written in Spanish, Swedish or Romanian; translated copies don't count"
    assert labelled(languages, text) == [("Spanish or Swedish or Romanian", False, ["l/es", "l/ro", "l/sv"])]

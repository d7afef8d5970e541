"""The shared analyzer: symbols, name variants, Chinese bigrams, and its properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eagle_rag.analysis import analyze, analyze_query, cjk_ratio, compact_name, normalize

pytestmark = pytest.mark.unit


def test_symbols_kept_whole_joined_and_split():
    terms = analyze("PD-1 and VEGFR1-3 with IL-6, catalogue D-001234")
    for term in ("pd-1", "pd1", "vegfr1-3", "vegfr1", "il-6", "il6", "d-001234", "001234"):
        assert term in terms
    assert "and" not in terms and "with" not in terms


def test_name_variants_meet():
    assert compact_name("BC5-CDR") == compact_name("bc5cdr") == compact_name("BC5 CDR") == "bc5cdr"
    assert compact_name("ＢＣ５＿ＣＤＲ") == "bc5cdr"
    assert "bc5cdr" in analyze("BC5-CDR") and "bc5cdr" in analyze("bc5_cdr") and analyze("BC5CDR") == ["bc5cdr"]


def test_full_width_and_diacritics_fold():
    assert analyze("ＥＧＦＲ") == ["egfr"]
    assert normalize("Résumé Ⅳ") == "resume iv"


def test_english_is_stemmed_symbols_are_not():
    assert analyze("inhibitors inhibiting") == ["inhibitor", "inhibit"]
    assert analyze("T790M") == ["t790m"]


def test_chinese_bigrams_and_single_character():
    assert analyze("糖尿病视网膜") == ["糖尿", "尿病", "病视", "视网", "网膜"]
    assert analyze("肺") == ["肺"]
    assert analyze("二甲双胍 metformin") == ["二甲", "甲双", "双胍", "metformin"]


def test_smiles_kept_whole_as_well_as_split():
    # aspirin, alanine with a bracket atom, caffeine; a trailing full stop is sentence punctuation
    assert analyze_query("CC(=O)Oc1ccccc1C(=O)O") == ["cc(=o)oc1ccccc1c(=o)o", "cc", "o", "oc1ccccc1c"]
    assert analyze("SMILES: CC(=O)Oc1ccccc1C(=O)O.")[0] == "cc(=o)oc1ccccc1c(=o)o"
    assert "c[c@h](n)c(=o)o" in analyze("C[C@H](N)C(=O)O")
    assert "cn1cnc2c1c(=o)n(c)c(=o)n2c" in analyze("Cn1cnc2c1c(=O)n(C)c(=O)n2C")


def test_words_in_brackets_are_not_smiles():
    # letters outside the organic subset, no bond or ring digit, or unbalanced brackets
    assert analyze_query("eGFR(30) icon(s) (acetylsalicylic acid)") == ["egfr", "30", "icon", "s", "acetylsalicyl",
                                                                          "acid"]
    assert "cc(=o" not in analyze("CC(=O")


def test_query_terms_are_distinct_in_order():
    assert analyze_query("EGFR egfr EGFR-TKI") == ["egfr", "egfr-tki", "egfrtki", "tki"]


def test_cjk_ratio():
    assert cjk_ratio("") == 0.0
    assert cjk_ratio("阿司匹林") == 1.0
    assert cjk_ratio("aspirin 阿司匹林") == pytest.approx(4 / 11)
    assert cjk_ratio("10个月宝宝") == 1.0  # digits are script-neutral
    assert cjk_ratio("____10__") == 0.0


text_strategy = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80)


@given(text_strategy)
def test_normalize_is_idempotent(text):
    assert normalize(normalize(text)) == normalize(text)


@given(text_strategy)
def test_no_empty_terms_and_no_whitespace(text):
    for term in analyze(text):
        assert term and not any(c.isspace() for c in term)


@given(text_strategy)
def test_index_and_query_agree(text):
    # every query term of a text is a term the index holds for the same text
    assert set(analyze_query(text)) <= set(analyze(text))


@given(st.lists(st.sampled_from(["EGFR", "pd-1", "肺癌", "inhibitors", "BC5-CDR", "aspirin"]), max_size=6))
def test_reanalysing_terms_is_stable(words):
    terms = analyze(" ".join(words))
    assert set(analyze(" ".join(terms))) <= set(terms) | {t for w in terms for t in analyze(w)}

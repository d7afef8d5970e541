"""The narrow synonym file: its rules, its use in ranking, the switch, and its vocabulary part."""

from __future__ import annotations

import copy

import pytest
import yaml

from eagle_rag_datasets import DatasetCatalog
from eagle_rag_datasets.catalog.synonym_rules import (
    BANNED_ABBREVIATIONS,
    BANNED_HYPERNYMS,
    MIN_CROSS_LINGUAL,
    MIN_GROUPS,
    validate_synonym_doc,
)
from eagle_rag_datasets.catalog.synonyms import DEFAULT_SYNONYMS, SynonymFileError, load_synonyms
from tests.datasets.conftest import SHARED_ONTOLOGY, card, ids

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def doc() -> dict:
    return yaml.safe_load(DEFAULT_SYNONYMS.read_text(encoding="utf-8"))


def test_the_file_keeps_its_rules(doc):
    assert validate_synonym_doc(doc) == []
    assert doc["version"] and len(doc["groups"]) >= MIN_GROUPS >= 29
    assert all(str(g["source"]).strip() for g in doc["groups"])
    assert sum(1 for g in doc["groups"] if g.get("en") and g.get("zh")) >= MIN_CROSS_LINGUAL
    kinds = {g["kind"] for g in doc["groups"] if g["origin"] == "vocabulary"}
    assert {"specialty", "disease-class"} <= kinds
    terms = {t.lower() for g in doc["groups"] for t in (g.get("en") or []) + (g.get("zh") or [])}
    assert not terms & BANNED_HYPERNYMS and not terms & {a.lower() for a in BANNED_ABBREVIATIONS}


def _broken(doc, edit):
    bad = copy.deepcopy(doc)
    edit(bad)
    return " ".join(validate_synonym_doc(bad))


def test_each_rule_is_enforced(doc):
    first = lambda d: d["groups"][0]  # noqa: E731
    assert "hypernym" in _broken(doc, lambda d: first(d)["zh"].append("医学"))
    assert "ambiguous abbreviation" in _broken(doc, lambda d: first(d)["en"].append("KG"))
    assert "not listed" in _broken(doc, lambda d: first(d)["en"].append("XYZQ"))
    assert "names its source" in _broken(doc, lambda d: first(d).update(source=""))
    assert "already belongs" in _broken(doc, lambda d: d["groups"][1]["zh"].append(first(d)["zh"][0]))
    assert "holds Chinese" in _broken(doc, lambda d: first(d)["en"].append("问答 set"))
    assert "at least two terms" in _broken(doc, lambda d: d["groups"][2].update(en=["one"], zh=[]))
    assert "duplicate group id" in _broken(doc, lambda d: d["groups"].append(copy.deepcopy(first(d))))
    assert "at least 29 groups" in _broken(doc, lambda d: d.update(groups=d["groups"][:5]))
    assert "needs a `version`" in _broken(doc, lambda d: d.pop("version"))


def test_load_refuses_a_broken_file(tmp_path, doc):
    bad = copy.deepcopy(doc)
    bad["groups"][0]["en"].append("CT")
    path = tmp_path / "synonyms.yaml"
    path.write_text(yaml.safe_dump(bad, allow_unicode=True), encoding="utf-8")
    with pytest.raises(SynonymFileError) as info:
        load_synonyms(str(path))
    assert isinstance(info.value, ValueError) and info.value.details["problems"]


def test_phrases_are_found_longest_first():
    synonyms = load_synonyms()
    spans = synonyms.find("traditional chinese medicine benchmark")
    assert [s.group.id for s in spans] == ["condition-medicine-chinese-traditional"]
    assert [s.term for s in synonyms.find("医患对话")] == ["医患对话"]
    assert synonyms.find("medical") == []  # "medical" is not "medication"


@pytest.fixture(scope="module")
def cross() -> DatasetCatalog:
    return DatasetCatalog.from_records([
        card("s/zh", "中医医案知识图谱", "中医 知识图谱"),
        card("s/en", "Traditional Chinese Medicine Corpus", "A TCM corpus."),
        card("s/tumor", "PCam", "tumor detection"),
    ])


def test_synonym_hits_rank_after_exact_hits_and_are_labelled(cross):
    response = cross.search("Traditional Chinese Medicine Corpus")
    assert ids(response)[0] == "s/en" and response.hits[0].match == "exact"
    response = cross.search("中医")
    assert ids(response) == ["s/zh", "s/en"]
    assert [h.match for h in response.hits] == ["lexical", "synonym"]


def test_cross_lingual_and_switch_off(cross):
    response = cross.search("肿瘤", explain=True)
    assert ids(response) == ["s/tumor"] and response.hits[0].match == "synonym"
    assert response.hits[0].explanation["synonym"][0]["group"] == "disease-class-neoplasms"
    off = cross.search("肿瘤", synonyms=False)
    assert off.total == 0 and off.synonyms is False


@pytest.mark.skipif(not SHARED_ONTOLOGY.is_dir(), reason="shared/data/ontology is not present")
def test_vocabulary_groups_are_reproducible(doc):
    from eagle_rag_datasets.catalog.vocab_build import build_groups

    in_file = [g for g in doc["groups"] if g["origin"] == "vocabulary"]
    assert build_groups(SHARED_ONTOLOGY) == in_file

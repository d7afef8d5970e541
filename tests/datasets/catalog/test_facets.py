"""Facet normalisation: languages, licences, tasks."""

from __future__ import annotations

import pytest

from eagle_rag_datasets.catalog.facets import license_id, license_matches, normalize_language, normalize_task

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("raw, code", [
    ("English", "en"), ("eng-Latn", "en"), ("en", "en"), ("english", "en"), ("English (United States)", "en"),
    ("Chinese", "zh"), ("cmn-Hans", "zh"), ("Chinese (Traditional, Taiwan)", "zh"), ("中文", "zh"),
    ("spa-Latn", "es"), ("vie-Latn", "vi"), ("title and abstract", "title and abstract"),
])
def test_languages(raw, code):
    assert normalize_language(raw) == code


@pytest.mark.parametrize("raw, lid", [
    (None, "unknown"), ("UNKNOWN", "unknown"), ("License information unavailable", "unknown"),
    ("not specified", "unknown"), ("Licenses.UNKNOWN", "unknown"),
    ("Creative Commons Attribution 4.0 International", "cc-by-4.0"), ("CC_BY_4p0", "cc-by-4.0"),
    ("cc-by-4.0", "cc-by-4.0"), ("Creative Commons Attribution Non Commercial Share Alike 4.0 International",
                                 "cc-by-nc-sa-4.0"),
    ("Creative Commons Zero v1.0 Universal", "cc0-1.0"), ("CC0_1p0", "cc0-1.0"), ("MIT License", "mit"),
    ("Apache License 2.0", "apache-2.0"), ("APACHE_2p0", "apache-2.0"), ("DUA", "dua"),
    ("Data User Agreement", "dua"), ("CustomLicense(text='x')", "custom"), ("https://example.org/terms", "custom"),
    ("UMLS - Metathesaurus License Agreement", "umls-metathesaurus-license-agreement"),
])
def test_licenses(raw, lid):
    assert license_id(raw) == lid


def test_license_families():
    assert license_matches("cc-by-4.0", "cc-by") and license_matches("cc-by-3.0", "CC BY")
    assert not license_matches("cc-by-sa-4.0", "cc-by") and license_matches("cc-by-sa-4.0", "cc-by-sa")
    assert license_matches("unknown", "not specified")


def test_tasks():
    assert normalize_task("NAMED_ENTITY_RECOGNITION") == "named entity recognition" == normalize_task("NER")
    assert normalize_task("Question answering") == normalize_task("QUESTION_ANSWERING") == normalize_task("qa")

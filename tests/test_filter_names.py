"""Section and document-type filter values under the names people use (:mod:`eagle_rag.filter_names`) and the
hook that supplies those names (``eagle_filter_vocabulary``)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from eagle_rag import filter_names
from eagle_rag.hookspecs import hookimpl
from eagle_rag.kernel.plugin_manager import build_plugin_manager
from eagle_rag.settings import load_settings
from eagle_rag.types import Chunk, MetadataFilter, filter_fold

pytestmark = pytest.mark.unit


class Labels:
    @hookimpl
    def eagle_filter_vocabulary(self) -> dict[str, dict[str, str]]:
        return {"sections": {"Dosage and Administration": "dosage", "Warnings and Precautions": "warnings"},
                "doc_types": {"label": "drug_label"}, "unknown_field": {"x": "y"}}


def test_filter_fold() -> None:
    assert filter_fold("Dosage & Administration") == filter_fold("dosage_and_administration") \
        == "dosage and administration"
    assert filter_fold("  Drug-LABEL ") == "drug label"


def test_hook_eagle_filter_vocabulary() -> None:
    settings = load_settings(environ={}, overrides={"plugins": {"enabled": []}})
    pm = build_plugin_manager(settings, [("labels", Labels())])
    engine = SimpleNamespace(pm=pm, ctx=None)
    words = filter_names.vocabulary(engine)
    assert words.values("sections") == ("dosage", "warnings") and words.values("doc_types") == ("drug_label",)
    assert "unknown_field" not in words.names
    assert words.canonical("sections", "DOSAGE AND ADMINISTRATION") == "dosage"
    assert words.canonical("doc_types", "Labels") == "drug_label"  # plural folded
    assert words.canonical("sections", "Methods") is None
    assert filter_names.vocabulary(engine) is words  # asked once per plugin manager


def test_expanded_values_match_every_name_of_the_stored_value() -> None:
    words = filter_names.FilterVocabulary.merged([Labels().eagle_filter_vocabulary()])
    sections = words.expand("sections", ["Dosage and Administration"])
    chunk = Chunk(id="c", text="t", document_id="d", path="", metadata={"biomed_section": "dosage"})
    assert MetadataFilter(sections=sections).matches(chunk)
    assert not MetadataFilter(sections=words.expand("sections", ["warning"])).matches(chunk)
    # a value no plugin names is compared as it is, in any case, singular or plural
    trial = Chunk(id="c", text="t", document_id="d", path="", metadata={"doc_type": "Trial",
                                                                         "biomed_doc_type": "research"})
    assert MetadataFilter(doc_types=words.expand("doc_types", ["trials"])).matches(trial)
    assert MetadataFilter(doc_types=("research",)).matches(trial)  # either key's value passes
    assert not MetadataFilter(doc_types=words.expand("doc_types", ["label"])).matches(trial)

"""The metadata a hit carries into a framework's document: the source to cite, tags and dates."""

from __future__ import annotations

import pytest

from eagle_rag.integrations.search import hit_metadata, hit_source
from eagle_rag.types import MatchKind, SearchHit

pytestmark = pytest.mark.unit


def hit(**metadata: object) -> SearchHit:
    return SearchHit(id="c1", document_id="t1", text="x", score=0.5, path="Trial", collection="eagle_text",
                     match=MatchKind.PARTIAL, metadata={"kb_name": "kb", **metadata})


def test_the_source_is_the_file_or_the_url() -> None:
    assert hit_source(hit(source_uri="studies/trials.jsonl#12")) == "studies/trials.jsonl"
    assert hit_source(hit(source_uri="https://example.org/a#part")) == "https://example.org/a#part"
    assert hit_source(hit()) == "t1"


def test_dates_sections_doc_types_and_tags() -> None:
    meta = hit_metadata(hit(source_uri="trials.jsonl#1", year=2020, doc_type="trial", biomed_doc_type="research",
                            biomed_section="results", tags=["cv", "statin"]), rank=3)
    assert meta["published"] == "2020" and meta["doc_type"] == "trial" and meta["section"] == "results"
    assert meta["tags"] == ["cv", "statin"] and meta["rank"] == 3 and meta["source"] == "trials.jsonl"
    bare = hit_metadata(hit(published="2019-06-01T10:00"), rank=1)
    assert bare["published"] == "2019-06-01" and bare["tags"] == [] and "section" not in bare

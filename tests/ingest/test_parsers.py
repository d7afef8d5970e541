"""Core parsers and the structure-aware chunker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eagle_rag.errors import IngestError
from eagle_rag.ingest.chunker import chunk_document, chunk_id, split_text
from eagle_rag.ingest.parsers import (
    parse_beir,
    parse_html,
    parse_json,
    parse_jsonl,
    parse_markdown,
    parse_text,
    route_for_suffix,
)

pytestmark = pytest.mark.unit

MD = b"""# Imatinib label

## Indications and Usage
Chronic myeloid leukemia.

### Pediatric use
Children with CML.

## Dosage and Administration
400 mg once daily.

```
# not a heading inside a fence
```
"""


def test_markdown_sections_carry_heading_paths(tmp_path: Path):
    [doc] = parse_markdown(tmp_path / "imatinib.md", MD, "kb")
    paths = [" > ".join(s.path) for s in doc.sections]
    assert paths == ["Imatinib label > Indications and Usage",
                     "Imatinib label > Indications and Usage > Pediatric use",
                     "Imatinib label > Dosage and Administration"]
    assert doc.name == "Imatinib label"
    assert doc.sections[2].text.startswith("Dosage and Administration\n400 mg")
    assert "# not a heading" in doc.sections[2].text


def test_markdown_of_headings_only_keeps_the_headings_as_its_text(tmp_path: Path):
    [doc] = parse_markdown(tmp_path / "h.md", b"# Only a heading about fooximab\n", "kb")
    assert [(s.path, s.text) for s in doc.sections] == [(("Only a heading about fooximab",),
                                                         "Only a heading about fooximab")]
    [nested] = parse_markdown(tmp_path / "n.md", b"# Drug\n\n## Dosage\n", "kb")
    assert [(s.path, s.text) for s in nested.sections] == [(("Drug",), "Drug"), (("Drug", "Dosage"), "Dosage")]
    with pytest.raises(IngestError, match="the file is empty"):
        parse_markdown(tmp_path / "blank.md", b" \n\n", "kb")


def test_html_headings_and_skipped_script(tmp_path: Path):
    html = (b"<html><head><title>PV</title><script>var x=1;</script></head><body><h1>Safety</h1>"
            b"<p>Report events.</p><h2>Signals</h2><p>Disproportionality.</p></body></html>")
    [doc] = parse_html(tmp_path / "p.html", html, "kb")
    assert doc.name == "PV"
    assert [s.path for s in doc.sections] == [("Safety",), ("Safety", "Signals")]
    assert "var x" not in doc.full_text


def test_jsonl_records_and_errors(tmp_path: Path):
    data = b'{"_id": "d1", "title": "T", "text": "body"}\n\n{"id": "d2", "text": "only text", "tags": ["x"]}\n'
    docs = parse_jsonl(tmp_path / "c.jsonl", data, "kb")
    assert [d.document_id for d in docs] == ["d1", "d2"]
    assert docs[0].sections[0].text == "T\nbody" and docs[1].tags == ("x",)
    with pytest.raises(IngestError, match="line 2: invalid JSON"):
        parse_jsonl(tmp_path / "c.jsonl", b'{"id": "a", "text": "x"}\n{broken\n', "kb")
    with pytest.raises(IngestError, match="no 'id'"):
        parse_jsonl(tmp_path / "c.jsonl", b'{"text": "x"}\n', "kb")
    with pytest.raises(IngestError, match="duplicate id"):
        parse_jsonl(tmp_path / "c.jsonl", b'{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n', "kb")


def test_long_or_unsafe_record_ids_are_hashed(tmp_path: Path):
    [doc] = parse_jsonl(tmp_path / "c.jsonl", json.dumps({"id": "a/b c" * 30, "text": "x"}).encode(), "kb")
    assert doc.document_id.startswith("h-") and len(doc.document_id) <= 64
    assert doc.metadata["record_id"] == "a/b c" * 30


def test_json_text_and_beir(tmp_path: Path):
    assert len(parse_json(tmp_path / "a.json", b'[{"id": 1, "text": "a"}, {"id": 2, "text": "b"}]', "kb")) == 2
    [doc] = parse_beir(tmp_path / "corpus.jsonl", b'{"_id": "4983", "title": "T", "text": "A"}', "kb")
    assert doc.document_id == "4983" and doc.source_type == "beir"
    with pytest.raises(IngestError, match="empty"):
        parse_text(tmp_path / "e.txt", b"  \n", "kb")
    with pytest.raises(IngestError, match="UTF-8"):
        parse_text(tmp_path / "b.txt", b"\xff\xfe\x00bad", "kb")


def test_routes_by_suffix():
    assert route_for_suffix(Path("x/corpus.jsonl")) == "beir"
    assert route_for_suffix(Path("a.MD")) == "markdown"
    assert route_for_suffix(Path("a.pdf")) is None


def test_chunk_ids_are_deterministic_and_paths_recorded(tmp_path: Path):
    [doc] = parse_markdown(tmp_path / "imatinib.md", MD, "kb")
    first = chunk_document(doc)
    second = chunk_document(doc)
    assert [c.id for c in first] == [c.id for c in second]
    assert first[0].id == chunk_id(doc.document_id, first[0].path, 0)
    assert len({c.id for c in first}) == len(first) == 3
    assert first[2].path == "Imatinib label > Dosage and Administration"
    assert all(c.source_chunk_id == c.id for c in first)


def test_split_text_respects_limit_and_keeps_all_words():
    text = "\n\n".join(f"Paragraph {i} " + "word " * 60 for i in range(10))
    pieces = split_text(text, max_chars=500, overlap=50)
    assert len(pieces) > 3
    assert all(len(p) <= 560 for p in pieces)
    for i in range(10):
        assert any(f"Paragraph {i} " in p for p in pieces)
    assert split_text("short", 500, 50) == ["short"]


def test_embed_input_adds_a_real_title_but_never_a_bare_id(tmp_path: Path):
    from eagle_rag.ingest.dispatch import embed_input

    [titled] = chunk_document(parse_markdown(tmp_path / "imatinib.md", MD, "kb")[0])[2:3]
    assert embed_input(titled).startswith("Imatinib label\nDosage and Administration")
    [untitled] = parse_jsonl(tmp_path / "c.jsonl", b'{"_id": "t78329c33ab66", "text": "body only"}', "kb")
    [chunk] = chunk_document(untitled)
    assert embed_input(chunk) == "body only"


def test_heading_detection_is_linear_on_hostile_lines(tmp_path: Path):
    # a run of spaces and #s once made the heading regex backtrack cubically (minutes per line)
    hostile = ("# a" + " \t" * 4000 + "#" * 4000 + " #" * 4000 + "b\n## Closed ##\nbody\n").encode()
    [doc] = parse_markdown(tmp_path / "h.md", hostile, "kb")
    assert doc.sections[-1].path[-1] == "Closed"

"""PDF parsing: pages and headings as the path, hostile and damaged files refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.errors import IngestError
from eagle_rag_biomed.parsers.pdf import heading_level, parse_pdf
from tests.biomed.conftest import make_pdf

PARA = "Statins lower LDL cholesterol and reduce cardiovascular events in adults at risk. " * 6


def _paper() -> bytes:
    return make_pdf([
        [("h", "ATORVASTATIN IN PRIMARY PREVENTION"), ("h", "1 Introduction"), ("p", PARA),
         ("h", "1.1 Background of the Study"), ("p", "Earlier trials enrolled patients with CHD. " * 5)],
        [("h", "2 Methods"), ("p", "We randomised 1000 adults to atorvastatin 10 mg or placebo. " * 5),
         ("h", "Statistical Analysis"), ("p", "Hazard ratios were estimated with Cox models. " * 4)],
        [("p", "The methods continue on a third page without a new heading. " * 3),
         ("h", "3 Results"), ("p", "Events fell by 36 percent. " * 4)],
    ], title="Atorvastatin trial report")


@pytest.mark.unit
def test_generated_pdf_pages_and_headings() -> None:
    (doc,) = parse_pdf(Path("trial.pdf"), _paper(), "kb")
    assert doc.source_type == "pdf"
    assert doc.name == "Atorvastatin trial report"  # from the PDF metadata
    assert doc.metadata["page_count"] == 3
    paths = [s.path for s in doc.sections]
    assert paths == [
        ("1 Introduction", "page 1"),
        ("1 Introduction", "1.1 Background of the Study", "page 1"),
        ("2 Methods", "page 2"),
        ("2 Methods", "Statistical Analysis", "page 2"),
        ("2 Methods", "Statistical Analysis", "page 3"),  # a heading carries over the page break
        ("3 Results", "page 3"),
    ]
    assert doc.sections[2].text.startswith("2 Methods\nWe randomised")
    assert doc.sections[0].text.startswith("Atorvastatin trial report\n")  # the title is searchable
    assert "ATORVASTATIN IN PRIMARY PREVENTION" in doc.metadata["headings"]


@pytest.mark.unit
def test_running_headers_are_dropped() -> None:
    header = ("h", "Journal of Lipid Research 2024")
    data = make_pdf([[header, ("p", f"Page {i} text about statins and lipids. " * 3)] for i in range(4)])
    (doc,) = parse_pdf(Path("j.pdf"), data, "kb")
    assert "Journal of Lipid Research 2024" not in doc.full_text
    assert [s.path for s in doc.sections] == [(f"page {i}",) for i in range(1, 5)]


@pytest.mark.unit
@pytest.mark.parametrize(("line", "level"), [
    ("2.1 Study Population", 2), ("1 INDICATIONS AND USAGE", 1), ("3.2.1 Dose titration", 3),
    ("RESULTS", 1), ("Materials and Methods", 2), ("Results", 2), ("Adverse Events of Special Interest", 2),
    ("The patients were randomised.", None), ("and were followed for ten years", None),
    ("12", None), ("", None), ("Table 2: baseline", None),
    ("A very long line that goes on and on Without Stopping At All For Many Words Here", None),
])
def test_heading_level(line: str, level: int | None) -> None:
    assert heading_level(line) == level


@pytest.mark.unit
def test_truncated_pdf_is_refused() -> None:
    data = _paper()
    for cut in (len(data) // 2, len(data) - 40):
        with pytest.raises(IngestError, match="truncated or corrupt"):
            parse_pdf(Path("cut.pdf"), data[:cut], "kb")


@pytest.mark.unit
def test_corrupt_and_foreign_bytes() -> None:
    with pytest.raises(IngestError, match="not a PDF"):
        parse_pdf(Path("x.pdf"), b"PK\x03\x04 zip bytes", "kb")
    garbage = b"%PDF-1.7\n" + b"\x00garbage" * 50 + b"\n%%EOF\n"
    with pytest.raises(IngestError, match="corrupt PDF|no extractable text"):
        parse_pdf(Path("g.pdf"), garbage, "kb")


@pytest.mark.unit
def test_pdf_without_text_is_reported() -> None:
    data = make_pdf([[]])
    with pytest.raises(IngestError, match="no extractable text"):
        parse_pdf(Path("scan.pdf"), data, "kb")

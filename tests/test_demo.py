"""``eagle-rag demo`` under the default profile (biomed) shows what the biomedical stages did: the route
(workflow, entities, section cues, collections) and each hit's section and document type."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from eagle_rag.engine import Engine
from eagle_rag.ingest.report import IngestReport
from eagle_rag.ops.demo import hit_summary, run_demo
from eagle_rag.types import MatchKind, SearchHit, StageScore
from tests.integrations.biomed_demo import biomed_demo_folder, in_process_settings, private_copy

IMATINIB = {"query": "imatinib dosage for chronic myeloid leukemia", "note": "section-level retrieval"}


@pytest.fixture(scope="module")
def biomed_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """The session's biomed demo folder (labels and compounds in kb ``demo``), copied for this process."""
    data = private_copy(biomed_demo_folder(tmp_path_factory), tmp_path_factory.mktemp("demo") / "data")
    with Engine(in_process_settings(data)) as engine:
        yield engine


@pytest.mark.unit
def test_hit_summary_names_the_section_and_document_type():
    trail = (StageScore("bm25", 3, 1.0), StageScore("dense", 1, 0.9))
    hit = SearchHit("c", "label_imatinib", "text", 0.5, "Imatinib > Dosage", "eagle_text_biomed", MatchKind.EXACT,
                    metadata={"biomed_section": "dosage", "biomed_doc_type": "drug_label"}, trail=trail)
    assert hit_summary(hit) == "exact; bm25 rank 3, dense rank 1; section dosage, drug_label"
    plain = SearchHit("c", "d", "text", 0.5, "", "eagle_text", MatchKind.SEMANTIC, trail=trail[1:])
    assert hit_summary(plain) == "semantic; bm25 rank -, dense rank 1"


@pytest.mark.integration
def test_the_demo_shows_the_biomedical_stages(biomed_engine: Engine, tmp_path: Path):
    console = Console(record=True, width=300)
    report = run_demo(biomed_engine, console, lambda engine, paths, kb: IngestReport(), queries=[IMATINIB])
    assert not report.any_failed
    out = console.export_text()
    assert "profile: biomed (the biomedical pipeline: entities, sections, routing" in out
    route = next(line for line in out.splitlines() if line.startswith("route: "))
    assert route.startswith("route: workflow=drug_entity; entities=imatinib (drug), chronic myeloid leukemia "
                            "(disease)"), route
    assert "section cues=dosage" in route and "eagle_text_biomed(biomed_text)" in route
    assert "section dosage, drug_label" in out

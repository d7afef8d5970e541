"""The vocabulary build is deterministic (across hash seeds) and the packaged file is its output."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from eagle_rag_biomed.ontology.vocabulary import NOTICE_FILE, VOCABULARY_FILE

from .vocab_fixtures import ONTOLOGY_SOURCES

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "build_vocabulary.py"
MAX_BYTES = 8_000_000


def build(out: Path, hash_seed: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    subprocess.run([sys.executable, str(SCRIPT), "--sources", str(ONTOLOGY_SOURCES), "--out", str(out)],
                   check=True, env=env, capture_output=True, text=True, timeout=600)
    return (out / VOCABULARY_FILE).read_bytes()


@pytest.mark.integration
@pytest.mark.slow
def test_two_builds_give_the_same_bytes_and_match_the_packaged_file(tmp_path: Path) -> None:
    if not ONTOLOGY_SOURCES.is_dir():
        pytest.skip(f"shared ontology sources not available: {ONTOLOGY_SOURCES}")
    first = build(tmp_path / "a", "1")
    second = build(tmp_path / "b", "2")
    assert first == second
    assert (tmp_path / "a" / NOTICE_FILE).read_text() == (tmp_path / "b" / NOTICE_FILE).read_text()
    assert len(first) < MAX_BYTES
    packaged = resources.files("eagle_rag_biomed").joinpath("data", VOCABULARY_FILE).read_bytes()
    assert packaged == first, "the packaged vocabulary is stale: run scripts/build_vocabulary.py"


@pytest.mark.unit
def test_the_notice_names_every_source_and_licence() -> None:
    notice = resources.files("eagle_rag_biomed").joinpath("data", NOTICE_FILE).read_text(encoding="utf-8")
    for needle in ["DrugBank", "HGNC", "Disease Ontology", "MeSH", "CC0", "National Library of Medicine"]:
        assert needle in notice

"""``eagle-rag ingest`` with the ``biomed`` profile (the real CLI, real stores, deterministic encoders)
over a PubMed set with one malformed article, a PubMed set cut off mid-article and an SD file with one
broken molecule (real RDKit): every other record is ingested, each bad one is reported with its record
number, line and id, the exit code is 1, and ``eagle-rag doctor`` finds the stores consistent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ingest.test_biomed_records import ARTICLES, MALFORMED, SMILES, pubmed_set, sdf

pytestmark = pytest.mark.integration
SETTINGS = ("profile: biomed\nencoders:\n  mode: deterministic\n"
            "plugins:\n  options:\n    biomed:\n      encoder_mode: deterministic\n")


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    settings = tmp_path / "settings.yaml"
    settings.write_text(SETTINGS, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EAGLE_RAG_", "EAGLE_BIOMED_"))}
    env.update({"EAGLE_RAG_DATA_DIR": str(tmp_path / "data"), "EAGLE_RAG_SETTINGS_FILE": str(settings),
                "OMP_NUM_THREADS": "1"})
    return subprocess.run([sys.executable, "-m", "eagle_rag.cli.app", *args], env=env, text=True, capture_output=True,
                          timeout=600, cwd=tmp_path)


def test_cli_ingest_loses_only_the_bad_records_and_doctor_agrees(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    lines = pubmed_set(src / "baseline.xml")
    full = (src / "baseline.xml").read_bytes()
    (src / "cut.xml").write_bytes(full[: full.index(b"<PMID>5</PMID>") + 8])
    broken_line = sdf(src / "compounds.sdf")
    done = _cli(tmp_path, "ingest", str(src), "--kb", "bio", "--json")
    assert done.returncode == 1, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["failures"] == [] and report["documents"] == (ARTICLES - 1) + 4 + len(SMILES)
    failures = {(Path(f["file"]).name, f["record"], f["line"], f["record_id"]): f["reason"]
                for f in report["record_failures"]}
    assert set(failures) == {("baseline.xml", MALFORMED, lines[MALFORMED], str(MALFORMED)),
                             ("cut.xml", 5, lines[5], None), ("compounds.sdf", 3, broken_line, "broken")}
    assert failures[("baseline.xml", MALFORMED, lines[MALFORMED], str(MALFORMED))] == "PubmedArticle 7 has no Article"
    cut_reason = failures[("cut.xml", 5, lines[5], None)]
    assert cut_reason.startswith("malformed XML (line ") and cut_reason.endswith("the rest of the file cannot be read")
    counts = {Path(c["path"]).name: (c["records"], c["ingested"], c["failed"]) for c in report["files_detail"]}
    assert counts == {"baseline.xml": (ARTICLES, ARTICLES - 1, 1), "cut.xml": (5, 4, 1),
                      "compounds.sdf": (len(SMILES) + 1, len(SMILES), 1)}
    checked = _cli(tmp_path, "doctor", "--json")
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
    found = _cli(tmp_path, "search", "Marker11 tumour growth", "--kb", "bio", "--mode", "bm25", "--json")
    assert found.returncode == 0, found.stderr[-3000:]
    assert json.loads(found.stdout)["hits"][0]["document_id"].endswith("11")

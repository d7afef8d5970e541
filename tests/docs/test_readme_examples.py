"""The README's in-process Python example runs as written (the client example is run against a real
server in tests/client/test_client.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
README = Path(__file__).resolve().parents[2] / "README.md"
START = "```python\nfrom eagle_rag.engine import Engine"


def engine_example() -> str:
    text = README.read_text(encoding="utf-8")
    assert START in text, "the README lost its Engine example"
    return "from eagle_rag.engine import Engine" + text.split(START, 1)[1].split("```", 1)[0]


def test_the_engine_example_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "imatinib.md").write_text("# Imatinib\n\n## Dosing\n\nImatinib dosing for chronic myeloid leukemia "
                                       "is 400 mg once daily with food.\n", encoding="utf-8")
    (notes / "warfarin.md").write_text("# Warfarin\n\nWarfarin raises the risk of bleeding.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # the example ingests the relative folder "notes/"
    monkeypatch.setenv("EAGLE_RAG_DATA_DIR", str(tmp_path / "data"))
    exec(compile(engine_example(), "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed, "the example printed no hit"
    score, document_id, *rest = printed[0].split()
    assert float(score) > 0 and document_id.startswith("imatinib") and rest[-1] in ("exact", "partial")

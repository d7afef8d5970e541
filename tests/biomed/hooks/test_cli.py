"""``eagle-rag eval biomed``: registered by the plugin's eagle_cli_register hook; writes the JSON report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from eagle_rag.kernel.plugin_manager import build_plugin_manager
from eagle_rag.settings import load_settings
from eagle_rag_biomed.hooks.cli import biomed_cli_register

pytestmark = pytest.mark.integration

GOLD = [
    {"id": "q1", "query": "warfarin boxed warning bleeding", "expected_doc_ids": ["label_warfarin"],
     "expected_terms": ["INR"], "workflow": "regulatory"},
    {"id": "q2", "query": "CC(=O)Oc1ccccc1C(=O)O", "expected_doc_ids": ["cmp-aspirin"],
     "expected_terms": ["acetylsalicylic acid"], "workflow": "chemical"},
    {"id": "q3", "query": "a document that is not there", "expected_doc_ids": ["no_such_doc"],
     "expected_terms": [], "workflow": "general"},
]


def test_the_plugin_registers_the_command() -> None:
    pm = build_plugin_manager(load_settings(environ={}, overrides={"profile": "biomed"}), environ={})
    app, eval_app = typer.Typer(), typer.Typer()
    app.add_typer(eval_app, name="eval")
    pm.hook.eagle_cli_register(cli=app, eval_cli=eval_app)
    result = CliRunner().invoke(app, ["eval", "biomed", "--help"])
    assert result.exit_code == 0 and "gold set" in result.output


def test_report_shape_with_hash_encoders(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text("\n".join(json.dumps(g) for g in GOLD) + "\n", encoding="utf-8")
    app, eval_app = typer.Typer(), typer.Typer()
    app.add_typer(eval_app, name="eval")
    biomed_cli_register(app, eval_app)
    out = tmp_path / "report.json"
    env = {"EAGLE_RAG_ENCODERS__MODE": "deterministic", "EAGLE_BIOMED_ENCODER_MODE": "deterministic"}
    result = CliRunner().invoke(app, ["eval", "biomed", "--gold", str(gold), "--data-dir", str(tmp_path / "data"),
                                      "--mode", "hybrid", "--json", str(out)], env=env)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    assert set(report) >= {"overall", "by_workflow", "failures"}
    assert set(report["overall"]) >= {"hit@5", "recall@5", "mrr", "term_coverage"}
    assert set(report["by_workflow"]) == {"regulatory", "chemical", "general"}
    failure = next(f for f in report["failures"] if f["id"] == "q3")
    assert failure["failure_class"] == "gold_corpus_gap"
    assert "Hit@5" in result.output and "failures" in result.output

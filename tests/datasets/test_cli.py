"""The CLI through the plugin's eagle_cli_register, on a small typer app built here."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from eagle_rag_datasets.plugin import eagle_cli_register
from tests.datasets.conftest import MINI

pytestmark = pytest.mark.unit
runner = CliRunner()


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    cli, eval_cli = typer.Typer(), typer.Typer()
    assert eagle_cli_register(cli=cli, eval_cli=eval_cli) is None
    cli.add_typer(eval_cli, name="eval")
    return cli


def test_search_json(app):
    result = runner.invoke(app, ["datasets", "search", "bc5-cdr", "--json", "--cards", str(MINI), "--k", "2"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert body["hits"][0]["id"] == "t/bc5cdr" and len(body["hits"]) <= 2


def test_search_table_explain_and_filters(app):
    result = runner.invoke(app, ["datasets", "search", "NCBI Disease", "--cards", str(MINI), "--explain", "--strict"])
    assert result.exit_code == 0 and "t/ncbi_disease" in result.output and "tier_name" in result.output
    result = runner.invoke(app, ["datasets", "search", "NCBI Disease", "--cards", str(MINI), "--strict",
                                 "--lang", "zh", "--license", "cc0"])
    assert result.exit_code == 0 and "language filter excludes 1" in result.output


def test_search_switches(app):
    args = ["datasets", "search", "肿瘤", "--cards", str(MINI), "--json"]
    assert json.loads(runner.invoke(app, args).output)["total"] == 1
    assert json.loads(runner.invoke(app, [*args, "--no-synonyms"]).output)["total"] == 0
    sub = json.loads(runner.invoke(app, ["datasets", "search", "BC5CDR", "--engine", "substring", "--json",
                                         "--cards", str(MINI)]).output)
    assert sub["engine"] == "substring" and sub["hits"][0]["id"] == "t/bc5cdr"


def test_bad_input_is_a_clean_error(app):
    result = runner.invoke(app, ["datasets", "search", "x", "--engine", "magic", "--cards", str(MINI)])
    assert result.exit_code == 2 and "unknown engine" in result.output and "Traceback" not in result.output
    result = runner.invoke(app, ["datasets", "search", "x", "--k", "0", "--cards", str(MINI)])
    assert result.exit_code == 2 and "top_k" in result.output


def test_check(app):
    result = runner.invoke(app, ["datasets", "check", "t/bc5cdr", "ncbi_disease", "nope", "--cards", str(MINI)])
    assert result.exit_code == 0
    assert "known (1): t/bc5cdr" in result.output and "unknown (1): nope" in result.output
    assert "resolved: ncbi_disease -> t/ncbi_disease" in result.output


def test_eval_command_writes_json(app, tmp_path):
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"query": "BC5CDR", "relevant": ["t/bc5cdr"], "type": "name"}\n'
                       '{"query": "ImageNet", "relevant": [], "type": "empty"}\n', encoding="utf-8")
    out = tmp_path / "figures.json"
    result = runner.invoke(app, ["eval", "datasets", "--cards", str(MINI), "--queries", str(queries),
                                 "--engine", "bm25", "--json", str(out)])
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text())
    assert list(figures) == ["bm25"]
    assert figures["bm25"]["overall"] == {"hit@5": 1.0, "mrr": 1.0, "p@5": (0.2 + 1.0) / 2, "empty_correct": 1.0,
                                          "false_absent": 0, "n": 2}
    missing = runner.invoke(app, ["eval", "datasets", "--queries", str(tmp_path / "none.jsonl")])
    assert missing.exit_code == 2

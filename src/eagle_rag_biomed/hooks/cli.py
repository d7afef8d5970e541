"""``eagle-rag eval biomed``: the biomed gold set, registered through the ``eagle_cli_register`` hook.

The command is available when the biomed plugin is enabled (``EAGLE_RAG_PROFILE=biomed``). It always
builds its own engine with the biomed profile, ingests the bundled sample corpus into ``--data-dir``
(a temporary folder by default; an existing index is re-used, unchanged files are skipped), runs the
gold set (``eval/biomed/gold.jsonl``) and prints Hit@5, Recall@5, MRR and term coverage overall and
per workflow, and the failure class of every query that is not ``ok``. ``--json OUT`` writes
``{"overall", "by_workflow", "failures", "queries"}``; ``--check-gates`` exits 1 below the smoke
gates (:data:`eagle_rag_biomed.eval.runner.GATES`).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from eagle_rag.plugin_api import hookimpl

__all__ = ["biomed_cli_register", "default_gold_path", "eval_biomed_command"]

GOLD_RELATIVE = Path("eval") / "biomed" / "gold.jsonl"
KB_NAME = "biomed_gold"


def default_gold_path() -> Path:
    """``eval/biomed/gold.jsonl`` under the current folder, else under the source checkout."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[3]):
        candidate = root / GOLD_RELATIVE
        if candidate.is_file():
            return candidate
    raise typer.BadParameter(f"no gold file found at ./{GOLD_RELATIVE}; pass --gold PATH")


def _table(title: str, rows: dict[str, dict[str, float]]) -> Table:
    table = Table("workflow", "queries", "Hit@5", "Recall@5", "MRR", "term coverage", title=title)
    for name, m in rows.items():
        table.add_row(name, str(int(m.get("queries", 0))), f"{m['hit@5']:.3f}", f"{m['recall@5']:.3f}",
                      f"{m['mrr']:.3f}", f"{m['term_coverage']:.3f}")
    return table


def _run(gold_path: Path, data_dir: Path, mode: str, console: Console) -> Any:
    from eagle_rag.plugin_api.commands import Engine, effective_settings, parse_mode, sample_dir
    from eagle_rag_biomed.eval.gold_set import load_gold
    from eagle_rag_biomed.eval.runner import corpus_texts, run_gold, sample_corpus_paths

    gold = load_gold(gold_path)
    settings = effective_settings(overrides={"profile": "biomed", "data_dir": str(data_dir)})[0]
    with Engine(settings) as engine:
        paths = sample_corpus_paths(sample_dir())
        report = engine.ingest(paths, kb_name=KB_NAME)
        console.print(f"sample corpus: {report.documents} documents ingested, {report.skipped_unchanged} unchanged, "
                      f"{len(report.failures)} failed ({data_dir})")
        texts = corpus_texts(engine, paths, KB_NAME)
        return run_gold(engine, gold, parse_mode(mode), kb_name=KB_NAME, texts=texts)


def eval_biomed_command(
    gold: Annotated[Path | None, typer.Option("--gold", help="gold JSONL (default eval/biomed/gold.jsonl)")] = None,
    data_dir: Annotated[Path | None, typer.Option("--data-dir", help="index folder (default: a temp folder)")] = None,
    mode: Annotated[str, typer.Option(help="search mode: hybrid or full")] = "full",
    json_out: Annotated[Path | None, typer.Option("--json", help="write the report here")] = None,
    check_gates: Annotated[bool, typer.Option("--check-gates", help="exit 1 below the smoke gates")] = False,
) -> None:
    """Evaluate the biomed pipeline on the gold set over the bundled sample corpus."""
    from eagle_rag_biomed.eval.runner import GATES

    console = Console()
    gold_path = gold or default_gold_path()
    if data_dir is None:
        with tempfile.TemporaryDirectory(prefix="eagle-biomed-eval-") as tmp:
            report = _run(gold_path, Path(tmp), mode, console)
    else:
        report = _run(gold_path, data_dir, mode, console)
    console.print(_table(f"biomed gold set ({gold_path}, mode {mode})", {"overall": report.overall,
                                                                         **report.by_workflow}))
    failures = report.failures()
    if failures:
        table = Table("id", "workflow", "failure class", "expected", "top 5", title="failures")
        for f in failures:
            table.add_row(f["id"], f["workflow"], f["failure_class"], ", ".join(f["expected"]), ", ".join(f["top5"]))
        console.print(table)
    if json_out:
        json_out.write_text(json.dumps(report.to_dict(), ensure_ascii=False, indent=2), encoding="utf-8")
        console.print(f"report written to {json_out}")
    below = {k: report.overall[k] for k, gate in GATES.items() if report.overall[k] < gate}
    if below:
        console.print(f"[red]below the smoke gates[/]: {below} (gates {GATES})")
        if check_gates:
            raise typer.Exit(1)


@hookimpl(specname="eagle_cli_register")
def biomed_cli_register(cli: Any, eval_cli: Any) -> None:
    """Add ``eagle-rag eval biomed``; returns None."""
    eval_cli.command("biomed")(eval_biomed_command)

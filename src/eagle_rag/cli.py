"""The ``eagle-rag`` command line: a thin front end over the engine and the search service.

Errors become one clean line on stderr and exit code 2 (bad input) or 1 (anything else),
never a traceback.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from eagle_rag.errors import EagleError
from eagle_rag.settings import Settings, SettingsError, describe_fields, effective_settings, flatten

app = typer.Typer(help="Eagle-RAG: offline biomedical retrieval.", no_args_is_help=True,
                  pretty_exceptions_enable=False, add_completion=False)
config_app = typer.Typer(help="Inspect the settings.", no_args_is_help=True)
eval_app = typer.Typer(help="Measure retrieval quality.", no_args_is_help=True)
app.add_typer(config_app, name="config")
app.add_typer(eval_app, name="eval")
console = Console()
err = Console(stderr=True)


def _settings(**overrides: Any) -> Settings:
    return effective_settings(overrides={k: v for k, v in overrides.items() if v is not None})[0]


def _engine(**overrides: Any) -> Any:
    from eagle_rag.engine import Engine

    return Engine(_settings(**overrides))


def make_progress() -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeRemainingColumn(), console=err, transient=False,
                    disable=not err.is_terminal and os.environ.get("EAGLE_RAG_PROGRESS") != "1")


def ingest_with_progress(engine: Any, paths: list[Path], kb: str) -> Any:
    with make_progress() as progress:
        task = progress.add_task("embedding chunks", total=None)

        def tick(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        return engine.ingest(paths, kb_name=kb, progress=tick)


def print_report(report: Any) -> None:
    console.print(f"ingested {report.documents} documents ({report.chunks} chunks) from {report.files} files; "
                  f"{report.skipped_unchanged} unchanged, {report.replaced} replaced, "
                  f"{len(report.failures)} failed")
    for failure in report.failures:
        err.print(f"[yellow]skipped[/] {failure.path}: {failure.error}")
    for warning in getattr(report, "warnings", ()):
        err.print(f"[yellow]warning[/] {warning.path}: {warning.error}")


@app.command()
def ingest(paths: Annotated[list[Path], typer.Argument(help="files or folders")],
           kb: Annotated[str, typer.Option("--kb", help="knowledge base name")] = "default",
           json_out: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False) -> None:
    """Ingest files and folders (text, Markdown, HTML, JSON, JSONL, BEIR corpus.jsonl)."""
    with _engine() as engine:
        report = ingest_with_progress(engine, paths, kb)
    if json_out:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print_report(report)
    if report.failures and not report.documents and not report.skipped_unchanged:
        raise typer.Exit(1)


@app.command()
def search(query: Annotated[str, typer.Argument(help="the search text")],
           k: Annotated[int, typer.Option("--k", help="hits to return")] = 5,
           kb: Annotated[list[str] | None, typer.Option("--kb", help="restrict to kb name(s)")] = None,
           mode: Annotated[str, typer.Option(help="bm25 | dense | hybrid | full")] = "hybrid",
           explain: Annotated[bool, typer.Option("--explain", help="show the score trail")] = False,
           json_out: Annotated[bool, typer.Option("--json", help="print the whole SearchResponse")] = False) -> None:
    """Search the index."""
    from eagle_rag.service import parse_mode
    from eagle_rag.types import SearchRequest

    request = SearchRequest(query=query, top_k=k, kb_names=tuple(kb or ()), mode=parse_mode(mode),
                            explain=explain)
    with _engine() as engine:
        response = engine.search(request)
    if json_out:
        print(json.dumps(response.to_dict(), ensure_ascii=False, indent=2, default=str))
        return
    print_response(response, explain)


def print_response(response: Any, explain: bool = False) -> None:
    if not response.hits:
        console.print(f"[yellow]no results[/]: {response.empty_reason}")
        for name, count in response.excluded_by_filter.items():
            console.print(f"  filter {name} alone excludes {count} documents")
        return
    for rank, hit in enumerate(response.hits, start=1):
        snippet = " ".join(hit.text.split())[:160]
        console.print(f"[bold]{rank}.[/] {hit.score:.4f} [cyan]{hit.document_id}[/] [dim]{hit.path}[/] "
                      f"({hit.match.value}, {hit.collection})")
        console.print(f"   {snippet}")
        if explain:
            for entry in hit.trail:
                console.print(f"   [dim]{entry.stage}: rank {entry.rank} score {entry.score:.4f} "
                              f"{dict(entry.detail) if entry.detail else ''}[/]")


@app.command()
def demo() -> None:
    """Ingest the bundled sample corpus (first run) and run representative queries."""
    from eagle_rag.demo import run_demo

    with _engine() as engine:
        run_demo(engine, console, ingest_with_progress)


@config_app.command("show")
def config_show(json_out: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Print every effective setting and where its value came from."""
    settings, sources = effective_settings()
    flat = flatten(settings)
    help_text = describe_fields()
    if json_out:
        print(json.dumps({k: {"value": v, "source": sources.get(k, "default")} for k, v in flat.items()},
                         indent=2, default=str))
        return
    table = Table("setting", "value", "source", "help")
    for key, value in flat.items():
        table.add_row(key, json.dumps(value, default=str), sources.get(key, "default"), help_text.get(key, ""))
    console.print(table)
    models = Table("encoder label", "modality", "dim", "model")
    for row in registered_encoders(settings).describe():
        models.add_row(row["label"], row["modality"], str(row["dim"]), f"{row['model_ref']} ({row['description']})")
    console.print(models)


def registered_encoders(settings: Settings) -> Any:
    """The encoder registry as an engine builds it: core labels plus those the enabled plugins register.

    Nothing is loaded. A plugin whose registration fails is reported on stderr and left out.
    """
    from eagle_rag.audit import PluginAudit
    from eagle_rag.context import HookContext, Services
    from eagle_rag.engine import build_encoders
    from eagle_rag.plugin_manager import build_plugin_manager

    registry = build_encoders(settings)
    pm = build_plugin_manager(settings)
    ctx = HookContext(namespace=settings.plugins.default_namespace, settings=settings, audit=PluginAudit(),
                      services=Services(pm=pm, encoders=registry))
    for impl in pm.hook.eagle_register.get_hookimpls():
        try:
            impl.function(**{name: {"ctx": ctx, "encoders": registry}[name] for name in impl.argnames})
        except Exception as exc:  # noqa: BLE001 - config show still lists what could be registered
            err.print(f"[yellow]warning[/]: plugin {impl.plugin_name} could not register its encoders: {exc}")
    return registry


@eval_app.command("beir")
def eval_beir(directory: Annotated[Path, typer.Argument(help="BEIR folder")],
              split: Annotated[str, typer.Option(help="qrels split")] = "test",
              pipeline: Annotated[str, typer.Option(help="bm25|dense|hybrid|full|all")] = "all",
              limit_queries: Annotated[int | None, typer.Option(help="first N queries only")] = None,
              data_dir: Annotated[Path | None, typer.Option(help="index folder (re-used)")] = None,
              json_out: Annotated[Path | None, typer.Option("--json", help="write results here")] = None) -> None:
    """Evaluate on a BEIR dataset: nDCG@10, Recall@100, MRR@10, Hit@5, latency, ingest rate."""
    from eagle_rag.evaluation import beir
    from eagle_rag.service import parse_mode

    modes = list(beir.PIPELINES) if pipeline == "all" else [parse_mode(pipeline)]
    data = beir.load_beir(directory, split, limit_queries)
    index_name = f"{directory.resolve().name}-{beir.corpus_fingerprint(data.corpus_path)}"
    target = data_dir or _settings().data_path / "beir" / index_name
    with _engine(data_dir=str(target)) as engine:
        with make_progress() as progress:
            task = progress.add_task(f"indexing {data.corpus_docs} documents", total=None)
            rate = beir.ensure_index(engine, data, lambda d, t: progress.update(task, completed=d, total=t))
        results = []
        for mode in modes:
            result = beir.run_pipeline(engine, data, mode)
            result.ingest_docs_per_s = rate
            results.append(result)
    console.print(f"{directory} split={split} queries={len(data.queries)} index={target}")
    console.print(beir.format_table(results))
    console.print(f"ingest: {rate:.1f} documents/s")
    if json_out:
        json_out.write_text(json.dumps({r.pipeline: r.to_dict() for r in results}, indent=2))


def _register_plugin_commands() -> None:
    from eagle_rag.plugin_manager import build_plugin_manager

    pm = build_plugin_manager(_settings())
    pm.hook.eagle_cli_register(cli=app, eval_cli=eval_app)


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(level=os.environ.get("EAGLE_RAG_LOG_LEVEL", "WARNING"),
                        format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("pymilvus").setLevel(logging.ERROR)
    if os.environ.get("EAGLE_RAG_TRACE_HOOKS") in {"1", "true", "yes"}:
        logging.getLogger("eagle_rag.hooks").setLevel(logging.INFO)
    try:
        _register_plugin_commands()
        rc = app(args=argv, standalone_mode=False)
        if isinstance(rc, int) and rc:
            sys.exit(rc)
    except EagleError as exc:
        err.print(f"[red]error[/] ({exc.code}): {exc.message}", soft_wrap=True)
        sys.exit(2 if exc.http_status < 500 else 1)
    except (SettingsError, ValueError) as exc:
        err.print(f"[red]error[/]: {exc}", soft_wrap=True)
        sys.exit(2)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - the CLI never prints a traceback
        import click

        if isinstance(exc, click.ClickException):
            exc.show()
            sys.exit(exc.exit_code)
        err.print(f"[red]error[/]: {type(exc).__name__}: {exc}", soft_wrap=True)
        sys.exit(1)


from eagle_rag.cli_doctor import register_doctor_command  # noqa: E402
from eagle_rag.cli_server import register_server_commands  # noqa: E402

register_server_commands(app)
register_doctor_command(app)


if __name__ == "__main__":  # pragma: no cover
    main()

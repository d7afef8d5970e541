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
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from eagle_rag.cli.options import ApiKey, Local, Url
from eagle_rag.errors import EagleError
from eagle_rag.ingest.executors import RAY_MISSING, Executor, RayOptions
from eagle_rag.ops.progress import CommandProgress
from eagle_rag.settings import Settings, SettingsError, effective_settings
from eagle_rag.types import Facet

if TYPE_CHECKING:
    from eagle_rag.service.backend import Backend

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


def target_for(url: str | None, api_key: str | None, local: bool) -> tuple[Settings, Any]:
    """The settings and the :class:`~eagle_rag.service.backend.Target` of a command (see that module)."""
    from eagle_rag.service.backend import resolve_target

    settings = _settings()
    return settings, resolve_target(settings, url, api_key, local)


def ingest_with_progress(engine: Any, paths: list[Path], kb: str, **options: Any) -> Any:
    """``engine.ingest`` with progress (a bar, or a plain line when stderr is no terminal) that counts
    records from the first one, then each batch's records as they are prepared and its chunks as they are
    embedded (``ingest: 74 records, preparing 30/74 records, 9 s``, ``ingest: 74 records, embedding
    120/380 chunks, 15 s``)."""
    with ingest_progress() as progress:
        return engine.ingest(paths, kb_name=kb, progress=progress.update, stage_progress=progress.stage, **options)


def ingest_progress() -> CommandProgress:
    """The progress display of an ingest in this process (on stderr)."""
    return CommandProgress("ingest", "records", console=err)


SHOWN_RECORD_FAILURES = 10
"""Bad records the plain report lists (``--json`` gives every one)."""


def print_report(report: Any) -> None:
    """Counts, then per file with bad records its counts, then the first bad records and failed files."""
    dry = getattr(report, "dry_run", False)
    head = (f"dry run (nothing written): {report.documents} valid records" if dry
            else f"ingested {report.documents} documents ({report.chunks} chunks)")
    bad_records = getattr(report, "records_failed", 0)
    console.print(f"{head} from {report.files} files; {report.skipped_unchanged} unchanged, "
                  f"{report.replaced} replaced, {bad_records} bad records, {len(report.failures)} failed",
                  soft_wrap=True)
    for counts in getattr(report, "files_detail", ()):
        if counts.failed or counts.stopped:
            err.print(f"[yellow]{counts.path}[/]: {counts.records} records, {counts.ingested} "
                      f"{'valid' if dry else 'ingested'}, {counts.skipped} unchanged, {counts.failed} bad",
                      soft_wrap=True)
            if counts.stopped:
                err.print(f"  [red]{counts.stopped}[/]", soft_wrap=True)
    failures = getattr(report, "record_failures", [])
    for failure in failures[:SHOWN_RECORD_FAILURES]:
        err.print(f"[yellow]bad record[/] {failure.describe()}", soft_wrap=True)
    if len(failures) > SHOWN_RECORD_FAILURES:
        err.print(f"... and {len(failures) - SHOWN_RECORD_FAILURES} more bad records (--json lists every one)")
    for failure in report.failures:
        err.print(f"[yellow]skipped[/] {failure.path}: {failure.error}")
    for warning in getattr(report, "warnings", ()):
        err.print(f"[yellow]warning[/] {warning.path}: {warning.error}")


def ray_ingest_options(executor: Executor, address: str | None, actors: int | None,
                       writers: int | None = None) -> RayOptions | None:
    """The Ray options of ``ingest`` (None for the local executor); a usage error (exit 2) for Ray
    options without ``--executor ray`` or for a Ray that is not installed."""
    import importlib.util

    if executor is not Executor.RAY:
        if address is not None or actors is not None or writers is not None:
            raise typer.BadParameter("--ray-address, --ray-actors and --ray-writers need --executor ray",
                                     param_hint="--executor")
        return None
    if importlib.util.find_spec("ray") is None:
        raise typer.BadParameter(RAY_MISSING, param_hint="--executor")
    return RayOptions(address=address, actors=actors, writers=writers)


@app.command()
def ingest(paths: Annotated[list[Path], typer.Argument(help="files or folders", exists=True)],
           kb: Annotated[str, typer.Option("--kb", help="knowledge base name")] = "default",
           json_out: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
           url: Url = None, api_key: ApiKey = None, local: Local = False,
           dry_run: Annotated[bool, typer.Option("--dry-run", help="parse and validate, report, write "
                                                  "nothing")] = False,
           max_errors: Annotated[int | None, typer.Option("--max-errors", min=0, help="bad records a file may have "
                                                          "before it stops (default: ingest.max_record_errors)")
                                 ] = None,
           executor: Annotated[Executor, typer.Option("--executor", help="run the stages here (local) or on Ray "
                                                      "Data (ray; extra 'ray')")] = Executor.LOCAL,
           ray_address: Annotated[str | None, typer.Option("--ray-address", help="Ray cluster to join (auto or "
                                                           "HOST:PORT of `ray start --head`); default: a local "
                                                           "Ray")] = None,
           ray_actors: Annotated[int | None, typer.Option("--ray-actors", min=1, help="embedding actors (default: "
                                                          "one a GPU, else the CPUs less one)")] = None,
           ray_writers: Annotated[int | None, typer.Option("--ray-writers", min=1, help="write actors when every "
                                                           "store is a server (Milvus server, lexical.backend "
                                                           "milvus, PostgreSQL registry; default: as many as "
                                                           "embedding actors); embedded stores have this process "
                                                           "as their one writer")] = None) -> None:
    """Ingest files and folders (text, Markdown, HTML, JSON, JSONL, BEIR corpus.jsonl, CSV, TSV).

    Multi-record files are read record by record: a bad record is reported with its line and the
    rest of the file goes on. Exit code 1 when any file or record failed.
    Through a server, the files are uploaded (a document's id then comes from the name it is sent
    under: its file name, or for files of one ingest that share a name, their paths below the folder
    holding all the paths given).
    A named pipe, socket or device is skipped as "not a regular file".
    With --executor ray the same stages run on Ray Data (docs/scale.md) and this process writes the
    data folder, so no server may own it; when every store is a server, write actors write in
    parallel."""
    from eagle_rag.errors import InvalidRequest
    from eagle_rag.service.backend import open_backend
    from eagle_rag.service.health import parallel_writes

    ray_options = ray_ingest_options(executor, ray_address, ray_actors, ray_writers)
    settings, target = target_for(url, api_key, local)
    if ray_options is not None and ray_options.writers and not parallel_writes(settings):
        raise typer.BadParameter("--ray-writers needs server stores (milvus.uri a Milvus server, lexical.backend "
                                 "milvus, registry.url PostgreSQL): an embedded store has one writer, this process",
                                 param_hint="--ray-writers")
    with open_backend(settings, target, "ingest") as backend:
        try:
            report = backend.ingest(paths, kb, dry_run=dry_run, max_errors=max_errors, executor=executor,
                                    ray=ray_options, progress=ingest_progress())
        except InvalidRequest as exc:
            if exc.details.get("field") != "executor":
                raise
            raise typer.BadParameter(exc.message, param_hint="--executor") from None  # a server refuses Ray
    if json_out:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print_report(report)
    if report.any_failed:
        raise typer.Exit(1)


@app.command()
def search(query: Annotated[str, typer.Argument(help="the search text")],
           k: Annotated[int, typer.Option("--k", min=1, help="hits to return")] = 5,
           kb: Annotated[list[str] | None, typer.Option("--kb", help="restrict to kb name(s)")] = None,
           mode: Annotated[str, typer.Option(help="bm25 | dense | hybrid | full")] = "hybrid",
           explain: Annotated[bool, typer.Option("--explain", help="show the score trail")] = False,
           json_out: Annotated[bool, typer.Option("--json", help="print the whole SearchResponse")] = False,
           offset: Annotated[int, typer.Option("--offset", min=0, help="hits to skip (page n of size k: n*k)")] = 0,
           source_type: Annotated[list[str] | None, typer.Option("--source-type", help="keep these source types "
                                                                 "(markdown, jsonl, ...)")] = None,
           chunk_type: Annotated[list[str] | None, typer.Option("--chunk-type", help="keep these chunk types")] = None,
           section: Annotated[list[str] | None, typer.Option("--section", help="keep these sections")] = None,
           doc_type: Annotated[list[str] | None, typer.Option("--doc-type", help="keep these document types")] = None,
           published_from: Annotated[str | None, typer.Option("--from", help="published on or after (YYYY[-MM[-DD]])")]
           = None,
           published_to: Annotated[str | None, typer.Option("--to", help="published on or before (YYYY[-MM[-DD]])")]
           = None,
           recency: Annotated[float | None, typer.Option("--recency", metavar="DAYS", help="decay hits by the age "
                              "of their publication date with this half-life in days (undated hits: not decayed)")]
           = None,
           max_per_document: Annotated[int | None, typer.Option("--max-per-document", min=1, help="keep at most "
                                                                "this many chunks of one document")] = None,
           diversity: Annotated[float | None, typer.Option("--diversity", metavar="LAMBDA",
                                                           help="reorder by MMR over the stored vectors (1: "
                                                                "relevance only, 0: novelty only)")] = None,
           facet: Annotated[list[Facet] | None, typer.Option("--facet", help="count this attribute over every "
                                                             "matching hit (repeat for several)")] = None,
           min_relevance: Annotated[float | None, typer.Option("--min-relevance", help="drop hits whose "
                                                               "relevance is under this probability (0 to 1)")]
           = None,
           url: Url = None, api_key: ApiKey = None, local: Local = False) -> None:
    """Search the index (through the server that owns the data folder, when one runs)."""
    from eagle_rag.service.backend import open_backend
    from eagle_rag.service.requests import parse_mode
    from eagle_rag.types import SearchRequest

    if recency is not None and not recency > 0:
        raise typer.BadParameter(f"the half-life must be a positive number of days, got {recency:g}",
                                 param_hint="--recency")
    if diversity is not None and not 0.0 <= diversity <= 1.0:
        raise typer.BadParameter(f"the MMR lambda must be between 0 and 1, got {diversity:g}",
                                 param_hint="--diversity")
    request = SearchRequest(query=query, top_k=k, kb_names=tuple(kb or ()), mode=parse_mode(mode),
                            explain=explain, offset=offset, source_types=tuple(source_type or ()),
                            chunk_types=tuple(chunk_type or ()), sections=tuple(section or ()),
                            doc_types=tuple(doc_type or ()), published_from=published_from,
                            published_to=published_to, recency=recency, max_per_document=max_per_document,
                            diversity=diversity, facets=tuple(f.value for f in facet or ()),
                            min_relevance=min_relevance)
    settings, target = target_for(url, api_key, local)
    check_page(settings, k, offset)
    with open_backend(settings, target, "search") as backend:
        response = backend.search(request)
    if json_out:
        print(json.dumps(response.to_dict(), ensure_ascii=False, indent=2, default=str))
        return
    print_response(response, explain)


def check_page(settings: Settings, k: int, offset: int) -> None:
    """A usage error (the usage line, exit 2) naming ``--k`` or ``--offset`` when the page is outside the
    limits of ``search`` (``--k 0`` is refused by the option itself), before anything is opened."""
    limits = settings.search
    if k > limits.max_top_k:
        raise typer.BadParameter(f"{k} is more than search.max_top_k ({limits.max_top_k})", param_hint="--k")
    if offset + k > limits.max_window:
        raise typer.BadParameter(f"--offset {offset} + --k {k} is more than search.max_window ({limits.max_window})",
                                 param_hint="--offset")


def _number(value: Any) -> str:
    """``2`` for 2.0, ``0.903`` for 0.9014778: a trail value as a person reads it."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.3f}"
    return str(value)


def trail_line(entry: Any) -> str:
    """One stage of a hit's score trail in words: ``hybrid_rrf: rank 1, score 0.0325; ranks in the fused
    lists 2, 1, 1`` (``rank_N``: the hit's rank in the N-th list fused), then the stage's other signals
    (``ce_norm 1, prior 0.903``) and why it was skipped."""
    text = f"{entry.stage}: rank {entry.rank}, score {entry.score:.4f}"
    detail = dict(entry.detail or {})
    ranks = [_number(detail.pop(key)) for key in sorted((k for k in detail if k.startswith("rank_")),
                                                         key=lambda k: int(k[5:]) if k[5:].isdigit() else 0)]
    if ranks:
        text += f"; ranks in the fused lists {', '.join(ranks)}"
    if detail:
        text += "; " + ", ".join(f"{key} {_number(value)}" for key, value in detail.items())
    if getattr(entry, "skipped", ""):
        text += f" (skipped: {entry.skipped})"
    return text


def print_response(response: Any, explain: bool = False) -> None:
    for warning in getattr(response, "warnings", ()):
        console.print(f"[yellow]warning[/]: {escape(warning)}")
    if not response.hits:
        console.print(f"[yellow]no results[/]: {response.empty_reason}")
        for name, count in response.excluded_by_filter.items():
            console.print(f"  filter {name} alone excludes {count} documents")
        _print_dropped(response)
        print_facets(response)
        return
    several_kbs = len({hit.kb_name for hit in response.hits}) > 1  # the same id may then be two documents
    for rank, hit in enumerate(response.hits, start=response.offset + 1):
        snippet = " ".join(hit.text.split())[:160]
        name = f"{hit.kb_name}/{hit.document_id}" if several_kbs else hit.document_id
        console.print(f"[bold]{rank}.[/] {relevance_text(hit.relevance):>4} {hit.score:.4f} [cyan]{escape(name)}[/] "
                      f"[dim]{escape(hit.path)}[/] ({hit.match.value}, {hit.collection})")
        console.print(f"   {snippet}")
        if explain:
            console.print(f"   [dim]relevance: {relevance_text(hit.relevance)} (calibrated probability that the hit "
                          "is relevant; score is the last stage's)[/]")
            for entry in hit.trail:
                console.print(f"   [dim]{escape(trail_line(entry))}[/]", soft_wrap=True)
    print_summary(response)


def relevance_text(value: float | None) -> str:
    """``87%`` for a relevance of 0.87, ``-`` for none (no model for the profile and mode)."""
    return "-" if value is None else f"{value:.0%}"


def _print_dropped(response: Any) -> None:
    dropped = getattr(response, "dropped", {}) or {}
    reasons = {"semantic_floor": "semantic-only hits under the cosine floor",
               "filters": "chunks outside the metadata filters",
               "max_per_document": "chunks beyond --max-per-document",
               "min_relevance": "hits under --min-relevance"}
    parts = [f"{n} {reasons.get(name, name)}" for name, n in dropped.items() if n]
    if parts:
        console.print(f"[dim]dropped: {'; '.join(parts)}[/]")


def print_summary(response: Any) -> None:
    """One line: which hits of how many, whether the list is complete; then what was dropped."""
    first, last = response.offset + 1, response.offset + len(response.hits)
    bound = "" if response.total_relation.value == "eq" else "at least "
    expected = getattr(response, "expected_relevant", None)
    relevant = "" if expected is None else f"; expected relevant: {expected:.1f}"
    if getattr(response, "relevance_note", None):
        console.print(f"[dim]{escape(response.relevance_note)}[/]")
    console.print(f"hits {first}-{last} of {bound}{response.total}; exhaustive: {str(response.exhaustive).lower()}"
                  f"{relevant}")
    _print_dropped(response)
    print_facets(response)


def print_facets(response: Any) -> None:
    """One line per facet asked (``year: 2023 (4), 2019 (2)``) and, with --recency, the undated hits."""
    for name, counts in (getattr(response, "facets", {}) or {}).items():
        values = ", ".join(f"{escape(value)} ({count})" for value, count in counts.items()) or "none"
        console.print(f"{name}: {values}", soft_wrap=True)
    if getattr(response, "undated", 0):
        console.print(f"[dim]{response.undated} hits have no publication date: --recency did not decay them[/]")


@app.command()
def delete(document_ids: Annotated[list[str], typer.Argument(help="document ids (as search hits show them)")],
           kb: Annotated[str | None, typer.Option("--kb", help="the kb of the documents (needed when several "
                                                             "kbs hold an id)")] = None,
           url: Url = None, api_key: ApiKey = None, local: Local = False) -> None:
    """Remove documents from every store and the registry (exit 1 when an id is unknown or, without
    --kb, held by several kbs: the line names those kbs; exit 2 when the --kb kb does not exist)."""
    from eagle_rag.errors import AmbiguousDocument, NotFound
    from eagle_rag.service.backend import open_backend

    settings, target = target_for(url, api_key, local)
    missing = []
    with open_backend(settings, target, "delete") as backend:
        for document_id in document_ids:
            try:
                backend.delete_document(document_id, kb_name=kb)
            except NotFound:
                kbs = backend.kb_names()
                if kb is not None and kbs is not None and kb not in kbs:
                    raise NotFound(f"there is no kb {kb!r} (kbs: {', '.join(kbs) or 'none'})",
                                   {"kb_name": kb}) from None
                missing.append(document_id)
                err.print(f"[yellow]not found[/]: {escape(document_id)}" + (f" in kb {escape(kb)}" if kb else ""))
            except AmbiguousDocument:
                missing.append(document_id)
                holders = _kbs_holding(backend, document_id)
                where = f" ({', '.join(holders)})" if holders else ""
                err.print(f"[yellow]ambiguous[/]: the document id {escape(repr(document_id))} is in several "
                          f"kbs{escape(where)}: pass --kb <name>", soft_wrap=True)
            else:
                console.print(f"deleted {escape(document_id)}")
    if missing:
        raise typer.Exit(1)


def _kbs_holding(backend: Backend, document_id: str) -> list[str]:
    """The kbs that hold a document with this id (empty when the kbs cannot be read)."""
    from eagle_rag.errors import NotFound

    holders = []
    for name in backend.kb_names() or []:
        try:
            backend.get_document(document_id, kb_name=name)
        except NotFound:
            continue
        holders.append(name)
    return holders


@app.command()
def demo() -> None:
    """Ingest the bundled sample corpus (first run) and run representative queries."""
    from eagle_rag.engine import Engine
    from eagle_rag.ops.demo import run_demo
    from eagle_rag.service.backend import require_local

    settings = _settings()
    require_local(settings, "demo")
    with Engine(settings) as engine:
        report = run_demo(engine, console, ingest_with_progress)
    if report.any_failed:
        print_report(report)
        err.print("[red]error[/]: the sample corpus did not ingest completely (see above)", soft_wrap=True)
        raise typer.Exit(1)


@config_app.command("show")
def config_show(json_out: Annotated[bool, typer.Option("--json", help="print the rows as JSON")] = False) -> None:
    """Print every effective setting and every option of the enabled plugins: value, source, help.

    The source is default, profile:NAME, file:PATH or env:VAR. Secrets are masked as in ``GET /config``
    (the value of a key, a password or a token; a password inside a URL).
    """
    from eagle_rag.kernel.plugin_manager import build_plugin_manager
    from eagle_rag.kernel.plugin_options import setting_rows
    from eagle_rag.redact import mask_secret

    settings, sources = effective_settings()
    rows = setting_rows(settings, sources, build_plugin_manager(settings))
    if json_out:
        print(json.dumps({r.key: {"value": mask_secret(r.key, r.value), "source": r.source, "help": r.help}
                          for r in rows}, indent=2, default=str))
        return
    table = Table()
    for column in ("setting", "value", "source", "help"):
        table.add_column(column, overflow="fold")  # an env var name or a path is wrapped, never cut
    for row in rows:
        table.add_row(row.key, json.dumps(mask_secret(row.key, row.value), default=str), row.source, row.help)
    console.print(table)
    models = Table("encoder label", "modality", "dim", "model")
    for row in registered_encoders(settings).describe():
        models.add_row(row["label"], row["modality"], str(row["dim"]), f"{row['model_ref']} ({row['description']})")
    console.print(models)


def registered_encoders(settings: Settings) -> Any:
    """The encoder registry as an engine builds it: core labels plus those the enabled plugins register.

    Nothing is loaded. A plugin whose registration fails is reported on stderr and left out.
    """
    from eagle_rag.context import HookContext, Services
    from eagle_rag.engine import build_encoders
    from eagle_rag.kernel.audit import PluginAudit
    from eagle_rag.kernel.plugin_manager import build_plugin_manager

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
def eval_beir(directory: Annotated[Path, typer.Argument(help="BEIR folder", exists=True, file_okay=False)],
              split: Annotated[str, typer.Option(help="qrels split")] = "test",
              pipeline: Annotated[str, typer.Option(help="bm25|dense|hybrid|full|all")] = "all",
              limit_queries: Annotated[int | None, typer.Option(help="first N queries only")] = None,
              query_offset: Annotated[int, typer.Option(min=0, help="skip the first N judged queries (with "
                                                        "--limit-queries: a slice)")] = 0,
              query_set: Annotated[Path | None, typer.Option(help="JSON file of {part: [query id, ...]}: run the "
                                                             "queries of --part only, in its order (e.g. "
                                                             "eval/biomed/bioasq_split.json)")] = None,
              part: Annotated[str, typer.Option(help="the part of --query-set to run")] = "tune",
              data_dir: Annotated[Path | None, typer.Option(help="index folder (re-used)")] = None,
              json_out: Annotated[Path | None, typer.Option("--json", help="write results here, with every "
                                                            "query's nDCG@10, Recall@100 and ms")] = None) -> None:
    """Evaluate on a BEIR dataset: nDCG@10, Recall@100, MRR@10, Hit@5, latency, ingest rate.

    The index folder is opened directly: a folder that a server (or another process) holds is refused, and
    so is one holding the corpus written under other settings (the profile, encoders, collections, sentence
    rows, token vectors: evaluation.beir.index_settings), which also key the default folder."""
    from eagle_rag.engine import Engine
    from eagle_rag.errors import InvalidRequest
    from eagle_rag.evaluation import beir
    from eagle_rag.service.backend import require_local
    from eagle_rag.service.requests import parse_mode
    from eagle_rag.types import SearchMode

    if pipeline != "all" and pipeline.strip().lower() not in {m.value for m in SearchMode}:
        raise InvalidRequest(f"unknown pipeline {pipeline!r}; valid values: "
                             f"{', '.join([*(m.value for m in SearchMode), 'all'])}", {"field": "pipeline"})
    modes = list(beir.PIPELINES) if pipeline == "all" else [parse_mode(pipeline)]
    only = beir.query_set(query_set, part) if query_set is not None else None
    data = beir.load_beir(directory, split, limit_queries, query_offset, only)
    if data_dir is None:
        from eagle_rag.kernel.plugin_manager import build_plugin_manager

        base = _settings()
        target = base.data_path / "beir" / beir.index_folder_name(data, base, build_plugin_manager(base))
    else:
        target = data_dir
    settings = _settings(data_dir=str(target))
    require_local(settings, "eval beir")
    with Engine(settings) as engine:
        with CommandProgress("eval beir: indexing", "documents", data.corpus_docs, console=err) as progress:
            rate = beir.ensure_index(engine, data, lambda done, _total: progress.update(done))
        results = []
        for mode in modes:
            with CommandProgress(f"eval beir: {mode.value}", "queries", len(data.queries), console=err) as progress:
                result = beir.run_pipeline(engine, data, mode, progress=progress.update)
            result.ingest_docs_per_s = rate
            results.append(result)
    chosen = f" set={query_set}:{part}" if query_set is not None else ""
    console.print(f"{directory} split={split}{chosen} queries={len(data.queries)} offset={query_offset} "
                  f"profile={settings.profile} index={target}")
    console.print(beir.format_table(results))
    console.print(f"ingest: {rate:.1f} documents/s")
    if json_out:
        json_out.write_text(json.dumps(beir.results_json(results, settings.profile), indent=2))


@app.command()
def calibrate(queries: Annotated[Path, typer.Option(help="the judged queries: a BEIR queries.jsonl "
                                                    "({\"_id\", \"text\"} per line)", exists=True, dir_okay=False)],
              qrels: Annotated[Path, typer.Option(help="the judgements: TSV query-id, corpus-id, grade (the "
                                                  "document id, or a record's record_id)", exists=True,
                                                  dir_okay=False)],
              mode: Annotated[list[str] | None, typer.Option(help="mode to fit (repeat; default hybrid)")] = None,
              corpus: Annotated[Path | None, typer.Option(help="a BEIR corpus.jsonl to ingest into kb beir when "
                                                          "the data folder does not hold it (else the folder's "
                                                          "own documents are searched)", exists=True,
                                                          dir_okay=False)] = None,
              data_dir: Annotated[Path | None, typer.Option(help="the data folder (default: the settings')")] = None,
              min_grade: Annotated[int, typer.Option(min=1, help="the lowest grade that counts as relevant")] = 1,
              limit_queries: Annotated[int | None, typer.Option(min=1, help="first N judged queries only")] = None,
              depth: Annotated[int, typer.Option(min=1, max=100, help="hits per query to fit on")] = 10,
              by_kind: Annotated[bool, typer.Option("--by-kind", help="queries of several kinds (questions, "
                                                    "statements, Chinese) also get a model per kind")] = False) -> None:
    """Fit the relevance probability of every hit on your own judgements and settings.

    Runs the judged queries in each mode, labels the top --depth hits from the qrels (unjudged hits count
    as not relevant) and fits a logistic model per mode (eagle_rag.retrieve.relevance), and with --by-kind one
    per query kind too, written into the data folder as relevance.json: it takes precedence over the
    parameters the profile ships."""
    from eagle_rag.engine import Engine
    from eagle_rag.errors import InvalidRequest
    from eagle_rag.evaluation import beir
    from eagle_rag.evaluation import calibrate as fitting
    from eagle_rag.service.backend import require_local
    from eagle_rag.service.requests import parse_mode

    modes = [parse_mode(m) for m in (mode or ["hybrid"])]
    judged, texts = beir.read_judgements(queries, qrels)
    ids = [q for q in judged if q in texts][:limit_queries]
    if not ids:
        raise InvalidRequest(f"no query of {queries} is judged in {qrels}", {"field": "qrels"})
    data = beir.BeirData(queries.parent, {q: texts[q] for q in ids}, {q: judged[q] for q in ids},
                         corpus or Path(), 0)
    settings = _settings(data_dir=str(data_dir) if data_dir else None)
    require_local(settings, "calibrate")
    with Engine(settings) as engine:
        if corpus is not None:
            with CommandProgress("calibrate: indexing", "documents", console=err) as progress:
                beir.ensure_index(engine, data, lambda done, _total: progress.update(done))
        params = fitting.calibrate(engine, data, modes, depth, min_grade, (beir.KB_NAME,) if corpus else (),
                                   fitted_on=f"{qrels.name}: {len(ids)} queries, grade >= {min_grade}",
                                   by_kind=by_kind)
    for name, model in sorted(params.models.items()):
        clipped = f"; held at 0 (monotone): {', '.join(model.clipped)}" if model.clipped else ""
        console.print(f"{name}: {model.samples} hits, {model.positives} relevant{clipped}")
    console.print(f"relevance parameters written to {params.source}")


def _register_plugin_commands() -> None:
    from eagle_rag.kernel.plugin_manager import build_plugin_manager

    pm = build_plugin_manager(_settings())
    pm.hook.eagle_cli_register(cli=app, eval_cli=eval_app)


def _print_version(value: bool) -> None:
    if value:
        from eagle_rag import __version__

        print(f"eagle-rag {__version__}")
        raise typer.Exit()


@app.callback()
def _global_options(
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_print_version,
                                          help="print the version and exit")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="also show what the libraries log (gRPC, "
                                          "pymilvus, numba) and the traceback of an unexpected error")] = False,
) -> None:
    """Eagle-RAG: offline biomedical retrieval."""
    # --verbose is applied by main() before the command line is parsed (grpc reads its settings on import)


def main(argv: list[str] | None = None) -> None:
    """The ``eagle-rag`` entry point: usage errors exit 2 with the usage line, any other error is one line
    on stderr (exit 2 for bad input, 1 otherwise)."""
    from eagle_rag.cli.help import tidy
    from eagle_rag.cli.logs import setup, wants_verbose

    args = sys.argv[1:] if argv is None else list(argv)
    verbose = wants_verbose(args)
    try:
        setup(verbose)
        if os.environ.get("EAGLE_RAG_TRACE_HOOKS") in {"1", "true", "yes"}:
            logging.getLogger("eagle_rag.hooks").setLevel(logging.INFO)
        _register_plugin_commands()
        tidy(typer.main.get_command(app)).main(args=args, prog_name="eagle-rag", standalone_mode=True)
    except EagleError as exc:
        err.print(f"[red]error[/] ({exc.code}): {exc.message}", soft_wrap=True)
        sys.exit(getattr(exc, "cli_exit_code", 2 if exc.http_status < 500 else 1))
    except (SettingsError, ValueError) as exc:
        err.print(f"[red]error[/]: {exc}", soft_wrap=True)
        sys.exit(2)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - no traceback unless --verbose
        if verbose:
            err.print_exception()
        err.print(f"[red]error[/]: {type(exc).__name__}: {exc}", soft_wrap=True)
        sys.exit(1)


from eagle_rag.cli.doctor import register_doctor_command  # noqa: E402
from eagle_rag.cli.reindex import register_reindex_command  # noqa: E402
from eagle_rag.cli.server import register_server_commands  # noqa: E402
from eagle_rag.cli.snapshot import register_snapshot_commands  # noqa: E402

register_server_commands(app)
register_doctor_command(app)
register_snapshot_commands(app)
register_reindex_command(app)


if __name__ == "__main__":  # pragma: no cover
    main()

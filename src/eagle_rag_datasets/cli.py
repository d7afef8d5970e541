"""Command line: ``eagle-rag datasets search|check`` and ``eagle-rag eval datasets``.

Thin wrappers over the Python API; bad input prints one clean error line and exits with 2.
``search`` and ``check`` go through the HTTP API of a server when one is named (``--url``) or owns
the data folder, like every other command, unless ``--local`` or ``--cards`` asks for this process.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from eagle_rag.plugin_api import EagleError
from eagle_rag.plugin_api.commands import CommandProgress, Target, load_settings, open_remote, resolve_target
from eagle_rag_datasets.errors import DatasetsError
from eagle_rag_datasets.evaluate import METRICS, evaluate_engines, parse_engines, read_queries
from eagle_rag_datasets.reply.advice import naming_control
from eagle_rag_datasets.reply.response import DatasetSearchResponse, IdCheckResponse
from eagle_rag_datasets.search.query import MAX_TOP_K, DatasetQuery
from eagle_rag_datasets.service import get_catalog

datasets_app = typer.Typer(help="Search the dataset-card catalog.", no_args_is_help=True)
_CARDS = typer.Option(None, "--cards", help="JSONL or YAML card file (default: plugin option or bundled)")
_URL = typer.Option(None, "--url", help="a running server (default: EAGLE_RAG_URL or the folder's server)")
_KEY = typer.Option(None, "--api-key", help="the server's API key (default: EAGLE_RAG_API_KEY)")
_LOCAL = typer.Option(False, "--local", help="read the catalog in this process even when a server runs")


def _server(url: str | None, api_key: str | None, local: bool, cards: Path | None) -> Target | None:
    """The server to ask, or None to read the catalog here (``--local``, ``--cards`` or no server)."""
    if cards is not None and not url:
        return None
    try:
        target = resolve_target(load_settings(), url, api_key, local)
    except EagleError as exc:
        raise _fail(exc) from None
    return target if target.remote else None


def _remote(target: Target, call: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    try:
        with open_remote(target) as client:  # the catalog's routes: the HTTP client's datasets_* methods
            return call(client)
    except EagleError as exc:
        raise _fail(exc) from None


def _fail(exc: Exception) -> typer.Exit:
    typer.echo(f"Error: {exc}", err=True)
    return typer.Exit(code=2)


def _print_search(response: DatasetSearchResponse, explain: bool) -> None:
    console = Console()
    if response.hits:
        table = Table(title=f"{response.engine}: {response.query}")
        for column in ("#", "id", "name", "match", "fields", "similarity", "licence"):
            table.add_column(column)
        for hit in response.hits:
            similarity = "-" if hit.similarity is None else f"{hit.similarity:.3f}"
            table.add_row(str(hit.rank), hit.id, hit.name, hit.match, hit.fields, similarity, hit.license_id)
        console.print(table)
    console.print(naming_control(response.message, "--k", MAX_TOP_K), markup=False)
    for constraint in response.unsatisfied:
        excluded = "excluded " if constraint.get("excluded") else ""
        console.print(f"emptied by the {excluded}{constraint['kind']} term {constraint['term']!r}: "
                      f"{constraint['cards']} of {constraint['of']} cards satisfy it", markup=False)
    if response.suggestions:
        console.print("suggestions (not matches):", markup=False)
        for s in response.suggestions:
            near = "" if s.similarity is None else f", similarity {s.similarity:.3f}"
            fails = f", fails {'; '.join(s.fails)}" if s.fails else ""
            console.print(f"  {s.id}: {s.name}{near}{fails}", markup=False)
    console.print(f"total {response.total}, exhaustive: {str(response.exhaustive).lower()}", markup=False)
    for warning in response.warnings:
        console.print(f"warning: {warning}", markup=False)
    if explain:
        for hit in response.hits:
            console.print(f"{hit.rank}. {hit.id}: {json.dumps(hit.explanation, ensure_ascii=False)}", markup=False)


@datasets_app.command("search")
def search_command(
    query: str = typer.Argument(..., help="words to search for (Chinese, English or mixed)"),
    k: int = typer.Option(10, "--k", "-k", help="hits to return (1-100)"),
    strict: bool = typer.Option(False, "--strict", help="require every query term (no partial or semantic hits)"),
    no_semantic: bool = typer.Option(False, "--no-semantic", help="switch the semantic (multilingual e5) channel off"),
    no_synonyms: bool = typer.Option(False, "--no-synonyms", help="switch synonym expansion off"),
    no_typos: bool = typer.Option(False, "--no-typos", help="switch typo tolerance off"),
    no_prior: bool = typer.Option(False, "--no-prior", help="switch the verification prior off"),
    engine: str = typer.Option("index", "--engine", help="index, bm25 or substring"),
    lang: list[str] = typer.Option([], "--lang", help="language filter (repeatable): zh, en, Chinese..."),
    license: list[str] = typer.Option([], "--license", help="licence filter (repeatable): cc-by, mit..."),
    task: list[str] = typer.Option([], "--task", help="task filter (repeatable)"),
    source: list[str] = typer.Option([], "--source", help="source filter (repeatable): bigbio, mteb..."),
    tag: list[str] = typer.Option([], "--tag", help="tag filter (repeatable)"),
    explain: bool = typer.Option(False, "--explain", help="explain each hit's rank"),
    as_json: bool = typer.Option(False, "--json", help="print the response as JSON"),
    cards: Path | None = _CARDS,
    url: str | None = _URL,
    api_key: str | None = _KEY,
    local: bool = _LOCAL,
) -> None:
    """Search dataset cards by name, alias, id or description."""
    server = _server(url, api_key, local, cards)
    if server is not None:
        options = {"strict": strict, "semantic": not no_semantic, "synonyms": not no_synonyms,
                   "typos": not no_typos, "prior": not no_prior, "engine": engine, "explain": explain,
                   "languages": list(lang), "licenses": list(license),
                   "tasks": list(task), "sources": list(source), "tags": list(tag)}
        answer = _remote(server, lambda client: client.datasets_search(query, k, **options))
        if as_json:
            typer.echo(json.dumps(answer, ensure_ascii=False, indent=2))
        else:
            _print_search(DatasetSearchResponse.from_dict(answer), explain)
        return
    try:
        request = DatasetQuery(query, top_k=k, engine=engine, strict=strict, semantic=not no_semantic,
                               synonyms=not no_synonyms,
                               typos=not no_typos, prior=not no_prior, explain=explain, languages=tuple(lang),
                               licenses=tuple(license), tasks=tuple(task), sources=tuple(source), tags=tuple(tag))
        response = get_catalog(cards).search(request)
    except DatasetsError as exc:
        raise _fail(exc) from None
    if as_json:
        typer.echo(json.dumps(response.to_dict(), ensure_ascii=False, indent=2))
    else:
        _print_search(response, explain)


@datasets_app.command("check")
def check_command(
    ids: list[str] = typer.Argument(..., help="card ids to check"),
    as_json: bool = typer.Option(False, "--json", help="print the answer as JSON"),
    cards: Path | None = _CARDS,
    url: str | None = _URL,
    api_key: str | None = _KEY,
    local: bool = _LOCAL,
) -> None:
    """Report which ids the catalog knows (no search per id)."""
    server = _server(url, api_key, local, cards)
    try:
        if server is not None:
            answer = IdCheckResponse.from_dict(_remote(server, lambda client: client.datasets_check(ids)))
        else:
            answer = get_catalog(cards).check_ids(ids)
    except DatasetsError as exc:
        raise _fail(exc) from None
    if as_json:
        typer.echo(json.dumps(answer.to_dict(), ensure_ascii=False, indent=2))
        return
    typer.echo(f"known ({len(answer.known)}): {', '.join(answer.known) or '-'}")
    typer.echo(f"unknown ({len(answer.unknown)}): {', '.join(answer.unknown) or '-'}")
    for given, card_id in answer.resolved.items():
        typer.echo(f"resolved: {given} -> {card_id}")
    for given, card_ids in answer.ambiguous.items():
        typer.echo(f"ambiguous: {given} -> {', '.join(card_ids)}")


def print_report(report: dict[str, dict[str, Any]]) -> None:
    """One table per engine: n, Hit@5, MRR, P@5 and empty_correct per type and overall."""
    console = Console(width=120)
    for engine, result in report.items():
        table = Table(title=f"engine {engine}")
        for column in ("type", "n", *METRICS, "empty_correct", "false_absent"):
            table.add_column(column, justify="right" if column != "type" else "left")
        rows = [*result["by_type"].items(), ("overall", result["overall"])]
        for name, row in rows:
            empty = "-" if row["empty_correct"] is None else f"{row['empty_correct']:.3f}"
            table.add_row(name, str(row["n"]), *(f"{row[m]:.3f}" for m in METRICS), empty, str(row["false_absent"]))
        console.print(table)


def eval_datasets_command(
    cards: Path | None = typer.Option(None, "--cards", help="card file (default: bundled catalog)"),
    queries: Path = typer.Option(..., "--queries", exists=True, dir_okay=False,
                                 help="JSONL queries {query, relevant, type}"),
    engine: str = typer.Option("all", "--engine", help="index, bm25, substring or all"),
    split: str | None = typer.Option(None, "--split", help="only the queries of this split (tune, test)"),
    json_out: Path | None = typer.Option(None, "--json", help="write the figures as JSON to this file"),
) -> None:
    """Evaluate dataset-card search: Hit@5, MRR, P@5 per query type and overall, per engine."""
    try:
        catalog, questions, engines = get_catalog(cards), read_queries(queries, split), parse_engines(engine)
        with CommandProgress("eval datasets", "queries", len(questions) * len(engines)) as progress:
            report = evaluate_engines(catalog, questions, engines, progress=progress.update)
    except (DatasetsError, FileNotFoundError) as exc:
        raise _fail(exc) from None
    print_report(report)
    if json_out is not None:
        json_out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        typer.echo(f"wrote {json_out}")

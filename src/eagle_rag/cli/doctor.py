"""``eagle-rag doctor``: check that the registry, the vector store and the lexical index agree.

``cli.py`` adds it with :func:`register_doctor_command`. Exit code 0 when consistent (or repaired),
1 when problems remain.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from eagle_rag.cli.options import ApiKey, Local, Url

if TYPE_CHECKING:
    from eagle_rag.ops.doctor import DoctorReport

MAX_LISTED = 20


def doctor(
    repair: Annotated[bool, typer.Option("--repair", help="delete orphan and stale chunks; write missing sentence "
                                                          "rows; mark pending and broken documents failed so that a "
                                                          "re-ingest restores them")]
    = False,
    json_out: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
    url: Url = None, api_key: ApiKey = None, local: Local = False,
) -> None:
    """Check every collection: each complete document has exactly its chunks in every store.

    While a server owns the data folder the check runs in it; ``--repair`` needs the folder to itself."""
    from eagle_rag.errors import InvalidRequest
    from eagle_rag.service.backend import open_backend, require_local, resolve_target
    from eagle_rag.service.remote_backend import REPAIR_OVER_HTTP
    from eagle_rag.settings import load_settings

    settings = load_settings()
    if repair:
        if url:
            raise InvalidRequest(REPAIR_OVER_HTTP, {"field": "url"})
        require_local(settings, "doctor --repair")
    target = resolve_target(settings, url, api_key, local or repair)
    with open_backend(settings, target, "doctor") as backend:
        report = backend.doctor(repair)
    _show(report, json_out)


def _show(report: DoctorReport, json_out: bool) -> None:
    if json_out:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        _print(report)
    if not report.ok:
        raise typer.Exit(1)


def _print(report: DoctorReport) -> None:
    console = Console()
    console.print("documents: " + (", ".join(f"{n} {s}" for s, n in sorted(report.documents.items())) or "none"))
    table = Table("collection", "vector chunks", "lexical chunks")
    for collection, stores in report.chunks.items():
        if any(stores.values()):
            table.add_row(collection, str(stores["vectors"]), str(stores["lexical"]))
    console.print(table)
    if not report.findings:
        console.print("[green]consistent[/]: every complete document has exactly its chunks in every store")
        return
    counts = ", ".join(f"{n} {kind}" for kind, n in sorted(report.counts().items()))
    console.print(f"[yellow]found[/]: {counts}")
    for finding in report.findings[:MAX_LISTED]:
        console.print(f"  {finding.kind:<8} {finding.document_id}: {finding.detail} ({finding.chunk_count} chunks)")
    if len(report.findings) > MAX_LISTED:
        console.print(f"  ... and {len(report.findings) - MAX_LISTED} more (--json lists all)")
    for action in report.actions:
        console.print(f"[cyan]repaired[/]: {action}")
    if not report.repaired:
        console.print("run [bold]eagle-rag doctor --repair[/] (while no ingest runs), then ingest the sources again")


def register_doctor_command(app: typer.Typer) -> None:
    """Add ``doctor`` to the ``eagle-rag`` command line."""
    app.command("doctor")(doctor)

"""``eagle-rag reindex``: change the model of an encoder label without downtime (:mod:`eagle_rag.ops.reindex`).

While a server owns the data folder the work runs in it (``POST /reindex``), so its searches keep being
answered from the old collections until the switch; otherwise the command opens the folder itself.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console

from eagle_rag.cli.options import ApiKey, Local, Url

console = Console()
REMOTE_TIMEOUT_S = 24 * 3600.0


def reindex(
    encoder: Annotated[str | None, typer.Option("--encoder", help="LABEL=MODEL: rebuild LABEL's collections with "
                                                "MODEL (bundled:..., a local model folder, a hub id); LABEL alone "
                                                "with --rollback or --drop-old")] = None,
    collections: Annotated[list[str] | None, typer.Option("--collections", help="only these collections of LABEL "
                                                          "(repeat or separate by commas)")] = None,
    dim: Annotated[int | None, typer.Option("--dim", min=1, help="MODEL's vector dimension (default: LABEL's)")]
    = None,
    rollback: Annotated[bool, typer.Option("--rollback", help="point back to the old collections and model")] = False,
    drop_old: Annotated[bool, typer.Option("--drop-old", help="drop the collections kept for --rollback")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="print the answer as JSON")] = False,
    url: Url = None, api_key: ApiKey = None, local: Local = False,
) -> None:
    """Build new versioned collections of an encoder label with another model from the stored chunk texts,
    while searches use the old ones; switch when they are complete and checked. Killed midway, run it
    again: it resumes. The old collections stay for --rollback until --drop-old."""
    from eagle_rag.service.backend import open_backend, resolve_target
    from eagle_rag.settings import load_settings

    names = [n.strip() for item in collections or () for n in item.split(",") if n.strip()] or None
    settings = load_settings()
    target = resolve_target(settings, url, api_key, local)
    with open_backend(settings, target, "reindex", timeout=REMOTE_TIMEOUT_S, retries=0) as backend:
        answer = backend.reindex(encoder, names, dim, rollback=rollback, drop_old=drop_old)
    if json_out:
        print(json.dumps(answer, indent=2))
    elif "action" in answer:
        console.print(f"{answer['label']}: {answer['action'].replace('_', ' ')} (model {answer['model_ref']}, "
                      f"before {answer['previous_model_ref']})")
    else:
        rows = ", ".join(f"{name} {count}" for name, count in answer["rows"].items())
        console.print(f"{answer['label']} now uses {answer['model_ref']}: {rows} rows ({answer['embedded']} embedded"
                      f"{', resumed' if answer['resumed'] else ''}) in {answer['seconds']:.1f} s; the old collections "
                      "stay for --rollback until --drop-old")


def register_reindex_command(app: typer.Typer) -> None:
    """Add ``reindex`` to the ``eagle-rag`` command line."""
    app.command("reindex")(reindex)

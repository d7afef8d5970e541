"""The options every command that may run through a server shares: ``--url``, ``--api-key``, ``--local``
(where it runs: :func:`eagle_rag.service.backend.resolve_target`), and ``--json``."""

from __future__ import annotations

from typing import Annotated

import typer

URL_OPTION = typer.Option("--url", help="send the command to this Eagle-RAG server (default: env EAGLE_RAG_URL, "
                                        "else the server that owns the data folder)")
API_KEY_OPTION = typer.Option("--api-key", help="X-API-Key for --url (default: env EAGLE_RAG_API_KEY)")
LOCAL_OPTION = typer.Option("--local", help="open the data folder directly, not through a server")
Url = Annotated[str | None, URL_OPTION]
ApiKey = Annotated[str | None, API_KEY_OPTION]
Local = Annotated[bool, LOCAL_OPTION]
JsonOut = Annotated[bool, typer.Option("--json", help="print the answer as JSON")]

"""The ``datasets`` plugin's hook implementations (entry point ``eagle_rag.plugins: datasets``).

* ``eagle_cli_register``: adds ``eagle-rag datasets search|check`` and ``eagle-rag eval datasets``.
* ``eagle_options_model``: the model of ``plugins.options.datasets``
  (:class:`~eagle_rag_datasets.options.DatasetsOptions`), checked by the core at start-up.
* ``eagle_warm_up``: builds the catalog's indexes and loads its semantic channel before ``serve`` reports ready.
* ``eagle_register``: puts a :class:`~eagle_rag_datasets.service.DatasetsService` bound to the
  ``cards_path`` plugin option into the ``datasets`` extension of ``ctx.services`` (for the HTTP and MCP layers),
  and fails at start-up when that option names a missing file.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from eagle_rag.plugin_api import hookimpl
from eagle_rag_datasets.errors import DatasetsError
from eagle_rag_datasets.options import DatasetsOptions
from eagle_rag_datasets.service import PLUGIN_NAME, DatasetsService

log = logging.getLogger(__name__)


@hookimpl
def eagle_cli_register(cli: Any, eval_cli: Any) -> None:
    """Register the typer commands; returns None."""
    from eagle_rag_datasets.cli import datasets_app, eval_datasets_command

    cli.add_typer(datasets_app, name="datasets")
    eval_cli.command("datasets")(eval_datasets_command)


@hookimpl
def eagle_options_model() -> type[DatasetsOptions]:
    """The model of ``plugins.options.datasets``."""
    return DatasetsOptions


@hookimpl
def eagle_register(ctx: Any, encoders: Any) -> None:
    """Expose the datasets service in ``ctx.services``; returns None."""
    options = ctx.plugin_options(PLUGIN_NAME)
    cards_path = options.get("cards_path")
    if cards_path and not Path(str(cards_path)).is_file():
        raise DatasetsError(f"plugin option plugins.options.{PLUGIN_NAME}.cards_path: no such file: {cards_path}",
                            {"cards_path": str(cards_path)})
    if ctx.services.extension(PLUGIN_NAME, DatasetsService) is None:
        ctx.services.set_extension(PLUGIN_NAME, DatasetsService(cards_path=cards_path, options=options))


@hookimpl
def eagle_api_register(api: Any, engine: Any, error_responses: dict[int | str, dict[str, Any]]) -> None:
    """Add ``POST /datasets/search`` and ``POST /datasets/check`` (FastAPI is imported only here)."""
    from eagle_rag_datasets import surfaces

    surfaces.eagle_api_register(api=api, engine=engine, error_responses=error_responses)


@hookimpl
def eagle_mcp_tools(engine: Any) -> list[Any]:
    """The read-only MCP tools ``datasets_search`` and ``datasets_check_ids``."""
    from eagle_rag_datasets import surfaces

    return list(surfaces.eagle_mcp_tools(engine=engine) or [])


@hookimpl
def eagle_warm_up(ctx: Any) -> list[str] | None:
    """Build the catalog's indexes and load its semantic channel (``eagle-rag serve`` calls this before it
    reports ready), so the first catalog search does not pay for them; None when no service is registered."""
    service = ctx.services.extension(PLUGIN_NAME, DatasetsService)
    if service is None:
        return None
    catalog = service.catalog()
    catalog.warm_up(semantic=True)
    loaded = [f"dataset catalog ({len(catalog.cards)} cards)"]
    if catalog.semantic_error is None:
        loaded.append("dataset catalog semantic channel")
    else:
        log.warning("datasets warm-up: the semantic channel did not load (%s)", catalog.semantic_error)
    return loaded

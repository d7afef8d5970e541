"""Service functions for the HTTP and MCP front ends: plain dicts in, plain dicts out.

``datasets_search`` and ``datasets_check_ids`` raise :class:`~eagle_rag_datasets.errors.DatasetsError`
(a core ``InvalidRequest``) for bad input; ``exc.to_dict()`` is the one error shape
``{"error": {"code", "message", "details"}}`` for a 4xx answer.

Where the cards come from: an explicit ``cards_path``; else the plugin option
``plugins.options.datasets.cards_path`` of the settings; else the bundled ``data/cards.jsonl``.
Loaded catalogs are cached per file (path, modification time and size), so an edited file is
reloaded on the next call; their card vectors (the semantic channel) are cached under
``<data_dir>/datasets`` by content, so an unchanged card is never embedded twice.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from eagle_rag_datasets.catalog.catalog import DEFAULT_CARDS, DatasetCatalog
from eagle_rag_datasets.errors import InvalidQueryError
from eagle_rag_datasets.search.query import DatasetQuery

log = logging.getLogger("eagle_rag_datasets")
PLUGIN_NAME = "datasets"


def configured_cards_path(options: Mapping[str, Any] | None = None) -> str | None:
    """The ``cards_path`` plugin option: from ``options`` when given, else from the settings."""
    if options is None:
        try:
            from eagle_rag.plugin_api.commands import load_settings

            options = load_settings().plugin_options(PLUGIN_NAME)
        except Exception as exc:  # settings are optional for this plugin: fall back to the bundle
            log.debug("settings unavailable, using the bundled cards: %s", exc)
            return None
    value = options.get("cards_path")
    return str(value) if value else None


def resolve_cards_path(cards_path: str | Path | None = None, options: Mapping[str, Any] | None = None) -> Path:
    """Explicit path, else plugin option, else the bundled catalog. Raises InvalidQueryError if missing."""
    chosen = Path(cards_path) if cards_path else None
    if chosen is None:
        configured = configured_cards_path(options)
        chosen = Path(configured) if configured else DEFAULT_CARDS
    if not chosen.is_file():
        raise InvalidQueryError(f"card file not found: {chosen}", {"cards_path": str(chosen)})
    return chosen


def vector_cache_dir() -> Path | None:
    """Where card vectors of catalogs other than the bundled one are cached: ``<data_dir>/datasets``
    (None when the settings cannot be read)."""
    try:
        from eagle_rag.plugin_api.commands import load_settings

        return load_settings().data_path / "datasets"
    except Exception as exc:  # settings are optional for this plugin: vectors are then kept in memory only
        log.debug("settings unavailable, card vectors are not cached on disk: %s", exc)
        return None


@lru_cache(maxsize=16)
def _cached(path: str, mtime_ns: int, size: int) -> DatasetCatalog:
    return DatasetCatalog.load(path, vector_cache=vector_cache_dir())


def get_catalog(cards_path: str | Path | None = None, options: Mapping[str, Any] | None = None) -> DatasetCatalog:
    """The catalog for a card file, loaded once per file version."""
    path = resolve_cards_path(cards_path, options)
    stat = path.stat()
    return _cached(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


class DatasetsService:
    """The datasets service bound to one card source (what ``eagle_register`` puts in
    ``ctx.services.extension("datasets", DatasetsService)``)."""

    def __init__(self, cards_path: str | Path | None = None, options: Mapping[str, Any] | None = None) -> None:
        self.cards_path = cards_path
        self.options = dict(options) if options is not None else None

    def catalog(self) -> DatasetCatalog:
        return get_catalog(self.cards_path, self.options if self.options is not None else {})

    def search(self, query: str, k: int = 10, **options: Any) -> dict[str, Any]:
        return datasets_search(query, k, catalog=self.catalog(), **options)

    def check_ids(self, ids: Sequence[str]) -> dict[str, Any]:
        return datasets_check_ids(ids, catalog=self.catalog())


def datasets_search(query: str, k: int = 10, *, strict: bool = False, semantic: bool = True, synonyms: bool = True,
                    typos: bool = True, prior: bool = True, engine: str = "index",
                    languages: Sequence[str] | str | None = None, licenses: Sequence[str] | str | None = None,
                    tasks: Sequence[str] | str | None = None, sources: Sequence[str] | str | None = None,
                    tags: Sequence[str] | str | None = None, explain: bool = False,
                    cards_path: str | Path | None = None, catalog: DatasetCatalog | None = None) -> dict[str, Any]:
    """Search dataset cards; returns :meth:`DatasetSearchResponse.to_dict`.

    Raises InvalidQueryError / UnknownEngineError (core ``InvalidRequest``) for bad input.
    """
    request = DatasetQuery.from_dict({
        "text": query, "top_k": k, "strict": strict, "semantic": semantic, "synonyms": synonyms, "typos": typos,
        "prior": prior, "engine": engine, "languages": languages, "licenses": licenses, "tasks": tasks,
        "sources": sources, "tags": tags, "explain": explain,
    })
    return (catalog or get_catalog(cards_path)).search(request).to_dict()


def datasets_check_ids(ids: Sequence[str], *, cards_path: str | Path | None = None,
                       catalog: DatasetCatalog | None = None) -> dict[str, Any]:
    """Which of ``ids`` the catalog knows; returns :meth:`IdCheckResponse.to_dict`. One lookup per id."""
    return (catalog or get_catalog(cards_path)).check_ids(ids).to_dict()

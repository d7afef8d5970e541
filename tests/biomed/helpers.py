"""Helpers of the biomed ingest tests: settings, hook contexts and reading rows back from the stores."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eagle_rag.context import HookContext, Services
from eagle_rag.encoders import EncoderRegistry
from eagle_rag.kernel.audit import PluginAudit
from eagle_rag.settings import Settings, load_settings
from eagle_rag.stores import milvus_schema as ms
from eagle_rag.types import Chunk


def biomed_settings(data_dir: Path, deterministic: bool = True, biomed: dict[str, Any] | None = None,
                    **overrides: Any) -> Settings:
    """The ``biomed`` profile over ``data_dir``; deterministic encoders (core and biomed) unless told otherwise,
    and then no ColBERT token vectors at ingest unless ``ingest`` names their collections."""
    options = {"encoder_mode": "deterministic"} if deterministic else {}
    options.update(biomed or {})
    base: dict[str, Any] = {"data_dir": str(data_dir), "plugins": {"options": {"biomed": options}}}
    if deterministic:
        base["encoders"] = {"mode": "deterministic"}
        # ColBERT token vectors come from the real model in every mode: written only where a test asks
        base["ingest"] = {"token_vector_collections": [], **overrides.pop("ingest", {})}
    return load_settings(environ={"EAGLE_RAG_PROFILE": "biomed"}, overrides={**base, **overrides})


def biomed_registry(settings: Settings, environ: dict[str, str] | None = None) -> EncoderRegistry:
    """The core registry plus the biomed labels and collections, as the plugin registers them."""
    from eagle_rag.engine import build_encoders
    from eagle_rag_biomed.encoders.labels import register_encoders
    from eagle_rag_biomed.names import register_collections
    from eagle_rag_biomed.options import biomed_options

    registry = build_encoders(settings)
    register_encoders(registry, biomed_options(settings), environ or {})
    register_collections(registry)
    return registry


def hook_context(settings: Settings, encoders: EncoderRegistry | None = None, namespace: str = "biomed") -> HookContext:
    """A context in ``namespace`` whose services hold only ``encoders`` (unit tests of hooks)."""
    services = Services() if encoders is None else Services(encoders=encoders)
    return HookContext(namespace=namespace, settings=settings, audit=PluginAudit([]), services=services)


def chunk(text: str, path: str = "", **metadata: Any) -> Chunk:
    """A chunk of document ``d`` with ``metadata``; ``source_type`` and ``chunk_type`` may be given there."""
    source_type = metadata.pop("source_type", "text")
    chunk_type = metadata.pop("chunk_type", "text")
    return Chunk(id=f"c-{abs(hash((text, path))) % 10**8}", text=text, document_id="d", path=path,
                 source_type=source_type, chunk_type=chunk_type, metadata=metadata)


def rows(engine: Any, collection: str, expr: str = "", fields: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Every row of ``collection`` matching ``expr``, with ``fields`` (all base fields when empty)."""
    if not engine.vectors.has_collection(collection):
        return []
    wanted = list(fields) or [f for f in ms.OUTPUT_FIELDS if f != "metadata"]
    return list(ms.iterate(engine.vectors.client, collection, expr, wanted))

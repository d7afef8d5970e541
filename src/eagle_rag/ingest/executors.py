"""Where ``eagle-rag ingest`` runs its stages (:class:`Executor`) and how a Ray run is sized
(:class:`RayOptions`). Kept free of heavy imports: the CLI reads it at start-up."""

from __future__ import annotations

from dataclasses import dataclass

from eagle_rag.errors import InvalidRequest
from eagle_rag.types import ParseableEnum

__all__ = ["RAY_MISSING", "Executor", "RayOptions"]
RAY_MISSING = "--executor ray needs Ray: pip install 'eagle-rag[ray]'"


class Executor(ParseableEnum):
    """Where ``eagle-rag ingest`` runs its stages: in this process, or on Ray Data."""

    LOCAL = "local"
    RAY = "ray"

    @classmethod
    def parse_error(cls, message: str) -> ValueError:
        return InvalidRequest(message, {"field": "executor"})


@dataclass(frozen=True)
class RayOptions:
    """How the Ray ingest runs: ``address`` of the cluster (None: local), ``actors`` in the embed
    pool (None: the cluster's GPUs, else its CPUs less one, at least 1), ``actor_cpus`` each (its
    ONNX threads when ``encoders.threads`` is 0), ``batch_docs`` documents an embed call and a
    write, ``writers`` write actors when every store is a server (None: as many as embed actors;
    with an embedded store the driver is the one writer)."""

    address: str | None = None
    actors: int | None = None
    actor_cpus: float = 1.0
    batch_docs: int = 256  # the local ingest's DOCS_PER_BATCH
    task_cpus: float = 0.5
    writers: int | None = None

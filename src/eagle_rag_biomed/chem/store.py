"""Compound similarity over ingested molecules: the Morgan fingerprint side index and its Python API.

Milvus Lite has no BINARY_VECTOR field, so the chemical collection's compounds are also kept in a
:class:`~eagle_rag_biomed.chem.fingerprints.FingerprintIndex` (Morgan radius 2, 2048 bits, exact Tanimoto)
persisted under ``data_dir/biomed/fingerprints``. :class:`FingerprintStore` is fed by the plugin's
UPSERT_VECTORS for ``eagle_chemical``; :func:`biomed_retrieve_compounds` answers queries and only
returns compounds whose document is complete in the registry (a rolled-back or deleted document's
fingerprint is never shown), optionally within one knowledge base.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from eagle_rag.plugin_api import (
    Chunk,
    DocumentStatus,
    InvalidFilterError,
    InvalidRequest,
    Services,
    document_key,
    public_document_id,
    split_document_key,
    validate_kb_name,
)
from eagle_rag.plugin_api.text import public_path
from eagle_rag_biomed.chem.fingerprints import MORGAN_BITS, MORGAN_RADIUS, FingerprintIndex, resolve_compound_query
from eagle_rag_biomed.chem.molecules import InvalidStructure
from eagle_rag_biomed.names import Collection

log = logging.getLogger(__name__)
SERVICE_KEY = "biomed_fingerprints"
MAX_TOP_K = 50
INDEX_NAME = f"morgan_r{MORGAN_RADIUS}_{MORGAN_BITS}_tanimoto"


def fingerprint_dir(data_path: Path) -> Path:
    """Where the side index of a data directory lives: ``data_dir/biomed/fingerprints``."""
    return Path(data_path) / "biomed" / "fingerprints"


class FingerprintStore:
    """A persisted :class:`FingerprintIndex`, loaded on first use; thread-safe."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self._index: FingerprintIndex | None = None
        self._lock = threading.Lock()

    @property
    def index(self) -> FingerprintIndex:
        """The index, read from disk on first access (an empty one when there is none yet)."""
        with self._lock:
            if self._index is None:
                meta = self.directory / "compounds.json"
                self._index = FingerprintIndex.load(self.directory) if meta.is_file() else FingerprintIndex()
            return self._index

    def add_chunks(self, chunks: Sequence[Chunk]) -> int:
        """Index the chunks that carry ``metadata["smiles"]`` (id = document id) and save. Returns how many."""
        index = self.index
        added = 0
        with self._lock:
            for chunk in chunks:
                smiles = str(chunk.metadata.get("smiles") or "")
                if not smiles:
                    continue
                try:
                    index.add(chunk.document_id, smiles, str(chunk.metadata.get("name") or ""))
                    added += 1
                except InvalidStructure as exc:
                    log.warning("fingerprint of %s skipped: %s", chunk.document_id, exc)
            if added:
                index.save(self.directory)
        return added


    def sync(self, vectors: Any, collection: str = Collection.CHEMICAL) -> int:
        """Make the index hold the compounds of ``collection`` in the shared vector store: index the
        documents another process ingested (their chunks' ``metadata["smiles"]``) and, when documents
        left the store, rebuild from it. Used when the vectors live on a Milvus server, where every
        replica's folder holds only a cache. Returns how many compounds were added."""
        if not vectors.has_collection(collection):
            return 0
        refs = dict(vectors.chunk_refs(collection))  # chunk id -> document id
        stored = set(refs.values())
        index = self.index
        with self._lock:
            rebuilt = any(compound_id not in stored for compound_id in index.ids)
            if rebuilt:
                self._index = index = FingerprintIndex(index.radius, index.n_bits)
            missing = [chunk_id for chunk_id, document_id in refs.items() if document_id not in index]
        added = self.add_chunks(vectors.get_chunks(collection, missing)) if missing else 0
        if rebuilt and not added:
            index.save(self.directory)
        return added


def migrated_record(registry: Any, index: FingerprintIndex, compound_id: str) -> Any:
    """The registry record of a compound indexed under its own id alone (before document identity was
    kb and id) whose document ``eagle-rag doctor --repair`` moved to its kb-scoped key: the one kb that
    holds the id without an index entry of its own (a compound ingested since is indexed by key)."""
    kb, own_id = split_document_key(compound_id)
    if kb is not None:
        return None
    keys = [document_key(name, own_id) for name in sorted(registry.kb_names())]
    found = [r for key in keys if key not in index and (r := registry.get(key)) is not None]
    return found[0] if len(found) == 1 else None


@dataclass(frozen=True)
class CompoundMatch:
    """One similar ingested compound (rank from 1, Tanimoto similarity in 0..1)."""

    compound_id: str
    name: str
    smiles: str
    similarity: float
    rank: int
    kb_name: str
    source_uri: str


@dataclass(frozen=True)
class CompoundSearchResponse:
    """The answer of :func:`biomed_retrieve_compounds`; ``to_dict`` is the MCP/JSON shape."""

    query: str
    resolved_smiles: str
    resolved_by: str
    resolved_name: str
    collection: str
    index: str
    hits: tuple[CompoundMatch, ...]
    total_indexed: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _services(source: Any) -> Services:
    ctx = getattr(source, "ctx", source)
    services = getattr(ctx, "services", None)
    if not isinstance(services, Services) or not services.has("registry"):
        raise TypeError("biomed_retrieve_compounds needs an Engine or a HookContext with services")
    return services


def store_for(services: Services, data_path: Path) -> FingerprintStore:
    """The engine's fingerprint store (created in ``services`` when the plugin did not register one)."""
    store = services.extension(SERVICE_KEY, FingerprintStore)
    if store is None:
        store = FingerprintStore(fingerprint_dir(data_path))
        services.set_extension(SERVICE_KEY, store)
    return store


def biomed_retrieve_compounds(source: Any, smiles_or_name: str, top_k: int = 5,
                              kb_name: str | None = None) -> CompoundSearchResponse:
    """The ingested compounds most similar to a SMILES, InChI or drug name, by Morgan-fingerprint Tanimoto.

    ``source`` is an :class:`~eagle_rag.engine.Engine` or a hook context. Names resolve through the
    curated aliases and the DrugBank open structures. Raises InvalidStructure (a 400) for an invalid
    SMILES or unknown name, InvalidRequest for ``top_k`` outside 1..50 or an invalid kb name.
    """
    if not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise InvalidRequest(f"top_k must be between 1 and {MAX_TOP_K}, got {top_k!r}", {"field": "top_k"})
    if kb_name is not None:
        try:
            validate_kb_name(kb_name)
        except InvalidFilterError as exc:
            raise InvalidRequest(f"invalid kb name {kb_name!r}: {exc}", {"field": "kb_name"}) from exc
    services = _services(source)
    settings = getattr(getattr(source, "ctx", source), "settings", None)
    data_path = settings.data_path if settings is not None else Path(".")
    resolved = resolve_compound_query(smiles_or_name)
    store = store_for(services, data_path)
    if not getattr(services.vectors, "is_lite", True):
        store.sync(services.vectors)  # a Milvus server: other replicas may have ingested compounds
    index = store.index
    registry = services.registry
    hits: list[CompoundMatch] = []
    for hit in index.search(resolved.smiles, len(index)):
        record = registry.get(hit.compound_id) or migrated_record(registry, index, hit.compound_id)
        if record is None or record.status is not DocumentStatus.COMPLETE:
            continue
        if kb_name is not None and record.kb_name != kb_name:
            continue
        source = public_path(record.source_uri, data_path, settings.ingest.allowed_roots if settings else ())
        hits.append(CompoundMatch(public_document_id(record.id), hit.name or record.name, hit.smiles,
                                  round(hit.similarity, 6), len(hits) + 1, record.kb_name, source))
        if len(hits) >= top_k:
            break
    return CompoundSearchResponse(smiles_or_name, resolved.smiles, resolved.source, resolved.name, Collection.CHEMICAL,
                                  INDEX_NAME, tuple(hits), len(index))

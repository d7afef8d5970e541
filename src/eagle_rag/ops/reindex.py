"""A model change without downtime: ``eagle-rag reindex --encoder LABEL=MODEL``.

Every collection whose default encoder is ``LABEL`` (or those named) is rebuilt with ``MODEL`` into a new
physical collection ``<name>__v<n>`` next to the one its alias points at (its sentence companion too),
from the chunk texts the vector store holds: nothing is parsed again, the lexical index and the token
vectors do not change. Searches keep using the old collections and the old model meanwhile.

1. **build** (no lock): the rows of the old collection that the new one lacks are read, embedded with
   ``MODEL`` (the text an ingest embeds, :func:`eagle_rag.ingest.dispatch.embed_input`) and written;
2. **catch up and check** (under the writer lock: ingests and deletes wait, searches do not): what
   ingests and deletes changed meanwhile is applied, then every collection must hold exactly the chunk
   ids of the old one;
3. **switch**: ``LABEL`` now resolves to ``MODEL`` (the new encoder is loaded first), and each alias is
   pointed at its new collection. The encoder version is recorded in the registry (``index_state``,
   key ``reindex/<label>``), so every engine opened later uses ``MODEL`` for ``LABEL``
   (:meth:`eagle_rag.kernel.runtime.Runtime.load_encoder_versions`); ``eagle-rag doctor`` runs, and a finding
   the old index did not have rolls the switch back.

The old collections stay until ``reindex --drop-old``; ``reindex --rollback`` brings them up to date
(what was ingested since the switch is embedded by the old model, what was deleted goes), points the
aliases back, gives ``LABEL`` its old model and drops the new collections. Killed during the build, the serving
index is untouched (the record says ``building``) and the same command resumes: rows already written
are not embedded again.

Milvus Lite and Milvus servers both have aliases, so the switch is one alias change per collection. A
search that embedded its query just before the switch and searches just after it gets the new
collection with the old model's vector: with the same dimension it is answered (one query's ranking
comes from mixed models); with another dimension it can fail once. Other processes (replicas on a
Milvus server) read the encoder version when they open: restart them after a switch.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from eagle_rag.encoders.errors import EncoderLoadError
from eagle_rag.encoders.factory import resolve_text_encoder
from eagle_rag.encoders.versions import STATE_PREFIX, EncoderVersion, Phase, use_model
from eagle_rag.errors import EagleError, InvalidRequest, NotFound
from eagle_rag.ingest.dispatch import embed_input
from eagle_rag.ingest.sentences import sentence_collection
from eagle_rag.protocols import TextEncoder
from eagle_rag.types import Modality

if TYPE_CHECKING:
    from eagle_rag.kernel.runtime import Runtime as Engine

BATCH = 128
"""Rows read, embedded and written at a time."""
ProgressFn = Callable[[str, int, int], None]
"""Called with (collection, rows done, rows to do)."""


@dataclass(frozen=True)
class ReindexReport:
    """The outcome of one command: the label, its model and phase, rows per collection, rows embedded by
    this run (fewer than the rows when it resumed), and seconds."""

    label: str
    model_ref: str
    phase: Phase
    rows: dict[str, int]
    embedded: int
    seconds: float
    resumed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "phase": self.phase.value}


def parse_encoder(text: str) -> tuple[str, str]:
    """``LABEL=MODEL`` -> (label, model reference); InvalidRequest otherwise."""
    label, sep, model = text.partition("=")
    if not sep or not label.strip() or not model.strip():
        raise InvalidRequest(f"--encoder takes LABEL=MODEL (e.g. bge-small=bundled:multilingual-e5-small), got "
                             f"{text!r}", {"field": "encoder"})
    return label.strip(), model.strip()


def load_version(engine: Engine, label: str) -> EncoderVersion | None:
    raw = engine.registry.get_state(STATE_PREFIX + label)
    return None if raw is None else EncoderVersion.from_json(raw)


def _save(engine: Engine, version: EncoderVersion) -> None:
    engine.registry.put_state(STATE_PREFIX + version.label, version.to_json())


def _collections(engine: Engine, label: str, named: list[str] | None) -> list[str]:
    """The logical collections to rebuild: those named, or every one whose default encoder is ``label``;
    each with its sentence companion when it has one."""
    profiles = {p.name: p for p in engine.encoders.collections()}
    chosen = named or [n for n, p in profiles.items() if p.default_encoder == label]
    for name in chosen:
        if name not in profiles or profiles[name].default_encoder != label:
            raise InvalidRequest(f"collection {name!r} is not a collection of encoder {label!r}; its collections: "
                                 f"{', '.join(n for n, p in profiles.items() if p.default_encoder == label) or 'none'}",
                                 {"field": "collections"})
    present = [n for n in chosen if engine.vectors.has_collection(n)]
    if not present:
        raise InvalidRequest(f"no collection of encoder {label!r} holds rows yet: nothing to reindex",
                             {"field": "encoder"})
    companions = [sentence_collection(n) for n in present if engine.vectors.has_collection(sentence_collection(n))]
    return present + companions


def _load(engine: Engine, label: str, model_ref: str, dim: int) -> TextEncoder:
    enc = engine.settings.encoders
    try:
        encoder = resolve_text_encoder(label, model_ref, dim, enc.mode, engine.settings.allow_deterministic,
                                       threads=enc.threads or None, batch_size=enc.batch_size)
    except EncoderLoadError as exc:
        raise InvalidRequest(f"model {model_ref!r} cannot be loaded: {exc}", {"field": "encoder"}) from exc
    if encoder.dim != dim:
        raise InvalidRequest(f"model {model_ref!r} gives {encoder.dim}-d vectors: pass --dim {encoder.dim}",
                             {"field": "dim"})
    return encoder


def sync(engine: Engine, encoder: TextEncoder, old: str, new: str, progress: ProgressFn | None = None) -> int:
    """Make the physical collection ``new`` hold the chunk ids of ``old``, embedding with ``encoder`` only
    the rows it lacks and deleting the ones ``old`` no longer has; returns the rows embedded."""
    vectors = engine.vectors
    old_ids = {chunk_id for chunk_id, _ in vectors.chunk_refs(old)}
    new_ids = {chunk_id for chunk_id, _ in vectors.chunk_refs(new)}
    extra = sorted(new_ids - old_ids)
    if extra:
        vectors.delete_chunks(new, extra)
    missing = sorted(old_ids - new_ids)
    for start in range(0, len(missing), BATCH):
        chunks = vectors.get_chunks(old, missing[start:start + BATCH])
        vectors.upsert(new, chunks, encoder.encode_passages([embed_input(c) for c in chunks]))
        if progress is not None:
            progress(old, min(start + BATCH, len(missing)), len(missing))
    vectors.flush(new)
    return len(missing)


def reindex(engine: Engine, label: str, model_ref: str, collections: list[str] | None = None, dim: int | None = None,
            lock: AbstractContextManager[Any] | None = None, progress: ProgressFn | None = None) -> ReindexReport:
    """Rebuild the collections of ``label`` with ``model_ref`` and switch to them (module docstring).

    ``lock`` is the writer lock (the server's ingest lock), held for the catch-up, the check and the switch.

    Raises:
        InvalidRequest: an unknown or non-text label, a collection not of this label, a model that cannot be
            loaded or gives another dimension than ``dim``, another reindex of the label under way or kept.
        EagleError: the check after the switch found what the old index did not have (rolled back).
    """
    started = time.monotonic()
    try:
        spec = engine.encoders.spec(label)
    except ValueError as exc:
        raise InvalidRequest(str(exc), {"field": "encoder"}) from exc
    if spec.modality is not Modality.TEXT:
        raise InvalidRequest(f"encoder {label!r} is a {spec.modality.value} label; reindex changes text encoders",
                             {"field": "encoder"})
    version = load_version(engine, label)
    if version is not None and version.phase is Phase.SWITCHED:
        raise InvalidRequest(f"the last reindex of {label!r} (to {version.model_ref}) keeps its old collections: "
                             "run eagle-rag reindex --drop-old or --rollback first", {"field": "encoder"})
    resumed = version is not None and version.phase is Phase.BUILDING
    if version is not None and resumed and version.model_ref != model_ref:
        raise InvalidRequest(f"a reindex of {label!r} to {version.model_ref} is under way: run it again to finish "
                             "it, or eagle-rag reindex --rollback", {"field": "encoder"})
    names = list(version.collections) if resumed and version is not None else _collections(engine, label, collections)
    dim = version.dim if resumed and version is not None else dim or spec.dim
    encoder = _load(engine, label, model_ref, dim)
    if version is None or not resumed:
        version = EncoderVersion(label, model_ref, dim, spec.model_ref, spec.dim, Phase.BUILDING,
                                 {n: {"old": engine.vectors.physical_name(n), "new": ""} for n in names})
        _save(engine, version)
    for name, physical in version.collections.items():
        if not physical["new"] or not engine.vectors.has_collection(physical["new"]):
            physical["new"] = engine.vectors.new_version(name, dim)
            _save(engine, version)
    embedded = sum(sync(engine, encoder, p["old"], p["new"], progress) for p in version.collections.values())
    with lock if lock is not None else nullcontext():
        engine.flush()
        embedded += sum(sync(engine, encoder, p["old"], p["new"]) for p in version.collections.values())
        rows = {n: engine.vectors.count(p["new"]) for n, p in version.collections.items()}
        for name, physical in version.collections.items():
            if rows[name] != engine.vectors.count(physical["old"]):
                raise EagleError(f"reindex of {name!r}: the new collection holds {rows[name]} rows, the old one "
                                 f"{engine.vectors.count(physical['old'])}; run the command again")
        _switch(engine, version)
    return ReindexReport(label, model_ref, Phase.SWITCHED, rows, embedded, round(time.monotonic() - started, 3),
                         resumed)


def _switch(engine: Engine, version: EncoderVersion) -> None:
    """Step 3 (under the writer lock): the new model for the label, the aliases to the new collections, the
    record; then doctor, rolled back when it finds what it did not find before."""
    from eagle_rag.ops import doctor
    from eagle_rag.service import health as index_health
    before = len(doctor.check(engine).findings)
    use_model(engine.encoders, engine.settings, version.label, version.model_ref, version.dim,
              list(version.collections))
    engine.encoders.get_encoder(version.label)  # loaded before any search needs it
    for name, physical in version.collections.items():
        engine.vectors.point_alias(name, physical["new"])
    version.phase = Phase.SWITCHED
    _save(engine, version)
    index_health.invalidate(engine)
    after = doctor.check(engine)
    if len(after.findings) > before:
        _rollback(engine, version)
        raise EagleError(f"after the switch to {version.model_ref}, doctor found {len(after.findings)} problems "
                         f"(before: {before}): rolled back to {version.previous_model_ref}")


def _only(engine: Engine, label: str | None) -> EncoderVersion:
    found = engine.encoder_versions()
    chosen = [v for v in found if label is None or v.label == label]
    if not chosen:
        raise NotFound(f"no reindex of {label!r} is recorded" if label else "no reindex is recorded",
                       {"field": "encoder"})
    if len(chosen) > 1:
        raise InvalidRequest(f"several labels were reindexed ({', '.join(v.label for v in chosen)}): name one with "
                             "--encoder LABEL", {"field": "encoder"})
    return chosen[0]


def _rollback(engine: Engine, version: EncoderVersion) -> None:
    from eagle_rag.service import health as index_health

    if version.phase is Phase.SWITCHED:
        # what was ingested or deleted since the switch reaches the old collections, embedded by the old model
        encoder = _load(engine, version.label, version.previous_model_ref, version.previous_dim)
        engine.flush()
        for physical in version.collections.values():
            sync(engine, encoder, physical["new"], physical["old"])
        for name, physical in version.collections.items():
            engine.vectors.point_alias(name, physical["old"])
        use_model(engine.encoders, engine.settings, version.label, version.previous_model_ref, version.previous_dim,
                  list(version.collections))
    for physical in version.collections.values():
        if physical["new"]:
            engine.vectors.drop_physical(physical["new"])
    engine.registry.delete_state(STATE_PREFIX + version.label)
    index_health.invalidate(engine)


Lock = AbstractContextManager[Any] | None


def rollback(engine: Engine, label: str | None = None, lock: Lock = None) -> EncoderVersion:
    """Undo the last reindex of ``label`` (the only one recorded when None): a switched one points the aliases
    back and gives the label its old model; an unfinished one is abandoned. The new collections are
    dropped. Returns the record as it was. Raises NotFound, or InvalidRequest after ``--drop-old``."""
    with lock if lock is not None else nullcontext():
        version = _only(engine, label)
        if version.phase is Phase.FINAL:
            raise InvalidRequest(f"the old collections of {version.label!r} were dropped (--drop-old): reindex to "
                                 f"{version.previous_model_ref} instead", {"field": "rollback"})
        _rollback(engine, version)
    return version


def drop_old(engine: Engine, label: str | None = None, lock: Lock = None) -> EncoderVersion:
    """Drop the collections a switched reindex of ``label`` kept for ``--rollback``; returns the record."""
    with lock if lock is not None else nullcontext():
        version = _only(engine, label)
        if version.phase is not Phase.SWITCHED:
            raise InvalidRequest(f"the reindex of {version.label!r} is {version.phase.value}: there are no old "
                                 "collections to drop", {"field": "drop_old"})
        for physical in version.collections.values():
            engine.vectors.drop_physical(physical["old"])
        version.phase = Phase.FINAL
        _save(engine, version)
    return version


def run_request(engine: Engine, encoder: str | None, collections: list[str] | None = None, dim: int | None = None,
                *, roll_back: bool = False, drop: bool = False, lock: Lock = None) -> dict[str, Any]:
    """One ``eagle-rag reindex`` / ``POST /reindex``: build and switch (``encoder`` ``LABEL=MODEL``), or with
    ``roll_back`` (``--rollback``) / ``drop`` (``--drop-old``) undo or finish the last one (``encoder``
    ``LABEL``, optional when one label was reindexed). Returns the answer both front ends show."""
    if roll_back and drop:
        raise InvalidRequest("rollback and drop_old exclude each other: choose one", {"field": "rollback"})
    if roll_back or drop:
        label = (encoder or "").partition("=")[0].strip() or None
        version = (rollback if roll_back else drop_old)(engine, label, lock)
        return {"label": version.label, "model_ref": version.model_ref,
                "previous_model_ref": version.previous_model_ref,
                "action": "rolled_back" if roll_back else "dropped_old"}
    if not encoder:
        raise InvalidRequest("give the encoder to change as LABEL=MODEL", {"field": "encoder"})
    label, model = parse_encoder(encoder)
    return reindex(engine, label, model, collections, dim, lock).to_dict()

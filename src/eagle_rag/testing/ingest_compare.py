"""What an ingest left in the stores, and whether two ingests of one corpus left the same.

Used to hold the Ray executor to the local ingest (tests/ingest/test_ray_ingest.py and
bench/bench_ray_ingest.py): :func:`snapshot` reads a data folder's registry, every vector collection
(sentence companions included), the lexical indexes and the token vectors by chunk id, and
:func:`differences` lists what differs between two snapshots (empty when they agree).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from eagle_rag.ingest.writer import collection_names, vector_collections

if TYPE_CHECKING:
    from eagle_rag.engine import Engine

MIN_COSINE = 0.9999
"""Chunk and sentence vectors of the same text must agree to this cosine."""
MIN_TOKEN_COSINE = 0.98
"""The token vectors of a chunk must agree to this cosine on average over its tokens. They depend on
the batch a chunk is encoded in (the late-interaction encoder is INT8 with dynamic quantization, whose
ranges are taken over the whole padded batch: one passage alone and next to another differ by up to
0.029 a value), and two ingests that batch differently (the Ray executor embeds ``batch_docs``
documents a call, the local ingest 256) differ so: between the local ingest and a Ray ingest of 16
documents a batch, the sample abstracts and compounds agreed to 0.993 on average over tokens at the
least, while single tokens went down to 0.84. MaxSim averages over tokens too."""


@dataclass
class Snapshot:
    """What the stores of one data folder hold: registry records (status, content hash, chunk count)
    by document id; per collection, (text, vector) by chunk id; per lexical index its chunk ids,
    sorted (a doubled chunk shows twice); token vectors by chunk id."""

    documents: dict[str, tuple[str, str, int]]
    rows: dict[str, dict[str, tuple[str, np.ndarray]]]
    lexical: dict[str, list[str]]
    tokens: dict[str, np.ndarray]

    @property
    def chunks(self) -> int:
        """Rows of the chunk collections (sentence companions left out)."""
        return sum(len(rows) for name, rows in self.rows.items() if not name.endswith("__sentences"))


def snapshot(engine: Engine) -> Snapshot:
    """Everything ``engine``'s stores hold (read in full: meant for test-sized corpora)."""
    documents: dict[str, tuple[str, str, int]] = {}
    offset = 0
    while page := engine.registry.list(limit=1000, offset=offset):
        documents.update((r.id, (r.status.value, r.content_hash, r.chunk_count)) for r in page)
        offset += len(page)
    rows: dict[str, dict[str, tuple[str, np.ndarray]]] = {}
    for collection in vector_collections(engine.ctx):
        if engine.vectors.has_collection(collection):
            ids = [chunk_id for chunk_id, _ in engine.vectors.chunk_refs(collection)]
            rows[collection] = {c.id: (c.text, np.asarray(v, dtype=np.float64))
                                for c, v in engine.vectors.get_rows(collection, ids)}
    lexical = {c: sorted(i for i, _ in engine.lexical_for(c).chunk_refs())
               for c in collection_names(engine.ctx) if engine.has_lexical_index(c)}
    token_ids = [chunk_id for chunk_id, _ in engine.tokens.chunk_refs()]
    tokens = {k: np.asarray(t.vectors, dtype=np.float64) for k, t in engine.tokens.get(token_ids).items()}
    return Snapshot(documents, rows, lexical, tokens)


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray((a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)))


def differences(got: Snapshot, expected: Snapshot, limit: int = 10) -> list[str]:
    """What ``got`` holds otherwise than ``expected`` (at most ``limit`` lines; empty: the same
    documents, chunk ids, texts, vectors to :data:`MIN_COSINE`, lexical rows, and token vectors of
    the same shapes to :data:`MIN_TOKEN_COSINE` on average)."""
    out: list[str] = []
    if got.documents != expected.documents:
        keys = sorted(got.documents.keys() ^ expected.documents.keys())
        changed = sorted(k for k in got.documents.keys() & expected.documents.keys()
                         if got.documents[k] != expected.documents[k])
        out.append(f"registry differs: in one only {keys[:5]}, otherwise {changed[:5]}")
    if got.rows.keys() != expected.rows.keys():
        out.append(f"collections {sorted(got.rows)} != {sorted(expected.rows)}")
    for collection in got.rows.keys() & expected.rows.keys():
        mine, theirs = got.rows[collection], expected.rows[collection]
        if mine.keys() != theirs.keys():
            out.append(f"{collection}: {len(mine.keys() - theirs.keys())} extra, {len(theirs.keys() - mine.keys())} "
                       "missing chunk ids")
        for chunk_id in sorted(mine.keys() & theirs.keys()):
            (text, vector), (text2, vector2) = mine[chunk_id], theirs[chunk_id]
            if text != text2:
                out.append(f"{collection}/{chunk_id}: text differs")
            elif (cosine := float(_cosines(vector, vector2))) < MIN_COSINE:
                out.append(f"{collection}/{chunk_id}: cosine {cosine:.6f}")
    if got.lexical != expected.lexical:
        out.append("lexical rows differ: " + ", ".join(f"{c} {len(got.lexical.get(c, []))} != "
                                                       f"{len(expected.lexical.get(c, []))}"
                                                       for c in sorted(got.lexical.keys() | expected.lexical.keys())))
    if got.tokens.keys() != expected.tokens.keys():
        out.append(f"token vectors: {len(got.tokens)} chunks != {len(expected.tokens)}")
    for chunk_id in sorted(got.tokens.keys() & expected.tokens.keys()):
        a, b = got.tokens[chunk_id], expected.tokens[chunk_id]
        if a.shape != b.shape:
            out.append(f"token vectors of {chunk_id}: shape {a.shape} != {b.shape}")
        elif (mean := float(_cosines(a, b).mean())) < MIN_TOKEN_COSINE:
            out.append(f"token vectors of {chunk_id}: mean token cosine {mean:.4f}")
    return out[:limit]

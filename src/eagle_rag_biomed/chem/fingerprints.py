"""Compound similarity: Morgan fingerprints in an exact side index searched by Tanimoto.

Milvus Lite has no BINARY_VECTOR field (DESIGN.md section 3), so fingerprints live next to the
collections in :class:`FingerprintIndex`: an in-memory list of RDKit bit vectors searched with
``BulkTanimotoSimilarity`` (exact, no approximation), persisted as ``fingerprints.npz`` (packed
bits, loaded with ``allow_pickle=False``) plus ``compounds.json`` (ids, names, SMILES).
Ranks start at 1; ties keep insertion order.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator

from eagle_rag.plugin_api import InvalidRequest, ParsedDocument
from eagle_rag_biomed.chem.molecules import InvalidStructure, mol_from_smiles
from eagle_rag_biomed.chem.names import ResolvedCompound, resolve_compound_query

__all__ = ["MORGAN_BITS", "MORGAN_RADIUS", "CompoundHit", "CompoundSearchResult", "FingerprintIndex",
           "InvalidStructure", "morgan_fingerprint", "resolve_compound_query", "retrieve_compounds",
           "tanimoto_numpy", "top_k_stable"]

MORGAN_RADIUS = 2
MORGAN_BITS = 2048
MAX_TOP_K = 100
FORMAT = "eagle-rag-fingerprints/1"
_BITS_FILE = "fingerprints.npz"
_META_FILE = "compounds.json"
_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


@lru_cache(maxsize=8)
def _generator(radius: int, n_bits: int) -> rdFingerprintGenerator.FingerprintGenerator64:
    return rdFingerprintGenerator.GetMorganGenerator(radius=radius, fpSize=n_bits)


def morgan_fingerprint(mol_or_smiles: Chem.Mol | str, radius: int = MORGAN_RADIUS,
                       n_bits: int = MORGAN_BITS) -> DataStructs.ExplicitBitVect:
    """The Morgan (ECFP4-like) bit fingerprint of a molecule or SMILES. Raises InvalidStructure."""
    mol = mol_from_smiles(mol_or_smiles) if isinstance(mol_or_smiles, str) else mol_or_smiles
    return _generator(radius, n_bits).GetFingerprint(mol)


@dataclass(frozen=True)
class CompoundHit:
    """One similar compound: its id, name, SMILES, Tanimoto similarity (0..1) and rank (from 1)."""

    compound_id: str
    name: str
    smiles: str
    similarity: float
    rank: int


@dataclass(frozen=True)
class CompoundSearchResult:
    """What :func:`retrieve_compounds` found for one query, with how the query was resolved."""

    query: ResolvedCompound
    hits: tuple[CompoundHit, ...]


class FingerprintIndex:
    """An exact Tanimoto index over Morgan fingerprints. Adding an existing id replaces it."""

    def __init__(self, radius: int = MORGAN_RADIUS, n_bits: int = MORGAN_BITS) -> None:
        if n_bits % 8:
            raise ValueError("n_bits must be a multiple of 8")
        self.radius, self.n_bits = radius, n_bits
        self._ids: list[str] = []
        self._names: list[str] = []
        self._smiles: list[str] = []
        self._fps: list[DataStructs.ExplicitBitVect] = []
        self._pos: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, compound_id: object) -> bool:
        return compound_id in self._pos

    def add(self, compound_id: str, smiles: str, name: str = "") -> None:
        """Index one compound. Raises InvalidStructure for an invalid SMILES."""
        self._put(compound_id, name, smiles, morgan_fingerprint(smiles, self.radius, self.n_bits))

    def _put(self, compound_id: str, name: str, smiles: str, fp: DataStructs.ExplicitBitVect) -> None:
        if compound_id in self._pos:
            i = self._pos[compound_id]
            self._names[i], self._smiles[i], self._fps[i] = name, smiles, fp
            return
        self._pos[compound_id] = len(self._ids)
        self._ids.append(compound_id)
        self._names.append(name)
        self._smiles.append(smiles)
        self._fps.append(fp)

    def add_documents(self, documents: Iterable[ParsedDocument]) -> int:
        """Index the compound documents of a parser (``metadata["smiles"]``). Returns how many were added."""
        added = 0
        for doc in documents:
            smiles = str(doc.metadata.get("smiles") or "")
            if smiles:
                self.add(doc.document_id, smiles, str(doc.metadata.get("name") or doc.name))
                added += 1
        return added

    def search(self, query: str | DataStructs.ExplicitBitVect, top_k: int = 10) -> list[CompoundHit]:
        """The ``top_k`` most similar compounds to a SMILES or fingerprint, best first.

        Raises InvalidStructure for an invalid SMILES.
        """
        fp = morgan_fingerprint(query, self.radius, self.n_bits) if isinstance(query, str) else query
        if not self._fps or top_k <= 0:
            return []
        sims = np.asarray(DataStructs.BulkTanimotoSimilarity(fp, self._fps), dtype=np.float64)
        order = top_k_stable(sims, top_k)
        return [CompoundHit(self._ids[i], self._names[i], self._smiles[i], float(sims[i]), rank)
                for rank, i in enumerate(order.tolist(), start=1)]

    def packed_bits(self) -> np.ndarray:
        """All fingerprints as a ``(n, n_bits / 8)`` uint8 array (little-endian bit order per byte)."""
        rows = [np.frombuffer(bytes.fromhex(DataStructs.BitVectToFPSText(fp)), dtype=np.uint8)
                for fp in self._fps]
        return np.stack(rows) if rows else np.zeros((0, self.n_bits // 8), dtype=np.uint8)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(self._ids)

    def save(self, directory: Path) -> None:
        """Write ``fingerprints.npz`` and ``compounds.json`` into ``directory`` (each replaced atomically)."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        tmp = directory / f".{_BITS_FILE}.tmp"
        with tmp.open("wb") as fh:
            np.savez_compressed(fh, bits=self.packed_bits())
        os.replace(tmp, directory / _BITS_FILE)
        meta = {"format": FORMAT, "radius": self.radius, "n_bits": self.n_bits,
                "ids": self._ids, "names": self._names, "smiles": self._smiles}
        tmp_meta = directory / f".{_META_FILE}.tmp"
        tmp_meta.write_text(json.dumps(meta), encoding="utf-8")
        os.replace(tmp_meta, directory / _META_FILE)

    @classmethod
    def load(cls, directory: Path) -> FingerprintIndex:
        """Read an index written by :meth:`save`. Raises ValueError when the files disagree or are foreign."""
        directory = Path(directory)
        meta = json.loads((directory / _META_FILE).read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT:
            raise ValueError(f"{directory}: not a fingerprint index ({meta.get('format')!r})")
        with np.load(directory / _BITS_FILE, allow_pickle=False) as npz:
            bits = npz["bits"]
        index = cls(int(meta["radius"]), int(meta["n_bits"]))
        ids, names, smiles = meta["ids"], meta["names"], meta["smiles"]
        if not (len(ids) == len(names) == len(smiles) == bits.shape[0]) or bits.shape[1] * 8 != index.n_bits:
            raise ValueError(f"{directory}: fingerprints and compound list do not match")
        for row, cid, name, smi in zip(bits, ids, names, smiles, strict=True):
            index._put(cid, name, smi, DataStructs.CreateFromFPSText(row.tobytes().hex()))
        return index


def top_k_stable(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` highest scores, best first, ties in index order (as a stable full sort).

    Partitions first (linear time), then sorts only the candidates at or above the k-th score.
    """
    if k >= len(scores):
        return np.argsort(-scores, kind="stable")
    threshold = np.partition(scores, len(scores) - k)[len(scores) - k]
    candidates = np.flatnonzero(scores >= threshold)
    return candidates[np.argsort(-scores[candidates], kind="stable")][:k]


def tanimoto_numpy(query: np.ndarray, packed: np.ndarray) -> np.ndarray:
    """Reference Tanimoto of one packed fingerprint against many, in numpy: ``|a&b| / |a|b|``.

    Independent of RDKit (used by the tests and the benchmark to check the index). Two empty
    fingerprints have similarity 0.
    """
    inter = _POPCOUNT[packed & query].sum(axis=1, dtype=np.int64)
    union = _POPCOUNT[packed | query].sum(axis=1, dtype=np.int64)
    return np.divide(inter, union, out=np.zeros(len(packed)), where=union > 0)


def retrieve_compounds(index: FingerprintIndex, smiles_or_name: str, top_k: int = 10) -> CompoundSearchResult:
    """The compounds most similar to a SMILES or drug name, with their Tanimoto similarity.

    The query is resolved by :func:`resolve_compound_query` (aliases, DrugBank names, SMILES).
    Raises InvalidStructure for an unknown name or invalid SMILES, InvalidRequest for ``top_k``
    outside 1..100.
    """
    if not 1 <= top_k <= MAX_TOP_K:
        raise InvalidRequest(f"top_k must be between 1 and {MAX_TOP_K}, got {top_k}")
    resolved = resolve_compound_query(smiles_or_name)
    return CompoundSearchResult(resolved, tuple(index.search(resolved.smiles, top_k)))

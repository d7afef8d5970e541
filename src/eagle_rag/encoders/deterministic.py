"""Hash-based stand-in encoders for tests and explicitly allowed fallbacks.

They are deterministic across processes and platforms (SHA-256, no random seeds) and carry only a
lexical signal: a text's vector is the normalised sum of one pseudo-random vector per token, so
texts that share tokens are closer than texts that share none. They are **not semantic**.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from eagle_rag.protocols import Vector

_TOKEN_RE = re.compile(r"[^\W_]+", re.UNICODE)
_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def hash_tokens(text: str) -> list[str]:
    """Lower-cased word tokens; runs of CJK characters become single characters and bigrams."""
    tokens: list[str] = []
    for tok in _TOKEN_RE.findall(text.lower()):
        if _CJK_RE.search(tok):
            chars = list(tok)
            tokens.extend(chars)
            tokens.extend(a + b for a, b in zip(chars, chars[1:], strict=False))
        else:
            tokens.append(tok)
    return tokens


TOKEN_CACHE = 8192
"""Token vectors kept per process: 8,192 x 384 float64 = 24 MiB (65,536 kept 192 MiB, and grew with
every new token of a long ingest: bench/HISTORY.md, "The store apart from the pipeline")."""


@lru_cache(maxsize=TOKEN_CACHE)
def _token_vector(token: str, dim: int) -> np.ndarray:
    """A pseudo-random unit-variance vector for ``token``: SHA-256 in counter mode, read as int32."""
    needed = dim * 4
    chunks: list[bytes] = []
    counter = 0
    while sum(len(c) for c in chunks) < needed:
        chunks.append(hashlib.sha256(f"{dim}:{counter}:{token}".encode()).digest())
        counter += 1
    raw = np.frombuffer(b"".join(chunks)[:needed], dtype="<i4").astype(np.float64)
    vec = raw / 2.0**31
    vec.setflags(write=False)
    return vec


def _embed(text: str, dim: int) -> np.ndarray:
    tokens = hash_tokens(text) or [f"\x00empty\x00{text}"]
    acc = np.zeros(dim, dtype=np.float64)
    for tok in tokens:
        acc += _token_vector(tok, dim)
    norm = float(np.linalg.norm(acc))
    if norm == 0.0:  # pathological cancellation: fall back to the whole-text hash
        acc = np.array(_token_vector("\x00text\x00" + text, dim))
        norm = float(np.linalg.norm(acc))
    return acc / norm


class DeterministicEncoder:
    """A :class:`~eagle_rag.protocols.TextEncoder` made of hashed token vectors.

    Same text -> same vector, always L2-normalised; queries and passages share one space (no
    instruction prefix), so exact token overlap shows up as cosine similarity.
    """

    semantic = False

    def __init__(self, dim: int, name: str = "deterministic") -> None:
        if dim <= 0:
            raise ValueError(f"dim must be positive, got {dim}")
        self.dim = dim
        self.name = name
        self.model_info = f"deterministic SHA-256 token hash ({dim}-d), NOT semantic"

    def encode_queries(self, texts: Sequence[str]) -> list[Vector]:
        """Embed queries (identical to passages for this encoder)."""
        return [_embed(t, self.dim).tolist() for t in texts]

    def encode_passages(self, texts: Sequence[str]) -> list[Vector]:
        """Embed passages."""
        return [_embed(t, self.dim).tolist() for t in texts]


class DeterministicCrossEncoder:
    """A :class:`~eagle_rag.protocols.CrossEncoder` scoring lexical overlap of hashed tokens.

    The score is the cosine of the two hashed bag-of-token vectors, in [-1, 1]: deterministic, lexical
    only, NOT semantic.
    """

    semantic = False

    def __init__(self, name: str = "deterministic-rerank", dim: int = 256) -> None:
        self.name = name
        self._dim = dim
        self.model_info = "deterministic SHA-256 token overlap, NOT semantic"

    def score_pairs(self, query: str, passages: Sequence[str]) -> list[float]:
        """Score each passage against ``query``; higher means more shared tokens."""
        q = _embed(query, self._dim)
        return [float(q @ _embed(p, self._dim)) for p in passages]

"""Card vectors for the semantic channel: one multilingual e5 passage vector per card, and one English
vector per card (the bundled bge-small over the card's English passage), built once per catalog version
and model, and cached.

The passage of a card (:func:`card_passage`) is its name, aliases, descriptions (English and
Chinese), task labels and languages, cut at :data:`PASSAGE_CHARS` characters. The encoder adds
e5's ``"passage: "`` prefix itself (the core's ``E5MultilingualEncoder``), so the text goes in bare.
The English passage (:func:`english_passage`) is the passage and the card's tags with every Chinese
word replaced by its English gloss (:mod:`.gloss`).

The key of a vector set (:func:`vectors_key`) is a SHA-1 over the model description and every
card's passage: an edited card, an added one or another model gives another key. Lookups, in order:

1. the in-process memo (the last :data:`MEMO_ENTRIES` keys);
2. the bundled file ``data/cards.e5.npz`` (``data/cards.en.npz`` for the English vectors: the bundled
   catalog's vectors, written by ``python -m eagle_rag_datasets.catalog.vectors``), used only when its
   stored key is the key;
3. ``<cache_dir>/cards-<key>.npy`` when a cache folder is given (the service passes
   ``<data_dir>/datasets``);
4. otherwise the cards are embedded (about 4-9 cards a second on two shared cores) and the result
   is written to the cache folder.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from eagle_rag_datasets.catalog.cards import DatasetCard
from eagle_rag_datasets.catalog.gloss import default_glossary, glossary_version, has_chinese

log = logging.getLogger("eagle_rag_datasets")

PASSAGE_CHARS = 600
MEMO_ENTRIES = 8
"""Vector sets kept per process (a 20k-card set is 30 MB)."""
BUNDLED_VECTORS = Path(__file__).parents[1] / "data" / "cards.e5.npz"
BUNDLED_ENGLISH_VECTORS = Path(__file__).parents[1] / "data" / "cards.en.npz"
_MEMO: dict[str, np.ndarray] = {}
_LOCK = threading.Lock()


def card_passage(card: DatasetCard) -> str:
    """The text embedded for ``card`` (at most :data:`PASSAGE_CHARS` characters)."""
    parts = [card.name]
    if card.aliases:
        parts.append(", ".join(card.aliases))
    parts += [card.description, card.description_zh]
    if card.tasks:
        parts.append("Tasks: " + ", ".join(sorted(card.task_labels)))
    if card.languages:
        parts.append("Languages: " + ", ".join(card.languages))
    text = ". ".join(" ".join(p.split()) for p in parts if p and p.strip())
    return text[:PASSAGE_CHARS]


def english_source(card: DatasetCard) -> str:
    """The English space's text of ``card`` before its Chinese is glossed: :func:`card_passage` and the tags."""
    text = card_passage(card)
    return text + ". " + ", ".join(card.tags) if card.tags else text


def english_text(source: str) -> str:
    """``source`` with its Chinese words glossed in English (the glossary loads only when there is Chinese)."""
    return default_glossary().gloss(source) if has_chinese(source) else source


@dataclass(frozen=True)
class Space:
    """What a vector set embeds: ``source`` per card (the key is taken over it and ``version``), ``text``
    of the source (the text the encoder reads), and the bundled catalog's file."""

    source: Callable[[DatasetCard], str]
    text: Callable[[str], str]
    version: str
    bundled: Path


E5_SPACE = Space(card_passage, lambda source: source, "", BUNDLED_VECTORS)
"""The multilingual e5 space: each card's passage as it is."""


def english_space() -> Space:
    """The English space: :func:`english_source` glossed by :func:`english_text`; its version names the
    glossary's sources (:func:`.gloss.glossary_version`), so a change to any of them gives new vectors."""
    return Space(english_source, english_text, f"glossary {glossary_version()}", BUNDLED_ENGLISH_VECTORS)


def model_description(encoder: Any) -> str:
    """What identifies the model of ``encoder`` in a key (its ``model_info`` without thread settings, and without
    the folder a bundled model's package is installed in)."""
    info = str(getattr(encoder, "model_info", "") or getattr(encoder, "name", type(encoder).__name__))
    return re.sub(r"\S*site-packages/", "", info.split(", OMP_NUM_THREADS")[0])  # the same on every install


def vectors_key(passages: Sequence[str], model: str) -> str:
    """SHA-1 (hex) of the model description and the passages."""
    digest = hashlib.sha1(model.encode("utf-8"))
    for text in passages:
        digest.update(b"\x00")
        digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _bundled(key: str, path: Path) -> np.ndarray | None:
    if not path.is_file():
        return None
    with np.load(path) as data:
        if str(data["key"]) != key:
            return None
        return np.asarray(data["vectors"], dtype=np.float32)


def _cached(cache_dir: Path | None, key: str, rows: int) -> np.ndarray | None:
    if cache_dir is None:
        return None
    path = cache_dir / f"cards-{key}.npy"
    if not path.is_file():
        return None
    try:
        matrix = np.load(path)
    except (OSError, ValueError) as exc:  # a torn or foreign file: embed again
        log.warning("ignoring the card-vector cache %s: %s", path, exc)
        return None
    return matrix.astype(np.float32) if matrix.ndim == 2 and matrix.shape[0] == rows else None


def _store(cache_dir: Path | None, key: str, matrix: np.ndarray) -> None:
    if cache_dir is None:
        return
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = cache_dir / f".cards-{key}.{threading.get_ident()}.npy"
        np.save(tmp, matrix.astype(np.float16))
        tmp.replace(cache_dir / f"cards-{key}.npy")  # atomic: a reader never sees half a file
    except OSError as exc:
        log.warning("could not write the card-vector cache in %s: %s", cache_dir, exc)


def card_vectors(cards: Sequence[DatasetCard], encoder: Any, cache_dir: Path | None = None,
                 batch: int = 16, space: Space = E5_SPACE) -> np.ndarray:
    """The ``(len(cards), dim)`` float32 matrix of L2-normalised vectors of each card in ``space``
    (see the module docstring)."""
    sources = [space.source(card) for card in cards]
    key = vectors_key(sources, model_description(encoder) + space.version)
    with _LOCK:
        found = _MEMO.get(key)
        if found is None:
            found = _bundled(key, space.bundled)
        if found is None:
            found = _cached(cache_dir, key, len(sources))
        if found is None:
            passages = [space.text(source) for source in sources]
            rows = [np.asarray(encoder.encode_passages(passages[i:i + batch]), dtype=np.float32)
                    for i in range(0, len(passages), batch)]
            found = np.vstack(rows) if rows else np.zeros((0, int(encoder.dim)), dtype=np.float32)
            _store(cache_dir, key, found)
        norms = np.linalg.norm(found, axis=1, keepdims=True)
        found = (found / np.maximum(norms, 1e-12)).astype(np.float32)
        found.setflags(write=False)
        while len(_MEMO) >= MEMO_ENTRIES:
            _MEMO.pop(next(iter(_MEMO)))  # the oldest entry out
        _MEMO[key] = found
        return found


def write_bundled() -> None:  # pragma: no cover - run by hand after a card edit
    """Embed the bundled catalog in both spaces and write the vectors and keys (float16)."""
    from eagle_rag_datasets.catalog.catalog import DatasetCatalog
    from eagle_rag_datasets.search.semantic import default_encoder, english_encoder

    catalog = DatasetCatalog.load(strict=True)
    for encoder, space in ((default_encoder(), E5_SPACE), (english_encoder(), english_space())):
        sources = [space.source(card) for card in catalog.cards]
        matrix = card_vectors(catalog.cards, encoder, space=space)
        key = vectors_key(sources, model_description(encoder) + space.version)
        np.savez_compressed(space.bundled, key=np.array(key), vectors=matrix.astype(np.float16))
        print(f"wrote {space.bundled}: {matrix.shape[0]} cards")


if __name__ == "__main__":  # pragma: no cover
    write_bundled()

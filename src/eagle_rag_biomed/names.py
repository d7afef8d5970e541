"""The plugin's names: its namespace, its collections and encoder labels, and the collection table.

The five biomed collections, plus the core text and visual collections the plugin writes to:

=======================  ===============  ======  ======  ===============  ===================================
collection               default encoder  metric  hybrid  chunk_type       extra fields
=======================  ===============  ======  ======  ===============  ===================================
eagle_text_biomed        pubmedbert       COSINE  yes     biomed_text      primary_drugs, biomed_section
eagle_text_medcpt        medcpt-query     COSINE  yes     biomed_text      primary_drugs, biomed_section
eagle_chemical           molformer        COSINE  no      chemical         primary_drugs
eagle_medical_radiology  medimageinsight  IP      no      medical_image    image_path, image_id, parent_section,
                                                                           content_summary
eagle_medical_pathology  uni2             IP      no      medical_image    (as radiology)
eagle_text (core)        bge-small        COSINE  yes     text             primary_drugs, biomed_section
eagle_visual (core)      general-visual   IP      no      image            (as radiology)
=======================  ===============  ======  ======  ===============  ===================================

Dimensions come from the registered encoder labels (384 for text labels on the bundled model, 768
with a real checkpoint; 1024 / 1536 / 512 for the visual ones), so a collection always fits its
encoder. Every collection shares the core base schema (id, vector, text, document_id, kb_name,
path, chunk_type, source_type, source_chunk_id, ordinal, metadata); the extra fields are nullable
VARCHAR copies of chunk metadata keys. :func:`ensure_biomed_collections` creates them in the vector
store, and adds a missing extra field (``biomed_section`` of an older collection) online: on a
Milvus server with ``add_collection_field``, on Milvus Lite by a copy into a new physical
collection and an alias swap (see :mod:`eagle_rag.stores.milvus`), backfilled from the metadata.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from eagle_rag.plugin_api import VectorStore
from eagle_rag.plugin_api.encoders import CollectionProfile, EncoderRegistry

PLUGIN_NAME = "biomed"
"""The plugin's name: its options block is ``plugins.options.biomed``; its audit entries carry it."""
NAMESPACE = "biomed"
"""The namespace whose requests the plugin answers (every hook abstains in any other)."""


class Collection(StrEnum):
    """The collections of the table above (the biomed ones and the core ones the plugin writes to)."""

    TEXT_BIOMED = "eagle_text_biomed"
    TEXT_MEDCPT = "eagle_text_medcpt"
    CHEMICAL = "eagle_chemical"
    RADIOLOGY = "eagle_medical_radiology"
    PATHOLOGY = "eagle_medical_pathology"
    CORE_TEXT = "eagle_text"
    CORE_VISUAL = "eagle_visual"


class EncoderLabel(StrEnum):
    """The encoder labels the plugin registers (:mod:`eagle_rag_biomed.encoders.labels`), plus the core's
    bge-small that the core text collection uses."""

    PUBMEDBERT = "pubmedbert"
    MOLFORMER = "molformer"
    MEDCPT_QUERY = "medcpt-query"
    MEDCPT_ARTICLE = "medcpt-article"
    MEDIMAGEINSIGHT = "medimageinsight"
    UNI2 = "uni2"
    MEDCPT_RERANK = "medcpt-rerank"
    GENERAL_VISUAL = "general-visual"
    BGE_SMALL = "bge-small"


TEXT_FIELDS = ("primary_drugs", "biomed_section")
VISUAL_FIELDS = ("image_path", "image_id", "parent_section", "content_summary")


@dataclass(frozen=True)
class BiomedCollection:
    """One row of the table above."""

    name: Collection
    encoder: EncoderLabel
    metric: str
    hybrid: bool
    chunk_type: str
    extra_fields: tuple[str, ...]


BIOMED_COLLECTIONS: tuple[BiomedCollection, ...] = (
    BiomedCollection(Collection.TEXT_BIOMED, EncoderLabel.PUBMEDBERT, "COSINE", True, "biomed_text", TEXT_FIELDS),
    BiomedCollection(Collection.TEXT_MEDCPT, EncoderLabel.MEDCPT_QUERY, "COSINE", True, "biomed_text", TEXT_FIELDS),
    BiomedCollection(Collection.CHEMICAL, EncoderLabel.MOLFORMER, "COSINE", False, "chemical", ("primary_drugs",)),
    BiomedCollection(Collection.RADIOLOGY, EncoderLabel.MEDIMAGEINSIGHT, "IP", False, "medical_image", VISUAL_FIELDS),
    BiomedCollection(Collection.PATHOLOGY, EncoderLabel.UNI2, "IP", False, "medical_image", VISUAL_FIELDS),
)
CORE_COLLECTIONS: tuple[BiomedCollection, ...] = (
    BiomedCollection(Collection.CORE_TEXT, EncoderLabel.BGE_SMALL, "COSINE", True, "text", TEXT_FIELDS),
    BiomedCollection(Collection.CORE_VISUAL, EncoderLabel.GENERAL_VISUAL, "IP", False, "image", VISUAL_FIELDS),
)
ALL_COLLECTIONS = (*BIOMED_COLLECTIONS, *CORE_COLLECTIONS)


def register_collections(registry: EncoderRegistry) -> list[CollectionProfile]:
    """Register (or, for ``eagle_text``, re-register with the extra fields) every collection.

    Dimensions are read from the registered encoder labels, so the encoders must be registered first.
    Returns the profiles. Raises ValueError for an unknown encoder label.
    """
    known = {p.name for p in registry.collections()}
    profiles: list[CollectionProfile] = []
    for coll in ALL_COLLECTIONS:
        spec = registry.spec(coll.encoder)
        profile = CollectionProfile(coll.name, spec.dim, coll.encoder, hybrid_enabled=coll.hybrid,
                                    extra_output_fields=coll.extra_fields, metric=coll.metric)
        registry.register_collection(profile, replace=coll.name == Collection.CORE_TEXT and coll.name in known)
        profiles.append(profile)
    return profiles


def ensure_biomed_collections(vectors: VectorStore, registry: EncoderRegistry) -> list[str]:
    """Create (or migrate: add missing extra fields to) every collection of the table in ``vectors``.

    Returns the collection names.
    Raises ValueError when an existing collection has another dimension or metric.
    """
    names: list[str] = []
    for coll in ALL_COLLECTIONS:
        profile = registry.collection(coll.name)
        vectors.ensure_collection(profile.name, profile.dim, profile.extra_output_fields, profile.metric)
        names.append(profile.name)
    return names


def default_chunk_type(collection: str) -> str:
    """The chunk type a collection's chunks get ("text" for one not in the table)."""
    return next((c.chunk_type for c in ALL_COLLECTIONS if c.name == collection), "text")


RERANK_LANGUAGES = frozenset({"en"})
"""The languages of the Tier-2 models: the MedCPT cross-encoder and its bundled MiniLM stand-in, and the
bundled ColBERT late-interaction model are English; a Chinese query or passage skips them."""

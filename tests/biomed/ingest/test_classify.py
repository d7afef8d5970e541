"""BiomedTextClassifier, BiomedImageClassifier and the classify / embed hooks (namespace, MedCPT swap)."""

from __future__ import annotations

import pytest

from eagle_rag_biomed.hooks import ingest as ingest_hooks
from eagle_rag_biomed.ingest.classify import BiomedImageClassifier, BiomedTextClassifier
from eagle_rag_biomed.options import parse_options
from tests.biomed.helpers import biomed_registry, biomed_settings, chunk, hook_context

pytestmark = pytest.mark.unit
OPTIONS = parse_options({})


def _text(c, **options):
    return BiomedTextClassifier(parse_options(options)).classify(c)


@pytest.mark.parametrize("text", [
    "Aspirin SMILES: CC(=O)Oc1ccccc1C(=O)O", "InChI=1S/C9H8O4/c1-6(10)13-8-5-3-2-4-7(8)9(11)12",
    "The ester C(=O)O group", "chiral centre [C@@H] here", "c1ccc2ccccc2c1 naphthalene",
])
def test_smiles_and_inchi_override_everything(text):
    [decision] = _text(chunk(text, biomed_text_profile="general"))
    assert (decision.collection, decision.encoder, decision.chunk_type, decision.confidence) == (
        "eagle_chemical", "molformer", "chemical", 0.7)
    assert decision.exclusive_group == "biomed_text" and decision.rule == "smiles_override"


def test_compound_documents_go_to_the_chemical_collection():
    [decision] = _text(chunk("Lepirudin\nFormula: C287H440N80O111S6", source_type="compound"))
    assert decision.collection == "eagle_chemical"


def test_profile_routes_biomedical_and_general_text():
    [bio] = _text(chunk("Imatinib for CML", biomed_text_profile="biomedical", biomed_text_profile_confidence=0.31))
    assert (bio.collection, bio.encoder, bio.chunk_type, bio.confidence) == (
        "eagle_text_biomed", "pubmedbert", "biomed_text", 0.31)
    [gen] = _text(chunk("Revenue grew 12%", biomed_text_profile="general"))
    assert (gen.collection, gen.encoder, gen.chunk_type, gen.confidence) == ("eagle_text", "bge-small", "text", 0.6)
    assert bio.exclusive_group == gen.exclusive_group == "biomed_text"
    # no profile in the metadata: the ambiguous default (general) with the default confidence 0.6
    [default] = _text(chunk("text"))
    assert (default.collection, default.confidence) == ("eagle_text", 0.6)
    [biomedical] = _text(chunk("text"), doc_semantic_router={"ambiguous_default": "biomedical"})
    assert (biomedical.collection, biomedical.confidence) == ("eagle_text_biomed", 0.75)


def test_medcpt_index_adds_a_second_collection_in_its_own_group():
    bio, medcpt = _text(chunk("Imatinib for CML", biomed_text_profile="biomedical"), medcpt_index=True)
    assert bio.collection == "eagle_text_biomed"
    assert (medcpt.collection, medcpt.encoder, medcpt.exclusive_group) == (
        "eagle_text_medcpt", "medcpt-article", "biomed_medcpt")


def test_cjk_text_is_left_to_the_core():
    assert _text(chunk("二甲双胍常见胃肠道反应，如恶心、腹泻。")) is None


@pytest.mark.parametrize(("metadata", "text", "expected"), [
    ({"caption": "Axial CT of the chest"}, "", ("eagle_medical_radiology", "medimageinsight", 0.8, "radiology")),
    ({"modality": "MR"}, "", ("eagle_medical_radiology", "medimageinsight", 0.8, "radiology")),
    ({"alt_text": "chest x-ray, PA view"}, "", ("eagle_medical_radiology", "medimageinsight", 0.8, "radiology")),
    ({"caption": "H&E stained section"}, "", ("eagle_medical_pathology", "uni2", 0.8, "pathology")),
    ({"modality": "SM"}, "", ("eagle_medical_pathology", "uni2", 0.8, "pathology")),
    ({"parent_section": "Immunohistochemistry"}, "", ("eagle_medical_pathology", "uni2", 0.8, "pathology")),
    ({"caption": "Chemical structure of aspirin"}, "", ("eagle_chemical", "molformer", 0.75, "chemical_image")),
    ({"image_path": "/x/ligand.pdb"}, "", ("eagle_chemical", "molformer", 0.75, "chemical_image")),
    ({"image_path": "/x/scan.dcm"}, "DICOM image scan.dcm", ("eagle_medical_radiology", "medimageinsight", 0.85,
                                                             "medical_volume_extension")),
    ({"image_path": "/x/brain.nii.gz"}, "", ("eagle_medical_radiology", "medimageinsight", 0.85,
                                             "medical_volume_extension")),
    ({"image_path": "/x/cat.png", "caption": "my pet cat"}, "", ("eagle_visual", "general-visual", 0.5,
                                                                 "general_image_fallback")),
])
def test_image_rules(metadata, text, expected):
    decision = BiomedImageClassifier().classify(chunk(text or "Image", source_type="image", **metadata))
    assert (decision.collection, decision.encoder, decision.confidence, decision.rule) == expected
    assert decision.exclusive_group == "biomed_visual"
    assert decision.chunk_type == {"eagle_visual": "image", "eagle_chemical": "chemical"}.get(
        decision.collection, "medical_image")


def test_hooks_abstain_outside_the_namespace_and_for_core_labels(tmp_path):
    settings = biomed_settings(tmp_path)
    registry = biomed_registry(settings)
    other = hook_context(settings, registry, namespace="default")
    mine = hook_context(settings, registry)
    c = chunk("Imatinib", source_type="image")
    assert ingest_hooks.eagle_classify_chunk(ctx=other, chunk=c) is None
    assert ingest_hooks.eagle_classify_visual(ctx=other, chunk=c) is None
    assert ingest_hooks.eagle_embed_text(ctx=other, encoder="pubmedbert", texts=["x"], kind="passage") is None
    assert ingest_hooks.eagle_embed_text(ctx=mine, encoder="bge-small", texts=["x"], kind="passage") is None
    assert ingest_hooks.eagle_embed_visual(ctx=mine, encoder="clip", images=[b"x"]) is None
    # an image: its text record first, then the visual decision (no "vision: none" in its metadata)
    assert [d.collection for d in ingest_hooks.eagle_classify_visual(ctx=mine, chunk=c)] == [
        "eagle_text_biomed", "eagle_visual"]
    text_only = chunk("Imatinib", source_type="image", vision="none")
    [record] = ingest_hooks.eagle_classify_visual(ctx=mine, chunk=text_only)
    assert (record.collection, record.encoder, record.chunk_type) == ("eagle_text_biomed", "pubmedbert",
                                                                      "image_metadata")
    [vec] = ingest_hooks.eagle_embed_visual(ctx=mine, encoder="uni2", images=[b"bytes"])
    assert len(vec) == 1536


def test_medcpt_is_asymmetric(tmp_path):
    settings = biomed_settings(tmp_path)
    registry = biomed_registry(settings)
    ctx = hook_context(settings, registry)
    embed = ingest_hooks.eagle_embed_text
    passage = embed(ctx=ctx, encoder="medcpt-query", texts=["imatinib"], kind="passage")
    query = embed(ctx=ctx, encoder="medcpt-query", texts=["imatinib"], kind="query")
    assert passage and query and len(passage[0]) == registry.spec("medcpt-query").dim
    assert registry.is_loaded("medcpt-article") and registry.is_loaded("medcpt-query")

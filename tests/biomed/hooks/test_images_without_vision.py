"""Images without a vision model: indexed by their metadata text, searchable, ``vision: none``.

A biomed install without image checkpoints (auto encoder mode, no hash stand-in): a PNG with a
caption sidecar, a PNG whose only text is its EXIF description, and a DICOM file are ingested
without failure; their text records are in ``eagle_text_biomed`` and no visual collection is written.
"""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path

import pytest

from eagle_rag.engine import Engine
from eagle_rag.protocols import StoreFilter
from eagle_rag.retrieve.channels import dense_channel
from eagle_rag.types import CollectionQueryPlan, SearchRequest
from tests.biomed.conftest import dicom_bytes, png_bytes
from tests.biomed.helpers import biomed_settings, rows

pytestmark = pytest.mark.integration

VISUAL = ("eagle_visual", "eagle_medical_radiology", "eagle_medical_pathology")


def _exif_png(description: str) -> bytes:
    from PIL import Image

    image = Image.new("RGB", (9, 7), (10, 120, 40))
    exif = image.getexif()
    exif[270] = description  # ImageDescription
    exif[271] = "Acme"  # Make
    buf = io.BytesIO()
    image.save(buf, format="PNG", exif=exif)
    return buf.getvalue()


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    src = tmp_path_factory.mktemp("images")
    (src / "chest.png").write_bytes(png_bytes())
    (src / "chest.png.txt").write_text("Frontal chest radiograph with right lower lobe consolidation")
    (src / "gel.png").write_bytes(_exif_png("Western blot of phosphorylated STAT3 in hepatocytes"))
    (src / "knee.dcm").write_bytes(dicom_bytes(modality="MR", body_part="KNEE", study="MRI knee meniscal tear"))
    with pytest.MonkeyPatch.context() as patch:
        for var in [v for v in os.environ if v.startswith("EAGLE_BIOMED_")]:
            patch.delenv(var)
        settings = biomed_settings(tmp_path_factory.mktemp("data"), deterministic=False)
        with Engine(settings) as eng:
            report = eng.ingest([src], kb_name="img")
            yield eng, report


def _hit(engine: Engine, query: str):
    response = engine.search(SearchRequest(query, top_k=3, kb_names=("img",)))
    assert response.hits, query
    return response.hits[0]


def test_images_are_ingested_without_a_vision_model(engine) -> None:
    eng, report = engine
    assert not report.failures and report.documents == 3
    records = rows(eng, "eagle_text_biomed", "", ("path", "chunk_type"))
    assert sorted((r["path"], r["chunk_type"]) for r in records) == [
        ("chest.png", "image_metadata"), ("gel.png", "image_metadata"), ("knee.dcm", "image_metadata")]
    for collection in VISUAL:
        assert rows(eng, collection) == [], collection


@pytest.mark.parametrize(("query", "path"), [
    ("right lower lobe consolidation", "chest.png"),  # the caption sidecar
    ("phosphorylated STAT3 western blot", "gel.png"),  # the EXIF description
    ("MRI knee meniscal tear", "knee.dcm"),  # the DICOM study description
])
def test_images_are_found_by_their_text_and_say_vision_none(engine, query: str, path: str) -> None:
    eng, _ = engine
    hit = _hit(eng, query)
    assert hit.path == path and hit.collection == "eagle_text_biomed"
    assert hit.metadata["vision"] == "none" and hit.metadata["image_path"].endswith(path)


def test_dicom_tags_are_in_the_text_record(engine) -> None:
    eng, _ = engine
    hit = _hit(eng, "MR KNEE")
    assert hit.path == "knee.dcm"
    assert "Modality: MR" in hit.text and "Body part: KNEE" in hit.text and "Study: MRI knee meniscal tear" in hit.text


def test_health_names_the_missing_image_models(engine) -> None:
    from fastapi.testclient import TestClient

    from eagle_rag.api import create_app

    eng, _ = engine
    with TestClient(create_app(eng)) as client:
        body = client.get("/health").json()
    models = body["image_models"]
    assert set(models) == {"general-visual", "medimageinsight", "uni2"}
    assert {m["state"] for m in models.values()} == {"missing"}
    assert "EAGLE_BIOMED_MEDIMAGE_MODEL" in models["medimageinsight"]["detail"]


def test_a_query_image_without_a_visual_encoder_is_a_clear_400(engine) -> None:
    from fastapi.testclient import TestClient

    from eagle_rag.api import create_app
    from eagle_rag.errors import InvalidRequest

    eng, _ = engine
    with pytest.raises(InvalidRequest, match="needs a visual encoder") as caught:
        eng.search(SearchRequest("chest radiograph", kb_names=("img",), image=png_bytes()))
    assert "EAGLE_BIOMED_GENERAL_VISUAL_MODEL" in str(caught.value)
    image = base64.b64encode(png_bytes()).decode()
    with TestClient(create_app(eng)) as client:
        answer = client.post("/search", json={"query": "chest radiograph", "kb_names": ["img"], "image": image})
        not_base64 = client.post("/search", json={"query": "chest radiograph", "image": "%%%"})
        text_only = client.post("/search", json={"query": "chest radiograph", "kb_names": ["img"]})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["details"]["field"] == "image" and "needs a visual encoder" in error["message"]
    assert not_base64.status_code == 400 and "base64" in not_base64.json()["error"]["message"]
    assert text_only.status_code == 200 and text_only.json()["hits"][0]["path"] == "chest.png"


def test_a_query_image_is_searched_when_a_visual_encoder_exists(tmp_path: Path) -> None:
    # hash image vectors (deterministic mode) stand in for a configured checkpoint: the image is
    # written to its visual collection, and the same bytes as a query find it there
    src = tmp_path / "src"
    src.mkdir()
    photo = png_bytes((12, 9))
    (src / "photo.png").write_bytes(photo)
    with Engine(biomed_settings(tmp_path / "data")) as eng:
        assert not eng.ingest([src], kb_name="img").failures
        assert eng.encoders.image_models()["general-visual"]["state"] == "hash"
        response = eng.search(SearchRequest("holiday snapshot", kb_names=("img",), image=photo, mode="dense"))
        assert "eagle_visual" in response.route["plans_with_hits"]  # has_image routes the visual plan
        assert response.hits[0].path == "photo.png" and response.hits[0].metadata["vision"] == "general-visual"
        # the visual plan's dense channel embeds the image, not the text: the same bytes, cosine 1
        plan = CollectionQueryPlan("eagle_visual", "general-visual")
        ctx = eng.request_context("biomed")
        [by_image] = dense_channel(ctx, plan, "holiday snapshot", 5, StoreFilter(), image=photo)
        [by_text] = dense_channel(ctx, plan, "holiday snapshot", 5, StoreFilter())
    assert by_image.node.path == "photo.png" and by_image.score == pytest.approx(1.0, abs=1e-4)
    assert by_text.score < 0.5

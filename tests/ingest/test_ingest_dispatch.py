"""The ingest orchestrator's additions: route "skip", allowed roots, parse warnings, image chunks
(CLASSIFY_VISUAL + EMBED_VISUAL with the file bytes), several classifications with exclusive groups,
and per-document failures for encoders that cannot load."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from eagle_rag.encoders import CollectionProfile, DeterministicEncoder, EncoderLoadError, EncoderSpec
from eagle_rag.engine import Engine
from eagle_rag.hookspecs import hookimpl
from eagle_rag.settings import load_settings
from eagle_rag.types import Chunk, ChunkClassification, Modality, ParsedDocument, Section, document_key
from tests.profiles import GENERAL

pytestmark = pytest.mark.integration


class ImageEncoder(DeterministicEncoder):
    """A visual label: the vector is the hash of the file bytes' length (records the bytes seen)."""

    seen: list[bytes] = []

    def encode_images(self, images):
        ImageEncoder.seen.extend(images)
        return self.encode_passages([f"len{len(b)}" for b in images])


class Toy:
    """Parses ``.pic`` as an image document and ``.rec`` as two records (one skipped), routes by text."""

    @hookimpl
    def eagle_register(self, ctx, encoders):
        encoders.register_encoder(EncoderSpec("pix", Modality.VISUAL, 16, lambda: ImageEncoder(16, "pix")))
        encoders.register_encoder(EncoderSpec("broken", Modality.TEXT, 384, _broken))
        encoders.register_collection(CollectionProfile("pics", 16, "pix", hybrid_enabled=False, metric="IP",
                                                       extra_output_fields=("image_path",)))
        encoders.register_collection(CollectionProfile("copy", 384, "bge-small"))
        encoders.register_collection(CollectionProfile("never", 384, "broken"))

    @hookimpl
    def eagle_ingest_route_selector(self, path: Path):
        if path.name.endswith(".caption.txt"):
            return "skip"
        return {".pic": "pic", ".rec": "rec"}.get(path.suffix)

    @hookimpl
    def eagle_parse(self, path: Path, route: str, data: bytes, kb_name: str):
        if route == "pic":
            meta = {"image_path": str(path)}
            return [ParsedDocument(f"pic-{path.stem}", path.name, str(path), (Section((path.name,), "a picture"),),
                                   source_type="image", kb_name=kb_name, metadata=meta)]
        if route == "rec":
            warn = {"parse_warnings": [{"record": 1, "reason": "line 2: bad record"}]}
            return [ParsedDocument(f"rec-{path.stem}", path.name, str(path), (Section(("r",), data.decode()),),
                                   kb_name=kb_name, metadata=warn)]
        return None

    @hookimpl
    def eagle_classify_visual(self, chunk: Chunk):
        return ChunkClassification("pics", "pix", "image", rule="toy_visual")

    @hookimpl
    def eagle_classify_chunk(self, chunk: Chunk):
        if "COPY" in chunk.text:
            return [ChunkClassification("eagle_text", "bge-small", "text", "g"),
                    ChunkClassification("copy", "bge-small", "text", "g"),  # same group: dropped
                    ChunkClassification("copy", "bge-small", "copy", "other")]
        if "BROKEN" in chunk.text:
            return ChunkClassification("never", "broken", "text")
        return None


def _broken():
    raise EncoderLoadError("model 'broken' is missing")


@pytest.fixture
def setup(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.pic").write_bytes(b"12345")
    (src / "a.caption.txt").write_text("caption sidecar")
    (src / "r.rec").write_text("records COPY here")
    (src / "b.txt").write_text("this one is BROKEN")
    (src / "c.txt").write_text("plain text")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret text")
    os.symlink(outside / "secret.txt", src / "link.txt")
    settings = load_settings(environ=GENERAL, overrides={
        "data_dir": str(tmp_path / "data"), "encoders": {"mode": "deterministic"}, "plugins": {"enabled": []},
        "ingest": {"allowed_roots": [str(src)]}})
    ImageEncoder.seen = []
    with Engine(settings, extra_plugins=[("toy", Toy())]) as engine:
        yield engine, src, outside


def test_skip_roots_warnings_visual_groups_and_encoder_failures(setup):
    engine, src, outside = setup
    report = engine.ingest([src, outside / "secret.txt"], kb_name="k")
    failures = {Path(f.path).name: f.error for f in report.failures}
    # the sidecar is ignored silently, the symlink out of the root and the outside file are refused
    assert report.skipped_files == 1
    assert "outside the allowed ingest roots" in failures["link.txt"]
    assert "outside the allowed ingest roots" in failures["secret.txt"]
    assert str(outside) not in failures["link.txt"]
    # an encoder that cannot load fails its document only
    assert "model 'broken' is missing" in failures["b.txt"]
    assert report.documents == 3 and set(failures) == {"link.txt", "secret.txt", "b.txt"}
    # a record the parser skipped is a warning of its file
    assert [(Path(w.path).name, w.error) for w in report.warnings] == [("r.rec", "record skipped: line 2: bad record")]
    # the image was embedded from its file bytes by EMBED_VISUAL, into the IP collection
    assert ImageEncoder.seen == [b"12345"]
    assert engine.vectors.count("pics") == 1
    # one chunk, two collections: eagle_text and copy (group "other"); the second "g" decision is dropped
    key = document_key("k", "rec-r")
    assert engine.vectors.chunk_ids_for_document("eagle_text", key)
    rows = engine.vectors.client.query("copy", filter=f'document_id == "{key}"', output_fields=["chunk_type"])
    assert [r["chunk_type"] for r in rows] == ["copy"]
    assert report.chunks == 3  # a chunk written twice counts once
    skipped = [d for d in engine.audit.ring.recent(500) if d.category == "ingest_exclusive_skip"]
    assert skipped and skipped[0].data["collection"] == "copy"
    assert engine.registry.get(key).chunk_count == 1


def test_core_default_embed_visual_needs_encode_images(tmp_path):
    settings = load_settings(environ=GENERAL, overrides={"data_dir": str(tmp_path),
                                                         "encoders": {"mode": "deterministic"},
                                                         "plugins": {"enabled": []}})
    with Engine(settings, extra_plugins=[("toy", Toy())]) as engine:
        ctx = engine.request_context()
        assert len(engine.pm.hook.eagle_embed_visual(ctx=ctx, encoder="pix", images=[b"x", b"yy"])) == 2
        with pytest.raises(ValueError, match="cannot embed images"):
            engine.pm.hook.eagle_embed_visual(ctx=ctx, encoder="bge-small", images=[b"x"])

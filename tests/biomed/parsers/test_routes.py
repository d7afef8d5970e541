"""The format selector: routes by suffix and content, and every route has a parser."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.ingest.parsers import PARSERS as CORE_PARSERS
from eagle_rag_biomed.parsers import ROUTES, SUFFIX_ROUTES, is_image_sidecar, route_for
from tests.biomed.conftest import dicom_bytes, png_bytes


@pytest.mark.unit
@pytest.mark.parametrize(("name", "route"), [
    ("paper.pdf", "biomed_pdf"), ("label.XML", "biomed_xml"), ("a.nxml", "biomed_xml"),
    ("set.sdf", "biomed_sdf"), ("m.mol", "biomed_mol"), ("m.mol2", "biomed_mol2"), ("l.smi", "biomed_smiles"),
    ("l.smiles", "biomed_smiles"), ("1hho.pdb", "biomed_pdb"), ("1hho.cif", "biomed_mmcif"),
    ("f.png", "biomed_image"), ("f.JPG", "biomed_image"), ("f.jpeg", "biomed_image"), ("f.tif", "biomed_image"),
    ("f.tiff", "biomed_image"), ("ct.dcm", "biomed_dicom"), ("t1.nii", "biomed_nifti"),
    ("t1.nii.gz", "biomed_nifti"), ("x.abstract.txt", "biomed_abstract"),
    ("notes.md", None), ("data.jsonl", None), ("archive.gz", None), ("page.html", None),
])
def test_route_by_name(name: str, route: str | None) -> None:
    assert route_for(Path("/nonexistent") / name, head=b"") == route


@pytest.mark.unit
def test_routes_sniff_content(tmp_path: Path) -> None:
    abstract = tmp_path / "a.txt"
    abstract.write_text("Title\nBACKGROUND: x.\nMETHODS: y.\nRESULTS: z.\n", encoding="utf-8")
    plain = tmp_path / "b.txt"
    plain.write_text("Just some notes.\n", encoding="utf-8")
    dicom = tmp_path / "IM0001"
    dicom.write_bytes(dicom_bytes())
    assert route_for(abstract) == "biomed_abstract"
    assert route_for(plain) is None  # the core's text route takes it
    assert route_for(dicom) == "biomed_dicom"
    assert route_for(tmp_path / "missing") is None


@pytest.mark.unit
def test_every_route_has_a_parser_and_none_collides_with_the_core() -> None:
    assert set(SUFFIX_ROUTES.values()) | {"biomed_nifti", "biomed_abstract"} <= set(ROUTES)
    assert not set(ROUTES) & set(CORE_PARSERS)
    assert all(name.startswith("biomed_") for name in ROUTES)


@pytest.mark.unit
def test_image_sidecars_are_recognised(tmp_path: Path) -> None:
    (tmp_path / "fig.png").write_bytes(png_bytes())
    for name in ("fig.txt", "fig.json", "fig.png.txt", "fig.png.json"):
        (tmp_path / name).write_text("caption", encoding="utf-8")
        assert is_image_sidecar(tmp_path / name), name
    (tmp_path / "other.txt").write_text("text", encoding="utf-8")
    assert not is_image_sidecar(tmp_path / "other.txt")
    assert not is_image_sidecar(tmp_path / "fig.png")


@pytest.mark.unit
def test_lazy_parsers_report_a_missing_dependency(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from eagle_rag.errors import IngestError

    monkeypatch.setitem(sys.modules, "eagle_rag_biomed.parsers.pdf", None)
    with pytest.raises(IngestError, match=r"a.pdf: the biomed parsers need .*a dependency of eagle-rag"):
        ROUTES["biomed_pdf"](Path("a.pdf"), b"%PDF-1.4", "kb")


@pytest.mark.integration
def test_a_mixed_folder_goes_through_route_for_and_routes(tmp_path: Path) -> None:
    """What the orchestrator does per file: good files parse, hostile ones fail alone with a message."""
    from eagle_rag.errors import IngestError
    from eagle_rag_biomed.chem.sdf_writer import BAD_RECORD, drugbank_sdf_text
    from tests.biomed.conftest import LABELS, make_pdf, nifti_file, shared

    (tmp_path / "humira.xml").write_bytes(shared(LABELS / "humira.xml").read_bytes())
    (tmp_path / "paper.pdf").write_bytes(make_pdf([[("h", "1 Introduction"), ("p", "Statins lower LDL. " * 9)]]))
    sdf, _ = drugbank_sdf_text(limit=20, coords=False)
    (tmp_path / "set.sdf").write_text(sdf + BAD_RECORD, encoding="utf-8")
    (tmp_path / "fig.png").write_bytes(png_bytes())
    (tmp_path / "fig.txt").write_text("Chest radiograph, PA view", encoding="utf-8")
    (tmp_path / "ct.dcm").write_bytes(dicom_bytes())
    nifti_file(tmp_path / "t1.nii.gz")
    (tmp_path / "x.abstract.txt").write_text("T\nBACKGROUND: a.\nRESULTS: b.\n", encoding="utf-8")
    (tmp_path / "cut.pdf").write_bytes((tmp_path / "paper.pdf").read_bytes()[:500])
    (tmp_path / "fake.png").write_bytes(b"definitely not an image")
    (tmp_path / "bomb.xml").write_bytes(b'<!DOCTYPE d [<!ENTITY a "aa">]><d>&a;</d>')
    parsed: dict[str, list] = {}
    failed: dict[str, str] = {}
    for path in sorted(tmp_path.iterdir()):
        route = route_for(path)
        if route is None:
            assert is_image_sidecar(path)
            continue
        try:
            parsed[path.name] = ROUTES[route](path, path.read_bytes(), "kb")
        except IngestError as exc:
            failed[path.name] = exc.message
    assert set(failed) == {"cut.pdf", "fake.png", "bomb.xml"}
    assert all(msg.startswith(name) for name, msg in failed.items())
    assert {n: len(d) for n, d in parsed.items()} == {"ct.dcm": 1, "fig.png": 1, "humira.xml": 1, "paper.pdf": 1,
                                                      "set.sdf": 20, "t1.nii.gz": 1, "x.abstract.txt": 1}
    types = {d.source_type for docs in parsed.values() for d in docs}
    assert types == {"dicom", "image", "drug_label", "pdf", "compound", "nifti", "abstract"}
    assert parsed["set.sdf"][0].metadata["skipped_records"] == 1
    assert parsed["fig.png"][0].metadata["caption"] == "Chest radiograph, PA view"

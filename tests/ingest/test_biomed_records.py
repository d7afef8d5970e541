"""Record by record for the biomed multi-record formats, on real stores with the ``biomed`` profile
(deterministic encoders): a PubMed XML set with one malformed article and an SD file with one
broken molecule ingest every other record, report the bad one with its line, and leave the stores
consistent for ``doctor``."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("rdkit")
pytest.importorskip("defusedxml")

from rdkit import Chem  # noqa: E402

from eagle_rag.engine import Engine  # noqa: E402
from eagle_rag.ops import doctor  # noqa: E402
from eagle_rag.types import DocumentStatus  # noqa: E402
from tests.biomed.helpers import biomed_settings  # noqa: E402

pytestmark = pytest.mark.integration
ARTICLES = 12
MALFORMED = 7  # 1-based: this article has a citation without an <Article>
SMILES = ["CCO", "CC(=O)Oc1ccccc1C(=O)O", "CN1C=NC2=C1C(=O)N(C(=O)N2C)C", "c1ccccc1O", "CC(C)Cc1ccc(cc1)C(C)C(=O)O"]


def article(pmid: int) -> str:
    if pmid == MALFORMED:
        return (f"<PubmedArticle>\n<MedlineCitation>\n<PMID>{pmid}</PMID>\n</MedlineCitation>\n"
                "</PubmedArticle>\n")
    return (f"<PubmedArticle>\n<MedlineCitation>\n<PMID>{pmid}</PMID>\n<Article>\n"
            f"<ArticleTitle>Kinase inhibitor trial {pmid}</ArticleTitle>\n<Abstract>\n"
            f"<AbstractText Label=\"RESULTS\">Marker{pmid} reduced tumour growth.</AbstractText>\n"
            "</Abstract>\n</Article>\n</MedlineCitation>\n</PubmedArticle>\n")


def pubmed_set(path: Path) -> dict[int, int]:
    """Write the set; returns {pmid: line of its <PubmedArticle>}."""
    head = '<?xml version="1.0" encoding="UTF-8"?>\n<PubmedArticleSet>\n'
    text, lines = head, {}
    for pmid in range(1, ARTICLES + 1):
        lines[pmid] = text.count("\n") + 1
        text += article(pmid)
    path.write_text(text + "</PubmedArticleSet>\n", encoding="utf-8")
    return lines


def sdf(path: Path) -> int:
    """Write an SD file of the good molecules with one broken one (a carbon of valence 6) in the
    middle; returns the line its record starts on."""
    broken = Chem.MolFromSmiles("CC(C)(C)(C)(C)C", sanitize=False)
    broken.UpdatePropertyCache(strict=False)
    blocks = [Chem.MolToMolBlock(Chem.MolFromSmiles(s)) + f">  <NAME>\nmol{i}\n\n$$$$\n" for i, s in enumerate(SMILES)]
    blocks.insert(2, Chem.MolToMolBlock(broken) + ">  <NAME>\nbroken\n\n$$$$\n")
    path.write_text("".join(blocks), encoding="utf-8")
    return "".join(blocks[:2]).count("\n") + 1


def test_a_pubmed_set_and_an_sd_file_lose_only_their_bad_record(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    lines = pubmed_set(src / "baseline.xml")
    broken_line = sdf(src / "compounds.sdf")
    with Engine(biomed_settings(tmp_path / "data")) as engine:
        report = engine.ingest([src], kb_name="bio")
        assert report.failures == [] and report.documents == ARTICLES - 1 + len(SMILES)
        failures = {Path(f.file).name: f for f in report.record_failures}
        assert set(failures) == {"baseline.xml", "compounds.sdf"}
        bad_article = failures["baseline.xml"]
        assert (bad_article.record, bad_article.line, bad_article.record_id) == (MALFORMED, lines[MALFORMED], "7")
        assert bad_article.reason == "PubmedArticle 7 has no Article"
        bad_molecule = failures["compounds.sdf"]
        assert (bad_molecule.record, bad_molecule.line, bad_molecule.record_id) == (3, broken_line, "broken")
        assert "valence" in bad_molecule.reason.lower()
        counts = {Path(c.path).name: (c.records, c.ingested, c.failed) for c in engine.ingest(
            [src], kb_name="bio", dry_run=True).files_detail}
        assert counts == {"baseline.xml": (ARTICLES, ARTICLES - 1, 1), "compounds.sdf": (len(SMILES) + 1, 5, 1)}
        complete = engine.registry.list(status=DocumentStatus.COMPLETE, limit=1000)
        names = {r.name for r in complete}
        assert {f"Kinase inhibitor trial {p}" for p in range(1, ARTICLES + 1) if p != MALFORMED} <= names
        assert len(complete) == ARTICLES - 1 + len(SMILES) and "broken" not in names
        checked = doctor.check(engine)
        assert checked.ok and checked.findings == []

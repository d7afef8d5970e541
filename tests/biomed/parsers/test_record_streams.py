"""The biomed multi-record formats read record by record (``eagle_rag_biomed.parsers.RECORD_ROUTES``):
the reader consumes the file as it yields (the first record comes before most of the file is read), the
XML tree does not grow with the records read, a file that stops being well-formed keeps the records
before the break, and every bad record is reported with its number, line and id."""

from __future__ import annotations

import io
import tracemalloc
from pathlib import Path

import pytest
from rdkit import Chem

from eagle_rag.errors import IngestError
from eagle_rag.ingest.records import Record, RecordFailure
from eagle_rag_biomed.parsers import RECORD_ROUTES, collect_records, read_records

LIMIT = 50_000_000
HEAD = b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE PubmedArticleSet>\n<PubmedArticleSet>\n'


def article(pmid: int | str, title: str | None = None, abstract: bool = True) -> bytes:
    """One ``PubmedArticle`` of 9 lines (``title=""``: no title)."""
    title = f"Statin trial {pmid} in adults" if title is None else title
    text = f"<AbstractText Label=\"RESULTS\">Marker{pmid} lowered LDL cholesterol.</AbstractText>" if abstract else ""
    return (f"<PubmedArticle>\n<MedlineCitation>\n<PMID Version=\"1\">{pmid}</PMID>\n<Article>\n"
            f"<ArticleTitle>{title}</ArticleTitle>\n<Abstract>{text}</Abstract>\n</Article>\n"
            "</MedlineCitation>\n</PubmedArticle>\n").encode()


def pubmed_set(count: int, bad: dict[int, bytes] | None = None) -> tuple[bytes, dict[int, int]]:
    """A set of ``count`` articles (PMIDs 1..count; ``bad`` replaces some); returns it and {pmid: line}."""
    data, lines = HEAD, {}
    for pmid in range(1, count + 1):
        lines[pmid] = data.count(b"\n") + 1
        data += (bad or {}).get(pmid, article(pmid))
    return data + b"</PubmedArticleSet>\n", lines


class CountingReads(io.BytesIO):
    """A binary file that remembers how many bytes were read from it."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.bytes_read = 0

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        self.bytes_read += len(chunk)
        return chunk

    def readline(self, size: int | None = -1) -> bytes:
        chunk = super().readline(size)
        self.bytes_read += len(chunk)
        return chunk


def stream(route: str, data: bytes, name: str = "set.xml", limit: int = LIMIT) -> list[Record | RecordFailure]:
    return list(RECORD_ROUTES[route](Path(name), io.BytesIO(data), "kb", limit))


def good(items: list[Record | RecordFailure]) -> list[Record]:
    return [i for i in items if isinstance(i, Record)]


def bad(items: list[Record | RecordFailure]) -> list[RecordFailure]:
    return [i for i in items if isinstance(i, RecordFailure)]


def molblock(smiles: str, name: str) -> bytes:
    return (Chem.MolToMolBlock(Chem.MolFromSmiles(smiles)) + f">  <NAME>\n{name}\n\n$$$$\n").encode()


def sd_file(count: int) -> bytes:
    return b"".join(molblock("CC(=O)Oc1ccccc1C(=O)O", f"aspirin-{i}") for i in range(count))


@pytest.mark.parametrize(("route", "data"), [
    ("biomed_xml", pubmed_set(3000)[0]),
    ("biomed_sdf", sd_file(600)),
    # long names: the file is as large as 60,000 short lines with 8,000 molecules for RDKit to read
    ("biomed_smiles", b"smiles name\n" + b"".join(b"CCO ethanol-%d-%s\n" % (i, b"x" * 100) for i in range(8_000))),
])
def test_the_reader_yields_the_first_record_before_reading_the_file(route: str, data: bytes) -> None:
    fh = CountingReads(data)
    records = RECORD_ROUTES[route](Path("big"), fh, "kb", LIMIT)
    first = next(records)
    assert isinstance(first, Record) and first.record == 1
    assert fh.bytes_read < len(data) // 10, (fh.bytes_read, len(data))
    rest = list(records)
    assert fh.bytes_read == len(data) and not bad(rest)


def _peak_bytes(count: int) -> int:
    data = pubmed_set(count)[0]
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        seen = sum(1 for _ in RECORD_ROUTES["biomed_xml"](Path("set.xml"), io.BytesIO(data), "kb", LIMIT))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert seen == count
    return peak


def test_the_xml_tree_does_not_grow_with_the_articles_read() -> None:
    small, large = _peak_bytes(200), _peak_bytes(4000)  # the input bytes themselves are not traced
    assert large < small * 1.5, (small, large)


def test_a_pubmed_set_reports_each_bad_article_with_its_line_and_pmid() -> None:
    data, lines = pubmed_set(10, {3: article(3, title="", abstract=False), 6: article("6x"),
                                  8: b"<PubmedArticle>\n<MedlineCitation><PMID>8</PMID></MedlineCitation>\n"
                                     b"</PubmedArticle>\n"})
    items = stream("biomed_xml", data)
    assert [r.record for r in good(items)] == [1, 2, 4, 5, 7, 9, 10]
    assert [(f.record, f.line, f.record_id) for f in bad(items)] == [(3, lines[3], "3"), (6, lines[6], "6x"),
                                                                     (8, lines[8], "8")]
    reasons = [f.reason for f in bad(items)]
    assert reasons == ["PubmedArticle 3 has neither title nor abstract",
                       "PubmedArticle 5: the PMID '6x' is not a number", "PubmedArticle 8 has no Article"]
    first = good(items)[0]
    assert (first.line, first.document.metadata["pmid"], first.document.source_uri) == (lines[1], "1", "set.xml#0")


def test_a_set_cut_off_mid_article_keeps_the_articles_before_it() -> None:
    data, lines = pubmed_set(6)
    cut = data[: data.index(b"<PMID Version=\"1\">5</PMID>") + 10]
    items = stream("biomed_pubmed", cut)
    assert [r.record for r in good(items)] == [1, 2, 3, 4]
    [failure] = bad(items)
    assert (failure.record, failure.line) == (5, lines[5])
    assert failure.reason.startswith("malformed XML (line ") and "the rest of the file cannot be read" in failure.reason


def test_garbage_after_some_articles_is_one_failure_naming_its_line() -> None:
    data, lines = pubmed_set(3)
    broken = data.replace(b"</PubmedArticleSet>", b"<oops></PubmedArticleSet>")
    items = stream("biomed_xml", broken)
    assert len(good(items)) == 3
    [failure] = bad(items)
    assert failure.record == 4 and failure.line == lines[3] + 9 and f"line {failure.line}" in failure.reason


def test_broken_xml_before_any_article_fails_the_whole_file() -> None:
    with pytest.raises(IngestError, match=r"set.xml: malformed XML \(line 4"):
        stream("biomed_xml", HEAD + b"<PubmedArticle><<\n")
    bomb = (b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">]>\n'
            b"<PubmedArticleSet>&lol;</PubmedArticleSet>\n")
    with pytest.raises(IngestError, match="refused: the XML declares entities"):
        stream("biomed_xml", bomb)
    with pytest.raises(IngestError, match=r"unsupported XML \(root element <catalog>"):
        stream("biomed_xml", b"<catalog><item/></catalog>")
    with pytest.raises(IngestError, match="no PubmedArticle in the file"):
        stream("biomed_pubmed", b"<PubmedArticleSet></PubmedArticleSet>")


def test_an_article_over_the_record_limit_stops_the_file() -> None:
    huge = article(3, title="statin " * 40_000)
    data, lines = pubmed_set(4, {3: huge})
    items = stream("biomed_xml", data, limit=100_000)
    assert [r.record for r in good(items)] == [1, 2]
    [failure] = bad(items)
    assert (failure.record, failure.line) == (3, lines[3])
    assert failure.reason.startswith(f"the PubmedArticle at line {lines[3]} is over 100000 bytes")


def test_a_pmc_set_article_by_article_and_a_single_article_or_label_as_one_record() -> None:
    def jats(pmc: str, title: str) -> bytes:
        return (f"<article><front><article-meta><article-id pub-id-type=\"pmc\">{pmc}</article-id>"
                f"<title-group><article-title>{title}</article-title></title-group></article-meta></front>"
                "<body><sec><title>Methods</title><p>We enrolled adults.</p></sec></body></article>\n").encode()

    data = b"<pmc-articleset>\n" + jats("PMC1", "First") + b"<article><front/></article>\n" + jats("PMC3", "Third") \
        + b"</pmc-articleset>\n"
    items = stream("biomed_pmc", data)
    assert [(r.record, r.line, r.document.name) for r in good(items)] == [(1, 2, "First"), (3, 4, "Third")]
    [failure] = bad(items)
    assert (failure.record, failure.line, failure.reason) == (2, 3, "PMC article 1 has no front/article-meta")
    [single] = stream("biomed_xml", jats("PMC9", "Alone"))
    assert isinstance(single, Record) and single.document.metadata["pmcid"] == "PMC9"


def test_an_sd_file_reports_the_broken_molecule_and_a_record_over_the_limit() -> None:
    broken = Chem.MolFromSmiles("CC(C)(C)(C)(C)C", sanitize=False)
    broken.UpdatePropertyCache(strict=False)
    blocks = [molblock("CCO", "ethanol"), (Chem.MolToMolBlock(broken) + ">  <NAME>\nbroken\n\n$$$$\n").encode(),
              molblock("c1ccccc1O", "phenol"), molblock("CC(=O)O", "acid" * 300)]
    items = stream("biomed_sdf", b"".join(blocks), "mols.sdf", limit=1000)
    starts = [1 + b"".join(blocks[:i]).count(b"\n") for i in range(4)]
    assert [(r.record, r.line, r.document.name) for r in good(items)] == [(1, 1, "ethanol"), (3, starts[2], "phenol")]
    valence, over = bad(items)
    assert (valence.record, valence.line, valence.record_id) == (2, starts[1], "broken")
    assert "valence" in valence.reason.lower()
    assert (over.record, over.line, over.reason) == (4, starts[3], "the record is over 1000 bytes")


def test_a_smiles_list_line_that_is_not_utf8_is_one_bad_record() -> None:
    data = b"smiles name\nCCO ethanol\nC1CC(N bad-ring\nCC\xe9O latin\nc1ccccc1O phenol\n"
    items = stream("biomed_smiles", data, "mols.smi")
    assert [(r.record, r.line) for r in good(items)] == [(1, 2), (4, 5)]
    assert [(f.record, f.line) for f in bad(items)] == [(2, 3), (3, 4)]
    assert bad(items)[1].reason.startswith("not valid UTF-8")


def test_a_mol2_file_without_a_molecule_block_is_refused() -> None:
    with pytest.raises(IngestError, match="not a mol2 file"):
        stream("biomed_mol2", b"just text\n", "x.mol2")


def test_read_records_opens_the_file_and_collect_records_gathers_them(tmp_path: Path) -> None:
    data, _ = pubmed_set(3, {2: article(2, title="", abstract=False)})
    path = tmp_path / "set.xml"
    path.write_bytes(data)
    assert [i.record for i in read_records("biomed_xml", path, LIMIT, "kb")] == [1, 2, 3]
    collected = collect_records("biomed_xml", path, data, "kb")
    assert len(collected.documents) == 2 and [f.record for f in collected.failures] == [2]
    with pytest.raises(IngestError, match="missing.xml: cannot read"):
        list(read_records("biomed_xml", tmp_path / "missing.xml", LIMIT, "kb"))


def test_a_finished_article_over_the_limit_is_one_bad_record_and_the_file_goes_on() -> None:
    data, lines = pubmed_set(4, {2: article(2, title="statin " * 300)})  # about 2 KB, inside one block
    items = stream("biomed_xml", data, limit=1000)
    assert [r.record for r in good(items)] == [1, 3, 4]
    [failure] = bad(items)
    assert (failure.record, failure.line, failure.reason) == (2, lines[2], f"the PubmedArticle at line {lines[2]} "
                                                              "is over 1000 bytes")
    bare = (b"<article><front><article-meta><title-group><article-title>Big</article-title></title-group>"
            b"</article-meta></front><body><p>" + b"statin " * 2000 + b"</p></body></article>\n")
    [one] = stream("biomed_xml", bare, "big.xml", limit=1000)
    assert isinstance(one, RecordFailure) and one.reason == "the JATS <article> at line 1 is over 1000 bytes"

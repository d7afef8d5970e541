"""Inputs that once crashed a parser (found by the fuzz harness): they must fail with IngestError.

Fixed bugs of the core and of the biomed plugin are pinned here. A new bug of the biomed plugin is
reported to its owner and pinned as a strict xfail, with an entry in ``targets.KNOWN_PLUGIN_BUGS``:
once the plugin is fixed the xfail starts passing, which fails the run until it becomes a normal
test here and the entry is removed. A bad record of a multi-molecule file is skipped and reported
(``parse_warnings``), a file with no good record is an IngestError.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.errors import IngestError
from eagle_rag.ingest.parsers import MAX_METADATA_DEPTH, parse_html, parse_json, parse_jsonl
from tests.fuzz.targets import _pdf_seed, _sdf_seed, parser_for, run_target, seeds

pytestmark = pytest.mark.unit

SDF_LATIN1_NAME = (b"\xff\n  test\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n"
                   b"    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\nM  END\n$$$$\n")
ETHANOL = (b"ethanol\n  test\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n"
           b"    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
           b"    1.2990    0.7500    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
           b"    2.5981    0.0000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0\n"
           b"  1  2  1  0\n  2  3  1  0\nM  END\n$$$$\n")
SDF_GARBAGE_VALENCE = ETHANOL.replace(b"    1.2990    0.7500    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0",
                                      b"    1.2990    0.7500    0.0000 C  " + b"9" * 40)
SDF_LATIN1_PROPERTY = (SDF_LATIN1_NAME.replace(b"\xff\n", b"ok\n")
                       .replace(b"M  END\n", b"M  END\n>  <NAME>\n\xff\xfe\n\n"))
SDF_LATIN1_PROPERTY_NAME = SDF_LATIN1_PROPERTY.replace(b"<NAME>\n\xff\xfe", b"<N\xe9ME>\nok")
SDF_LATIN1_COUNTS = SDF_LATIN1_NAME.replace(b"\xff\n", b"ok\n").replace(b"  1  0  0", b"  \xff  0  0")


@pytest.mark.parametrize("data", [b"[" * 100_000, b'{"a":' * 50_000, b'[{"id": "x", "text": "t", "metadata": '
                                  + b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"}]"])
def test_deeply_nested_json_is_an_ingest_error(data: bytes) -> None:
    with pytest.raises(IngestError, match="nested too deeply"):
        parse_json(Path("deep.json"), data, "kb")
    with pytest.raises(IngestError, match="nested too deeply"):
        parse_jsonl(Path("deep.jsonl"), data + b"\n", "kb")


@pytest.mark.parametrize("data", [b"<![?", b"<p>text</p><![?x", b"<![ ]]>"])
def test_malformed_marked_section_in_html_is_an_ingest_error(data: bytes) -> None:
    """Found by atheris: the stdlib HTMLParser of Python 3.11 raises AssertionError on ``<![?``."""
    try:
        docs = parse_html(Path("bad.html"), data, "kb")
    except IngestError:
        return
    assert docs  # a Python whose parser copes may parse it; it must never raise anything else


def test_metadata_depth_is_limited() -> None:
    nested = "1"
    for _ in range(MAX_METADATA_DEPTH):
        nested = '{"a": ' + nested + "}"
    ok = f'{{"id": "x", "text": "t", "metadata": {nested}}}'.encode()
    assert parse_json(Path("ok.json"), ok, "kb")
    too_deep = ok.replace(b'"metadata": ', b'"metadata": {"b": ') + b"}"
    with pytest.raises(IngestError, match="nested deeper than 32"):
        parse_json(Path("deep.json"), too_deep, "kb")


def _plugin(target: str) -> None:
    if target not in seeds():
        pytest.skip("the biomed plugin is not installed")


@pytest.mark.parametrize("data", [SDF_LATIN1_NAME, SDF_LATIN1_PROPERTY, SDF_LATIN1_PROPERTY_NAME,
                                  SDF_LATIN1_COUNTS],
                         ids=["name", "property", "property_name", "counts_line"])
def test_sdf_molecule_with_latin1_bytes_is_skipped_and_reported(data: bytes) -> None:
    """Found by fuzzing: RDKit's GetProp (and its error log) raised UnicodeDecodeError on non-UTF-8 bytes."""
    _plugin("biomed_sdf")
    with pytest.raises(IngestError, match=r"no valid molecule \(1 bad records; record 0: .*UTF-8"):
        parser_for("biomed_sdf")(Path("latin1.sdf"), data, "kb")
    docs = run_target("biomed_sdf", ETHANOL + data, tolerate_known=False)  # the good molecule is kept
    assert [d.name for d in docs] == ["ethanol"]
    assert docs[0].metadata["skipped_records"] == 1
    assert "UTF-8" in docs[0].metadata["parse_warnings"][0]["reason"]


def test_pdf_with_damaged_info_dictionary_keeps_the_text() -> None:
    """Found by fuzzing: ``reader.metadata`` raised PdfStreamError; a damaged /Info now counts as absent."""
    _plugin("biomed_pdf")
    damaged = _pdf_seed().replace(b"7 0 obj\n<<", b"7 0 obj\n<=")
    assert damaged != _pdf_seed()
    assert [d.name for d in run_target("biomed_pdf", _pdf_seed(), tolerate_known=False)] == ["Atorvastatin trial"]
    [doc] = run_target("biomed_pdf", damaged, tolerate_known=False)
    assert doc.name == "1 Introduction"  # no /Title: the first heading
    assert doc.metadata["author"] == ""
    assert "Statins lower LDL cholesterol" in doc.full_text


def test_sdf_with_a_garbage_valence_field_is_skipped_and_reported() -> None:
    """Found by fuzzing: DetectChemistryProblems raised RuntimeError 'Pre-condition Violation'."""
    _plugin("biomed_sdf")
    assert run_target("biomed_sdf", ETHANOL, tolerate_known=False)  # the intact record parses
    with pytest.raises(IngestError, match=r"record 0: Pre-condition Violation: \S"):
        parser_for("biomed_sdf")(Path("valence.sdf"), SDF_GARBAGE_VALENCE, "kb")
    docs = run_target("biomed_sdf", ETHANOL + SDF_GARBAGE_VALENCE, tolerate_known=False)
    assert [d.name for d in docs] == ["ethanol"]
    assert docs[0].metadata["parse_warnings"][0]["reason"].startswith("record 1: Pre-condition Violation")
    assert "\n" not in docs[0].metadata["parse_warnings"][0]["reason"]


def test_sdf_molecule_that_fails_without_its_hydrogens_is_skipped_and_reported() -> None:
    """Found by fuzzing: a "single or double" query bond (type 5) beside aspirin's ring passes SanitizeMol,
    then RemoveHs raised KekulizeException."""
    _plugin("biomed_sdf")
    query_bond = _sdf_seed().replace(b"  4  5  1  0", b"  4  5  5  0", 1)
    assert query_bond != _sdf_seed()
    docs = run_target("biomed_sdf", query_bond, tolerate_known=False)
    assert [d.name for d in docs] == ["caffeine", "ethanol"]
    assert docs[0].metadata["parse_warnings"][0]["reason"].startswith("record 0: Can't kekulize mol")
    aspirin = query_bond.split(b"$$$$\n")[0] + b"$$$$\n"
    with pytest.raises(IngestError, match="no valid molecule .*kekulize"):
        parser_for("biomed_sdf")(Path("query.sdf"), aspirin, "kb")


@pytest.mark.parametrize("encoding", ["TTF-8", "rot13", "UTF-32"])
@pytest.mark.parametrize("target", ["biomed_spl", "biomed_xml"])
def test_xml_with_an_unknown_encoding_is_an_ingest_error(target: str, encoding: str) -> None:
    """Found by fuzzing: LookupError (unknown codec) or ValueError (multi-byte codec) escaped parse_xml."""
    _plugin(target)
    data = f'<?xml version="1.0" encoding="{encoding}"?><document xmlns="urn:hl7-org:v3"/>'.encode()
    assert run_target(target, data, tolerate_known=False) is None
    with pytest.raises(IngestError, match="unknown or unsupported encoding in the XML declaration"):
        parser_for(target)(Path("label.xml"), data, "kb")

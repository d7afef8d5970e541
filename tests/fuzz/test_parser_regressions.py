"""Inputs that once crashed a parser (found by the fuzz harness): they must fail with IngestError.

Core bugs are fixed and pinned here. Bugs of the biomed plugin are reported to its owner and pinned
as strict xfails: when the plugin is fixed they start passing, which fails the run until the xfail
and the matching ``targets.KNOWN_PLUGIN_BUGS`` entry are removed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.errors import IngestError
from eagle_rag.ingest.parsers import MAX_METADATA_DEPTH, parse_html, parse_json, parse_jsonl
from tests.fuzz.targets import _pdf_seed, run_target, seeds

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


@pytest.mark.xfail(strict=True, raises=UnicodeDecodeError,
                   reason="biomed plugin bug, reported: compounds._name -> RDKit GetProp on a non-UTF-8 name")
@pytest.mark.parametrize("data", [SDF_LATIN1_NAME, SDF_LATIN1_PROPERTY], ids=["name", "property"])
def test_sdf_with_latin1_bytes_is_an_ingest_error(data: bytes) -> None:
    _plugin("biomed_sdf")
    run_target("biomed_sdf", data, tolerate_known=False)


@pytest.mark.xfail(strict=True, reason="biomed plugin bug, reported: parse_pdf reads reader.metadata "
                                       "unguarded; a damaged /Info dictionary raises PdfStreamError")
def test_pdf_with_damaged_info_dictionary_is_an_ingest_error() -> None:
    _plugin("biomed_pdf")
    damaged = _pdf_seed().replace(b"7 0 obj\n<<", b"7 0 obj\n<=")
    assert damaged != _pdf_seed()
    run_target("biomed_pdf", damaged, tolerate_known=False)


@pytest.mark.xfail(strict=True, raises=RuntimeError,
                   reason="biomed plugin bug, reported: molecules.sanitize_problem calls DetectChemistryProblems "
                          "outside its try; RDKit raises 'Pre-condition Violation'")
def test_sdf_with_a_garbage_valence_field_is_an_ingest_error() -> None:
    _plugin("biomed_sdf")
    assert run_target("biomed_sdf", ETHANOL, tolerate_known=False)  # the intact record parses
    run_target("biomed_sdf", SDF_GARBAGE_VALENCE, tolerate_known=False)


@pytest.mark.xfail(strict=True, raises=LookupError,
                   reason="biomed plugin bug, reported: safety.parse_xml lets LookupError escape for an unknown "
                          "encoding in the XML declaration")
@pytest.mark.parametrize("target", ["biomed_spl", "biomed_xml"])
def test_xml_with_an_unknown_encoding_is_an_ingest_error(target: str) -> None:
    _plugin(target)
    run_target(target, b'<?xml version="1.0" encoding="TTF-8"?><document xmlns="urn:hl7-org:v3"/>',
               tolerate_known=False)

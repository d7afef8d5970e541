"""Parser fuzz targets and seeds, shared by ``tests/fuzz`` (hypothesis, bounded) and
``bench/fuzz_parsers.py`` (longer: hypothesis or atheris).

A target is a parser route called as ``parse(path, data, kb_name)``. The only allowed failure is
:class:`eagle_rag.errors.IngestError`; anything else escaping a parser is a bug. Seeds are real
files: the bundled sample corpus (core formats), SPL drug labels from the shared data (when
present), a PDF written by fpdf2 and an SDF written by RDKit.
"""

from __future__ import annotations

import io
import json
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from eagle_rag.errors import IngestError
from eagle_rag.ingest.parsers import PARSERS
from eagle_rag.ops.demo import sample_dir
from eagle_rag.types import ParsedDocument

LABELS = Path(__file__).resolve().parents[3] / "shared" / "data" / "drug_labels"
Parser = Callable[[Path, bytes, str], list[ParsedDocument]]

#: format-specific tokens spliced into seeds by the mutators
TOKENS: dict[str, list[bytes]] = {
    "text": [b"\x00", b"\xff\xfe", b"\xef\xbb\xbf", b"\r\n", "\u2028".encode(), "中文".encode(), b"\xed\xa0\x80"],
    "markdown": [b"\n# ", b"\n###### ", b"\n```\n", b"\n#\n", b"#" * 300, b"\n\n", b"<!--"],
    "html": [b"<h1>", b"</h1>", b"<script>", b"<title>", b"&#0;", b"&#x110000;", b"&amp", b"<![CDATA[", b"<![",
             b"<!", b"<h7>"],
    "json": [b"{", b"}", b"[", b"]", b'"id":', b'"tags": [1]', b'"metadata": []', b"1e999", b"NaN", b'"\\ud800"'],
    "xml": [b"<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]>", b"&e;", b"<![CDATA[", b"]]>", b"<", b"&",
            b"<section>", b"</section>", b"<title>", b'xmlns="urn:hl7-org:v3"', b"<?xml version='1.0'?>", b"\x00"],
    "pdf": [b"obj", b"endobj", b"stream", b"endstream", b"/Length 99999999", b"xref", b"trailer", b"<<", b">>",
            b"/Filter /FlateDecode", b"%%EOF", b"/Pages 1 0 R", b"/Count -1"],
    "sdf": [b"M  END", b"$$$$", b"V2000", b"V3000", b"999999", b"> <NAME>", b"> <SMILES>", b"\n", b" 1  2  9  0"],
}


def _sample(*parts: str) -> bytes:
    return sample_dir().joinpath(*parts).read_bytes()


def _pdf_seed() -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_creation_date(datetime(2024, 1, 1, tzinfo=UTC))  # the same bytes every run
    pdf.set_font("Helvetica", size=11)
    pdf.set_title("Atorvastatin trial")
    pdf.add_page()
    pdf.cell(0, 8, "1 Introduction", new_x="LMARGIN", new_y="NEXT")
    pdf.multi_cell(0, 6, "Statins lower LDL cholesterol in adults at risk. " * 4, new_x="LMARGIN", new_y="NEXT")
    pdf.cell(0, 8, "2 Methods", new_x="LMARGIN", new_y="NEXT")
    pdf.multi_cell(0, 6, "We randomised 100 adults to atorvastatin 10 mg or placebo.", new_x="LMARGIN",
                   new_y="NEXT")
    return bytes(pdf.output())


def _sdf_seed() -> bytes:
    from rdkit import Chem

    out = io.StringIO()
    writer = Chem.SDWriter(out)
    for smiles, name in (("CC(=O)Oc1ccccc1C(=O)O", "aspirin"), ("CN1C(=O)N(C)c2ncn(C)c2C1=O", "caffeine"),
                         ("CCO", "ethanol")):
        mol = Chem.MolFromSmiles(smiles)
        mol.SetProp("_Name", name)
        mol.SetProp("NAME", name)
        writer.write(mol)
    writer.close()
    return out.getvalue().encode()


@cache
def seeds() -> dict[str, list[bytes]]:
    """Seed files per target name (SPL labels only when the shared data is present)."""
    record = {"id": "r1", "title": "Aspirin", "text": "Aspirin inhibits COX-1.", "tags": ["cv"], "metadata": {"a": 1}}
    out: dict[str, list[bytes]] = {
        "text": [b"GAPDH siRNA knockdown at 20 nM, catalogue D-001234."],
        "markdown": [_sample("labels", "label_aspirin.md"), _sample("chinese", "metformin_zh.md")],
        "html": [_sample("other", "overview.html")],
        "json": [json.dumps([record, {**record, "id": "r2"}]).encode()],
        "jsonl": [_sample("abstracts", "abstracts.jsonl")[:4000].rsplit(b"\n", 1)[0] + b"\n"],
        "beir": [(json.dumps({"_id": "1", "title": "T", "text": "Body"}) + "\n").encode()],
    }
    labels = [LABELS / name for name in ("cough.xml", "no-title.xml")]
    present = [p.read_bytes() for p in labels if p.is_file()]
    try:
        import eagle_rag_biomed.parsers  # noqa: F401
    except ImportError:  # the plugin is not installed: core targets only
        return out
    out["biomed_spl"] = present
    out["biomed_xml"] = present
    out["biomed_pdf"] = [_pdf_seed()]
    out["biomed_sdf"] = [_sdf_seed()]
    return {name: values for name, values in out.items() if values}


def token_kind(target: str) -> str:
    """The :data:`TOKENS` list used for ``target``."""
    return {"jsonl": "json", "beir": "json", "biomed_spl": "xml", "biomed_xml": "xml", "biomed_pdf": "pdf",
            "biomed_sdf": "sdf"}.get(target, target)


def mutate(seed: bytes, ops: list[tuple[int, int, int, int]], tokens: list[bytes]) -> bytes:
    """Apply mutation ops ``(kind, position, length, value)`` to ``seed`` (positions wrap around).

    Kinds: 0 flip a byte, 1 insert a byte, 2 delete a range, 3 truncate, 4 duplicate a range,
    5 splice a format token, 6 swap two ranges, 7 splice a token repeated 100-5000 times (deep
    nesting, long runs).
    """
    data = bytearray(seed)
    for kind, pos, length, value in ops:
        size = len(data)
        at = pos % (size + 1)
        span = 1 + length % 64
        if kind == 0 and size:
            data[at % size] ^= 1 << (value % 8)
        elif kind == 1:
            data[at:at] = bytes([value % 256])
        elif kind == 2:
            del data[at:at + span]
        elif kind == 3:
            del data[at:]
        elif kind == 4:
            data[at:at] = data[at:at + span] * (1 + value % 4)
        elif kind == 5:
            data[at:at] = tokens[value % len(tokens)]
        elif kind == 6 and size:
            other = value % size
            data[at:at + span], data[other:other + span] = data[other:other + span], data[at:at + span]
        elif kind == 7:
            data[at:at] = tokens[value % len(tokens)] * (100 + (length * 37) % 4900)
    return bytes(data)


def parser_for(target: str) -> Parser:
    if target in PARSERS:
        return PARSERS[target]
    from eagle_rag_biomed.parsers import ROUTES

    return ROUTES[target]


SUFFIX = {"text": ".txt", "markdown": ".md", "html": ".html", "json": ".json", "jsonl": ".jsonl",
          "beir": "corpus.jsonl", "biomed_spl": ".xml", "biomed_xml": ".xml", "biomed_pdf": ".pdf",
          "biomed_sdf": ".sdf"}


#: bugs of the biomed plugin found by fuzzing and reported to its owner, with reproducers in
#: test_parser_regressions.py: (target, exception type or module name, plugin module) -> report. While listed,
#: the fuzz tests tolerate exactly these, so they keep looking for other bugs. Remove an entry
#: once the plugin is fixed (its strict xfail regression test starts failing then). Empty: the bugs
#: found so far (non-UTF-8 SD properties, a garbage valence field, a damaged PDF /Info, an unknown
#: XML encoding) are fixed and pinned as normal regression tests.
KNOWN_PLUGIN_BUGS: dict[tuple[str, str, str], str] = {}


def known_plugin_bug(target: str, exc: BaseException) -> str | None:
    """The report of a listed plugin bug that ``exc`` is an instance of, else None."""
    frames = traceback.extract_tb(exc.__traceback__)
    modules = {Path(f.filename).name for f in frames if "eagle_rag_biomed" in f.filename}
    for (known_target, name, module), report in KNOWN_PLUGIN_BUGS.items():
        if known_target == target and name in (type(exc).__name__, type(exc).__module__) and module in modules:
            return report
    return None


def run_target(target: str, data: bytes, tolerate_known: bool = True) -> Any:
    """Parse ``data``; returns the documents, or None for an IngestError (or, with
    ``tolerate_known``, a listed plugin bug). Any other exception escapes."""
    name = SUFFIX[target] if SUFFIX[target].startswith("corpus") else f"fuzz{SUFFIX[target]}"
    try:
        docs = parser_for(target)(Path("/nonexistent/fuzz") / name, data, "fuzz")
    except IngestError:
        return None
    except Exception as exc:
        if tolerate_known and known_plugin_bug(target, exc):
            return None
        raise
    assert isinstance(docs, list) and all(isinstance(d, ParsedDocument) for d in docs), type(docs)
    for doc in docs:
        assert doc.document_id and isinstance(doc.document_id, str)
    return docs

"""One route for biomedical ``.xml``: dispatch on the root element (SPL label, PubMed set, PMC / JATS).

:func:`parse_biomed_xml` parses a whole file (stopping at the first bad article); ingest reads the
``biomed_xml``, ``biomed_pubmed`` and ``biomed_pmc`` routes record by record with
:func:`biomed_xml_records`, :func:`pubmed_set_records` and :func:`pmc_set_records`
(:mod:`eagle_rag_biomed.parsers.xml_records`): an SPL label or a bare JATS article is a file of one record.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO
from xml.etree.ElementTree import Element

from eagle_rag.plugin_api import IngestError, ParsedDocument
from eagle_rag.plugin_api.ingest import Record, RecordFailure
from eagle_rag_biomed.parsers.pubmed import (
    parse_pmc_root,
    parse_pubmed_root,
    pmc_article,
    pmc_id,
    pubmed_article,
    pubmed_id,
)
from eagle_rag_biomed.parsers.safety import parse_xml
from eagle_rag_biomed.parsers.spl import SPL_NAMESPACE, is_spl, parse_spl_root
from eagle_rag_biomed.parsers.xml_records import KindOf, XmlRecordKind, xml_records
from eagle_rag_biomed.parsers.xml_text import local

PUBMED_ROOTS = frozenset({"PubmedArticleSet", "PubmedArticle"})
PMC_ROOTS = frozenset({"article", "pmc-articleset"})
SPL_TAG = f"{{{SPL_NAMESPACE}}}document"


def _spl_document(root: Element, path: Path, kb_name: str, index: int) -> ParsedDocument:
    return parse_spl_root(root, path, kb_name)[0]


PUBMED = XmlRecordKind("PubmedArticle", lambda name, depth: name == "PubmedArticle", pubmed_article, pubmed_id)
PMC = XmlRecordKind("JATS <article>", lambda name, depth: name == "article" and depth <= 1, pmc_article, pmc_id)
SPL = XmlRecordKind("SPL <document>", lambda name, depth: depth == 0, _spl_document, lambda root: None)
_EXPECTED = {SPL: "an SPL <document>", PUBMED: "<PubmedArticleSet>", PMC: "a JATS <article>"}


def _kinds(path: Path, *allowed: XmlRecordKind) -> KindOf:
    """The kind of ``path`` from its root tag, among ``allowed``; IngestError for any other root."""
    def kind_of(tag: str) -> XmlRecordKind:
        name = local(tag)
        found = SPL if tag == SPL_TAG else PUBMED if name in PUBMED_ROOTS else PMC if name in PMC_ROOTS else None
        if found is None or found not in allowed:
            expected = ", ".join(_EXPECTED[k] for k in allowed)
            raise IngestError(f"{path.name}: unsupported XML (root element <{name}>; expected {expected})")
        return found
    return kind_of


def parse_biomed_xml(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """Parse an SPL drug label, a PubMed set or a PMC/JATS article, told apart by the root element.

    Raises IngestError for hostile or malformed XML and for any other root element.
    """
    root = parse_xml(data, path)
    name = local(root.tag)
    if is_spl(root):
        return parse_spl_root(root, path, kb_name)
    if name in PUBMED_ROOTS:
        return parse_pubmed_root(root, path, kb_name)
    if name in PMC_ROOTS:
        return parse_pmc_root(root, path, kb_name)
    raise IngestError(f"{path.name}: unsupported XML (root element <{name}>; expected an SPL <document>, "
                      "<PubmedArticleSet> or a JATS <article>)")


def biomed_xml_records(path: Path, fh: IO[bytes], kb_name: str,
                       max_record_bytes: int) -> Iterator[Record | RecordFailure]:
    """The ``biomed_xml`` route record by record: a PubMed or PMC set article by article, an SPL
    label or a bare article as one record. Raises IngestError for a root of any other kind."""
    return xml_records(path, fh, kb_name, max_record_bytes, _kinds(path, SPL, PUBMED, PMC))


def pubmed_set_records(path: Path, fh: IO[bytes], kb_name: str,
                       max_record_bytes: int) -> Iterator[Record | RecordFailure]:
    """The ``biomed_pubmed`` route: a PubMed set, article by article."""
    return xml_records(path, fh, kb_name, max_record_bytes, _kinds(path, PUBMED))


def pmc_set_records(path: Path, fh: IO[bytes], kb_name: str,
                    max_record_bytes: int) -> Iterator[Record | RecordFailure]:
    """The ``biomed_pmc`` route: a PMC set (or one JATS article), article by article."""
    return xml_records(path, fh, kb_name, max_record_bytes, _kinds(path, PMC))

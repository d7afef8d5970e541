"""One route for biomedical ``.xml``: parse once (safely), then dispatch on the root element."""

from __future__ import annotations

from pathlib import Path

from eagle_rag.plugin_api import IngestError, ParsedDocument, ParseResult
from eagle_rag_biomed.parsers.pubmed import parse_pmc_root, parse_pubmed_root, pmc_records, pubmed_records
from eagle_rag_biomed.parsers.safety import parse_xml
from eagle_rag_biomed.parsers.spl import is_spl, parse_spl_root
from eagle_rag_biomed.parsers.xml_text import local

PUBMED_ROOTS = frozenset({"PubmedArticleSet", "PubmedArticle"})
PMC_ROOTS = frozenset({"article", "pmc-articleset"})


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


def biomed_xml_records(path: Path, data: bytes, kb_name: str) -> ParseResult:
    """:func:`parse_biomed_xml` for ingest: in a PubMed or PMC set each bad article is a RecordFailure
    and the others are kept (an SPL label is one document). Raises IngestError as it does."""
    root = parse_xml(data, path)
    name = local(root.tag)
    if is_spl(root):
        return ParseResult(parse_spl_root(root, path, kb_name))
    if name in PUBMED_ROOTS:
        return pubmed_records(root, path, data, kb_name)
    if name in PMC_ROOTS:
        return pmc_records(root, path, data, kb_name)
    return ParseResult(parse_biomed_xml(path, data, kb_name))  # raises: an unsupported root


def pubmed_set_records(path: Path, data: bytes, kb_name: str) -> ParseResult:
    """The ``biomed_pubmed`` route for ingest (:func:`pubmed_records`)."""
    return pubmed_records(parse_xml(data, path), path, data, kb_name)


def pmc_set_records(path: Path, data: bytes, kb_name: str) -> ParseResult:
    """The ``biomed_pmc`` route for ingest (:func:`pmc_records`)."""
    return pmc_records(parse_xml(data, path), path, data, kb_name)

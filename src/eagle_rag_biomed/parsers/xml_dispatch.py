"""One route for biomedical ``.xml``: parse once (safely), then dispatch on the root element."""

from __future__ import annotations

from pathlib import Path

from eagle_rag.plugin_api import IngestError, ParsedDocument
from eagle_rag_biomed.parsers.pubmed import parse_pmc_root, parse_pubmed_root
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

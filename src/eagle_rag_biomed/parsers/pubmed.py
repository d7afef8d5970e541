"""PubMed (``PubmedArticleSet``) and PMC / JATS (``article``) XML: title, abstract and body sections.

Paths start with the article title, then the abstract label or the body section titles:
``("Statins in ...", "Background")``, ``("Statins in ...", "Methods", "Study design")``.
The first section's text starts with the title line, so the title is searchable.
The ``parse_*`` functions stop at the first bad article; ingest reads a set article by article
(:mod:`eagle_rag_biomed.parsers.xml_records`), where a bad article is one reported record and the
others are kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

from eagle_rag.plugin_api import IngestError, ParsedDocument, Section
from eagle_rag.plugin_api.ingest import record_document_id
from eagle_rag_biomed.parsers.common import document_id, one_line, unique, with_title
from eagle_rag_biomed.parsers.safety import parse_xml
from eagle_rag_biomed.parsers.xml_text import children, element_text, first, local

ABSTRACT = "Abstract"
_PMC_SKIP = frozenset({"sec", "title", "table-wrap", "ref-list", "fn-group", "ack", "app-group"})


def _label(value: str) -> str:
    """``BACKGROUND`` -> ``Background``; mixed-case labels are kept as written."""
    value = one_line(value).rstrip(":")
    return value.capitalize() if value.isupper() else value


# ----------------------------------------------------------------------------- PubMed


def pubmed_article(article: Element, path: Path, kb_name: str, index: int) -> ParsedDocument:
    """The document of one ``PubmedArticle`` (``index``: its 0-based position in the file). Raises
    IngestError for an article without a citation, an article, a numeric PMID, or a title and abstract."""
    citation = first(article, "MedlineCitation")
    if citation is None:
        raise IngestError(f"{path.name}: PubmedArticle {index} has no MedlineCitation")
    pmid_el = first(citation, "PMID")
    pmid = one_line(element_text(pmid_el)) if pmid_el is not None else ""
    if pmid and not pmid.isdigit():
        raise IngestError(f"{path.name}: PubmedArticle {index}: the PMID {pmid!r} is not a number")
    art = first(citation, "Article")
    if art is None:
        raise IngestError(f"{path.name}: PubmedArticle {pmid or index} has no Article")
    title_el = first(art, "ArticleTitle")
    title = one_line(element_text(title_el)) if title_el is not None else ""
    root = title or f"PMID {pmid}"
    sections: list[Section] = []
    for abstract in children(art, "Abstract"):
        for part in children(abstract, "AbstractText"):
            text = element_text(part)
            label = _label(part.get("Label") or "") or ABSTRACT
            if text:
                sections.append(Section((root, label), text))
    if not (sections or title):
        raise IngestError(f"{path.name}: PubmedArticle {pmid or index} has neither title nor abstract")
    journal = first(art, "Journal", "Title")
    year = art.find("Journal/JournalIssue/PubDate/Year")
    authors = [" ".join(one_line(element_text(p)) for p in (first(a, "LastName"), first(a, "Initials"))
                        if p is not None) for a in art.iterfind("AuthorList/Author")]
    metadata: dict[str, Any] = {
        "doc_type": "research",
        "pmid": pmid,
        "doi": next((one_line(e.text or "") for e in article.iterfind(".//ArticleId")
                     if e.get("IdType") == "doi"), ""),
        "title": title,
        "journal": one_line(journal.text or "") if journal is not None else "",
        "year": one_line(year.text or "") if year is not None else "",
        "authors": unique(authors)[:20],
        "mesh_terms": unique([one_line(element_text(d)) for d in citation.iterfind(
            "MeshHeadingList/MeshHeading/DescriptorName")]),
        "keywords": unique([one_line(element_text(k)) for k in citation.iterfind("KeywordList/Keyword")]),
        "chemicals": unique([one_line(element_text(c)) for c in citation.iterfind(
            "ChemicalList/Chemical/NameOfSubstance")]),
    }
    doc_id = record_document_id(f"pmid:{pmid}", kb_name) if pmid else document_id(path, kb_name, str(index))
    return ParsedDocument(doc_id, title or root, f"{path}#{index}", with_title(title, sections),
                          source_type="pubmed", kb_name=kb_name, metadata=metadata)


def parse_pubmed_root(root: Element, path: Path, kb_name: str) -> list[ParsedDocument]:
    """One document per ``PubmedArticle``. Raises IngestError when there is none or one is empty."""
    articles = [root] if local(root.tag) == "PubmedArticle" else list(root.iter("PubmedArticle"))
    if not articles:
        raise IngestError(f"{path.name}: no PubmedArticle in the file")
    return [pubmed_article(a, path, kb_name, i) for i, a in enumerate(articles)]


# ----------------------------------------------------------------------------- PMC / JATS


def _sec(sec: Element, parent: tuple[str, ...], out: list[Section]) -> None:
    title = first(sec, "title")
    path = (*parent, one_line(element_text(title)) if title is not None else "Section")
    text = element_text(sec, skip=_PMC_SKIP)
    captions = [element_text(c) for tw in children(sec, "table-wrap") for c in children(tw, "caption")]
    body = "\n".join(t for t in (text, *captions) if t)
    if body:
        out.append(Section(path, body))
    for child in children(sec, "sec"):
        _sec(child, path, out)


def pmc_article(article: Element, path: Path, kb_name: str, index: int) -> ParsedDocument:
    """The document of one JATS ``article`` (``index``: its 0-based position in the file). Raises
    IngestError for an article without front matter, or without a title, abstract and body."""
    meta = first(article, "front", "article-meta")
    if meta is None:
        raise IngestError(f"{path.name}: PMC article {index} has no front/article-meta")
    title_el = first(meta, "title-group", "article-title")
    title = one_line(element_text(title_el)) if title_el is not None else ""
    ids = {(e.get("pub-id-type") or ""): one_line(e.text or "") for e in children(meta, "article-id")}
    root = title or f"PMC {ids.get('pmc', index)}"
    sections: list[Section] = []
    for abstract in children(meta, "abstract"):
        secs = children(abstract, "sec")
        for sec in secs:
            _sec(sec, (root,), sections)
        text = element_text(abstract, skip=_PMC_SKIP)
        if text and not secs:
            sections.append(Section((root, ABSTRACT), text))
    body = first(article, "body")
    if body is not None:
        loose = element_text(body, skip=_PMC_SKIP)
        if loose:
            sections.append(Section((root, "Body"), loose))
        for sec in children(body, "sec"):
            _sec(sec, (root,), sections)
    if not (sections or title):
        raise IngestError(f"{path.name}: PMC article {index} has neither title, abstract nor body")
    journal = article.find("front/journal-meta/journal-title-group/journal-title")
    year = meta.find("pub-date/year")
    metadata: dict[str, Any] = {
        "doc_type": "research", "title": title,
        "pmcid": ids.get("pmc", "") or ids.get("pmcid", ""), "pmid": ids.get("pmid", ""),
        "doi": ids.get("doi", ""),
        "journal": one_line(journal.text or "") if journal is not None else "",
        "year": one_line(year.text or "") if year is not None else "",
        "keywords": unique([one_line(element_text(k)) for k in meta.iterfind("kwd-group/kwd")]),
    }
    key = metadata["pmcid"] or metadata["pmid"]
    doc_id = (record_document_id(f"pmc:{key}", kb_name) if key
              else document_id(path, kb_name, None if index == 0 else str(index)))
    return ParsedDocument(doc_id, title or root, f"{path}#{index}" if index else str(path),
                          with_title(title, sections), source_type="pmc", kb_name=kb_name,
                          metadata=metadata)


def parse_pmc_root(root: Element, path: Path, kb_name: str) -> list[ParsedDocument]:
    """One document per JATS ``article`` (a bare article or a ``pmc-articleset``). Raises IngestError."""
    articles = [root] if local(root.tag) == "article" else [e for e in root if local(e.tag) == "article"]
    if not articles:
        raise IngestError(f"{path.name}: no JATS <article> in the file")
    return [pmc_article(a, path, kb_name, i) for i, a in enumerate(articles)]


# ----------------------------------------------------------------------------- ids of bad records


def pubmed_id(article: Element) -> str | None:
    """The PMID of a ``PubmedArticle`` as written, or None."""
    pmid = article.find("MedlineCitation/PMID")
    return one_line(element_text(pmid)) or None if pmid is not None else None


def pmc_id(article: Element) -> str | None:
    """The PMC id (else the PMID) of a JATS ``article``, or None."""
    meta = first(article, "front", "article-meta")
    if meta is None:
        return None
    ids = {(e.get("pub-id-type") or ""): one_line(e.text or "") for e in children(meta, "article-id")}
    return ids.get("pmc") or ids.get("pmcid") or ids.get("pmid") or None


def parse_pubmed(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """Parse a PubMed XML file (``PubmedArticleSet``). Raises IngestError for bad or hostile XML."""
    return parse_pubmed_root(parse_xml(data, path), path, kb_name)


def parse_pmc(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """Parse a PMC / JATS XML file (``article``). Raises IngestError for bad or hostile XML."""
    return parse_pmc_root(parse_xml(data, path), path, kb_name)

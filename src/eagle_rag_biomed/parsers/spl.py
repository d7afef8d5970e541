"""FDA Structured Product Labeling (SPL) drug labels: LOINC-coded sections and drug names.

A section's path segment is its canonical name (``indications_and_usage``, from
:data:`~eagle_rag_biomed.parsers.spl_sections.LOINC_SECTIONS`); an unclassified subsection keeps its
own title, so a path reads ``("indications_and_usage", "1.1 Prevention of Cardiovascular Disease")``.
Each section's text starts with its title line as printed on the label. ``metadata["drug_names"]``
holds the lower-cased proprietary names, generic names and active moieties, in that order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

from eagle_rag.plugin_api import IngestError, ParsedDocument, Section
from eagle_rag_biomed.parsers.common import document_id, one_line, unique
from eagle_rag_biomed.parsers.safety import parse_xml
from eagle_rag_biomed.parsers.spl_sections import LOINC_SECTIONS, PRODUCT_DATA, UNCLASSIFIED
from eagle_rag_biomed.parsers.xml_text import children, element_text, first, local

SPL_NAMESPACE = "urn:hl7-org:v3"
_ACTIVE_CLASSES = ("ACTIB", "ACTIM", "ACTIR")
_MAX_TITLE = 200


def is_spl(root: Element) -> bool:
    """True when ``root`` is an HL7 v3 SPL ``<document>``."""
    return root.tag == f"{{{SPL_NAMESPACE}}}document"


def _code(element: Element) -> str:
    code = first(element, "code")
    return (code.get("code") or "").strip() if code is not None else ""


def _title(element: Element) -> str:
    title = first(element, "title")
    return one_line(element_text(title)) if title is not None else ""


def _segment(code: str, title: str) -> str:
    """The path segment of a section: its canonical LOINC name, else its title."""
    if code in LOINC_SECTIONS and code != UNCLASSIFIED:
        return LOINC_SECTIONS[code]
    return title or LOINC_SECTIONS[UNCLASSIFIED]


def _walk(section: Element, parent: tuple[str, ...], out: list[Section], titles: dict[str, str]) -> None:
    code, title = _code(section), _title(section)
    path = (*parent, _segment(code, title))
    if code in LOINC_SECTIONS and code != UNCLASSIFIED:
        titles.setdefault(LOINC_SECTIONS[code], title or LOINC_SECTIONS[code])
    text_el = first(section, "text")
    body = element_text(text_el) if text_el is not None else ""
    if body:
        out.append(Section(path, f"{title}\n{body}" if title else body))
    for component in children(section, "component"):
        for child in children(component, "section"):
            _walk(child, path, out, titles)


def _products(body: Element) -> dict[str, list[str]]:
    """Proprietary, generic and active-ingredient names of the product data sections."""
    proprietary: list[str] = []
    generic: list[str] = []
    active: list[str] = []
    moieties: list[str] = []
    for section in body.iter(f"{{{SPL_NAMESPACE}}}section"):
        if _code(section) != PRODUCT_DATA:
            continue
        for outer in section.iter(f"{{{SPL_NAMESPACE}}}manufacturedProduct"):
            for product in children(outer, "manufacturedProduct"):
                name = first(product, "name")
                if name is not None and name.text:
                    proprietary.append(one_line(name.text))
                medicine = first(product, "asEntityWithGeneric", "genericMedicine", "name")
                if medicine is not None:
                    generic.extend(one_line(n) for n in element_text(medicine).split(","))
        for ingredient in section.iter(f"{{{SPL_NAMESPACE}}}ingredient"):
            if ingredient.get("classCode") in _ACTIVE_CLASSES:
                name = first(ingredient, "ingredientSubstance", "name")
                if name is not None:
                    active.append(one_line(element_text(name)))
                moiety = first(ingredient, "ingredientSubstance", "activeMoiety", "activeMoiety", "name")
                if moiety is not None:
                    moieties.append(one_line(element_text(moiety)))
    return {"proprietary_names": unique(proprietary), "generic_names": unique(generic),
            "active_ingredients": unique(active), "active_moieties": unique(moieties)}


def _attr(root: Element, name: str, attr: str) -> str:
    element = first(root, name)
    return (element.get(attr) or "") if element is not None else ""


def parse_spl_root(root: Element, path: Path, kb_name: str) -> list[ParsedDocument]:
    """One document for an already parsed SPL root. Raises IngestError when it has no section text."""
    body = first(root, "component", "structuredBody")
    if body is None:
        raise IngestError(f"{path.name}: SPL document without a structuredBody")
    sections: list[Section] = []
    titles: dict[str, str] = {}
    for component in children(body, "component"):
        for section in children(component, "section"):
            if _code(section) != PRODUCT_DATA:
                _walk(section, (), sections, titles)
    if not sections:
        raise IngestError(f"{path.name}: the SPL label has no section text")
    products = _products(body)
    drug_names = unique([n.lower() for key in ("proprietary_names", "generic_names", "active_moieties")
                         for n in products[key]])
    doc_code = first(root, "code")
    title = _title(root)
    if not title or len(title) > _MAX_TITLE:
        names = products["proprietary_names"] or products["generic_names"]
        title = f"{names[0]} drug label" if names else (title[:_MAX_TITLE] or path.stem)
    author = root.find(f"{{{SPL_NAMESPACE}}}author//{{{SPL_NAMESPACE}}}representedOrganization/"
                       f"{{{SPL_NAMESPACE}}}name")
    metadata: dict[str, Any] = {
        "doc_type": "drug_label",
        "drug_names": drug_names,
        **products,
        "label_type": (doc_code.get("displayName") or "") if doc_code is not None else "",
        "set_id": _attr(root, "setId", "root"),
        "version": _attr(root, "versionNumber", "value"),
        "effective_time": _attr(root, "effectiveTime", "value"),
        "manufacturer": one_line(author.text or "") if author is not None else "",
        "label_sections": unique([s.path[0] for s in sections]),
        "section_titles": titles,
    }
    return [ParsedDocument(document_id(path, kb_name), title, str(path), tuple(sections),
                           source_type="drug_label", kb_name=kb_name, metadata=metadata)]


def parse_spl(path: Path, data: bytes, kb_name: str) -> list[ParsedDocument]:
    """Parse an SPL drug-label XML file into one document with LOINC-named sections.

    Returns a one-element list. Raises IngestError for malformed or hostile XML (entity bombs are
    refused by defusedxml), a root that is not an SPL ``<document>``, or a label without text.
    """
    root = parse_xml(data, path)
    if not is_spl(root):
        raise IngestError(f"{path.name}: not an SPL drug label (root element <{local(root.tag)}>)")
    return parse_spl_root(root, path, kb_name)

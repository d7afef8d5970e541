"""Readable text out of XML elements (SPL ``<text>``, JATS ``<p>``), namespace-agnostic."""

from __future__ import annotations

from xml.etree.ElementTree import Element

from eagle_rag_biomed.parsers.common import clean_text

BLOCK_TAGS = frozenset({"paragraph", "p", "item", "list-item", "tr", "caption", "title", "br", "li",
                        "list", "table", "thead", "tbody", "td-block", "def-item", "disp-quote"})
CELL_TAGS = frozenset({"td", "th"})


def local(tag: object) -> str:
    """The local name of an element tag (``{urn:hl7-org:v3}section`` -> ``section``)."""
    text = str(tag)
    return text.rsplit("}", 1)[-1]


def element_text(element: Element, skip: frozenset[str] = frozenset()) -> str:
    """The text of ``element``: blocks on their own lines, table cells joined by `` | ``.

    Children whose local name is in ``skip`` are left out (their tail text is kept).
    Returns the cleaned text (possibly empty).
    """
    parts: list[str] = []

    def walk(node: Element) -> None:
        name = local(node.tag)
        if name in BLOCK_TAGS:
            parts.append("\n")
        if node.text:
            parts.append(node.text)
        for child in node:
            if local(child.tag) not in skip:
                walk(child)
            if child.tail:
                parts.append(child.tail)
        if name in BLOCK_TAGS:
            parts.append("\n")
        elif name in CELL_TAGS:
            parts.append(" | ")

    walk(element)
    lines = (line.strip().strip("|").strip() for line in "".join(parts).splitlines())
    return clean_text("\n".join(lines))


def children(element: Element, name: str) -> list[Element]:
    """Direct children of ``element`` with local name ``name``."""
    return [c for c in element if local(c.tag) == name]


def first(element: Element, *names: str) -> Element | None:
    """The first descendant along a path of local names (``first(e, "front", "article-meta")``)."""
    current: Element | None = element
    for name in names:
        if current is None:
            return None
        current = next((c for c in current if local(c.tag) == name), None)
    return current

"""Guards for hostile input: allowed roots, XML entity bombs, image and gzip decompression bombs.

The core refuses files over the size limit before any parser runs; these guards cover what a small
file can still do once parsed: expand entities, declare a billion pixels, or inflate without end.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, ParseError

from eagle_rag.plugin_api import IngestError

MAX_IMAGE_PIXELS = 89_478_485
"""Largest image (width x height) a parser opens: Pillow's own default bomb limit, enforced as an error."""

MAX_DECOMPRESSED_BYTES = 1 << 30
"""Largest output of a gzip stream (1 GiB); more is treated as a decompression bomb."""


def check_allowed_root(path: Path, roots: Iterable[Path]) -> Path:
    """The resolved ``path`` when it lies inside one of ``roots`` (symlinks and ``..`` resolved).

    Raises IngestError when the resolved path escapes every root (``../`` traversal, a symlink out
    of the tree), and ValueError when ``roots`` is empty (a configuration error: nothing is allowed).
    """
    resolved_roots = [Path(r).expanduser().resolve() for r in roots]
    if not resolved_roots:
        raise ValueError("no allowed ingest roots are configured")
    resolved = Path(path).expanduser().resolve()
    if any(resolved == root or resolved.is_relative_to(root) for root in resolved_roots):
        return resolved
    allowed = ", ".join(str(r) for r in resolved_roots)
    raise IngestError(f"{Path(path).name}: path is outside the allowed roots",
                      {"path": str(path), "resolved": str(resolved), "allowed_roots": allowed})


def parse_xml(data: bytes, path: Path) -> Element:
    """The root element of ``data``, parsed with defusedxml.

    A DOCTYPE is accepted (PubMed files carry one) but entity declarations and external references
    are refused. Raises IngestError for a refused construct (an entity-expansion "billion laughs"
    bomb, an external entity), for malformed XML, with the line number, or for an XML declaration
    whose encoding Python does not know or expat cannot use (a multi-byte one such as UTF-32).
    """
    import defusedxml.ElementTree as SafeET  # imported on first use (a base dependency)

    try:
        root: Element = SafeET.fromstring(data, forbid_dtd=False, forbid_entities=True,
                                          forbid_external=True)
    except Exception as exc:
        error = xml_error(exc, path)
        if error is None:
            raise
        raise error from exc
    return root


def safe_xml_parser(target: object) -> Any:
    """A defusedxml parser with the rules of :func:`parse_xml` that feeds ``target`` (an
    ElementTree parser target); its ``parser`` attribute is the expat parser (line and byte positions)."""
    import defusedxml.ElementTree as SafeET  # imported on first use (a base dependency)

    return SafeET.DefusedXMLParser(target=target, forbid_dtd=False, forbid_entities=True, forbid_external=True)


def xml_error(exc: BaseException, path: Path) -> IngestError | None:
    """The IngestError :func:`parse_xml` raises for ``exc`` (refused entities or external references,
    malformed XML with its line, an unusable declared encoding; an IngestError as it is), or None
    for any other exception."""
    import defusedxml

    if isinstance(exc, IngestError):
        return exc
    if isinstance(exc, defusedxml.EntitiesForbidden):
        return IngestError(f"{path.name}: refused: the XML declares entities "
                           f"(possible entity-expansion bomb: {exc.name!r})")
    if isinstance(exc, (defusedxml.ExternalReferenceForbidden, defusedxml.DTDForbidden,
                        defusedxml.NotSupportedError)):
        return IngestError(f"{path.name}: refused: the XML uses an external reference or DTD ({exc})")
    if isinstance(exc, ParseError):
        return IngestError(f"{path.name}: {malformed(exc)}")
    if isinstance(exc, (LookupError, ValueError)):  # expat asks Python for the declared encoding's codec
        return IngestError(f"{path.name}: unknown or unsupported encoding in the XML declaration ({exc})")
    return None


def malformed(exc: ParseError) -> str:
    """``malformed XML (line 12: ...)`` for an expat error."""
    line = getattr(exc, "position", (0, 0))[0]
    return f"malformed XML (line {line}: {exc})"


def check_pixels(width: int, height: int, path: Path, limit: int = MAX_IMAGE_PIXELS) -> None:
    """Raise IngestError when ``width x height`` exceeds ``limit`` (a decompression-bomb guard)."""
    if width <= 0 or height <= 0:
        raise IngestError(f"{path.name}: invalid image size {width}x{height}")
    if width * height > limit:
        raise IngestError(f"{path.name}: refused: {width}x{height} pixels is over the limit of {limit} "
                          "(possible decompression bomb)", {"width": width, "height": height})


def gunzip_bounded(data: bytes, path: Path, limit: int = MAX_DECOMPRESSED_BYTES,
                   head_only: int | None = None) -> bytes:
    """The gunzipped ``data``, refusing more than ``limit`` bytes of output.

    With ``head_only`` only that many leading bytes are inflated (enough for a file header).
    Raises IngestError for a corrupt or truncated stream (when read to the end) or a bomb.
    """
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    out = bytearray()
    chunk = 1 << 20
    try:
        for start in range(0, len(data), chunk):
            budget = (head_only or limit) + 1 - len(out)
            out += inflater.decompress(data[start:start + chunk], budget)
            if head_only is not None and len(out) >= head_only:
                return bytes(out[:head_only])
            if len(out) > limit or inflater.unconsumed_tail:
                raise IngestError(f"{path.name}: refused: decompresses to more than {limit} bytes "
                                  "(possible decompression bomb)")
        out += inflater.flush()
    except zlib.error as exc:
        raise IngestError(f"{path.name}: corrupt gzip stream ({exc})") from exc
    if head_only is None and not inflater.eof:
        raise IngestError(f"{path.name}: truncated gzip stream")
    return bytes(out)

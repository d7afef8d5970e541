"""What the Milvus server at the other end supports, read from its version at connection.

``get_server_version()`` answers ``v2.3.5-lite`` (the Milvus 2.3.5 standalone of the PyPI wheel
``milvus``), ``v2.5.4`` (a standalone or cluster), or ``milvus_lite-3.2.2`` / ``milvus_lite``
(Milvus Lite, as a local file or as its own gRPC server, which speaks the 2.5+ API). The features
the stores use and the first Milvus version that has each are :data:`FEATURES`; docs/deploy.md has
the same table with the servers each feature was tested on.

A setting that needs a feature the server lacks (``lexical.backend: milvus`` on Milvus 2.3) fails
with :class:`~eagle_rag.errors.ServerUnsupported`: one line naming the feature and the minimum
version (exit 2 from the CLI, 503 over HTTP), never the driver's traceback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from eagle_rag.errors import ServerUnsupported


class Feature(Enum):
    """A server feature the stores use; the value is what the one-line error calls it."""

    INVERTED_INDEX = "the INVERTED scalar index"
    SPARSE_VECTORS = "SPARSE_FLOAT_VECTOR fields"
    HYBRID_SEARCH = "hybrid_search (several ANN requests fused by a ranker)"
    BM25_FUNCTION = "the BM25 function (lexical.backend: milvus)"
    BINARY_VECTORS = "BINARY_VECTOR fields"


FEATURES: dict[Feature, tuple[int, int, int]] = {
    Feature.INVERTED_INDEX: (2, 4, 0),
    Feature.SPARSE_VECTORS: (2, 4, 0),
    Feature.HYBRID_SEARCH: (2, 4, 0),
    Feature.BM25_FUNCTION: (2, 5, 0),
    Feature.BINARY_VECTORS: (2, 0, 0),
}
"""The first Milvus version with each feature (Milvus release notes)."""
LITE_LACKS = frozenset({Feature.BINARY_VECTORS})
"""What Milvus Lite 3.2 lacks of the 2.5 API it otherwise speaks (DESIGN.md section 3)."""
_VERSION = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")


@dataclass(frozen=True)
class Capabilities:
    """The server's version and what follows from it."""

    server: str
    """The version string the server reported."""
    version: tuple[int, int, int] | None
    """``(major, minor, patch)``; None for Milvus Lite, or a string that names no version."""
    lite: bool = False

    def has(self, feature: Feature) -> bool:
        if self.lite:
            return feature not in LITE_LACKS
        return self.version is None or self.version >= FEATURES[feature]

    @property
    def scalar_index(self) -> str:
        """The scalar index type for filter fields: ``INVERTED`` (2.4+), else ``Trie`` (VARCHAR on 2.3)."""
        return "INVERTED" if self.has(Feature.INVERTED_INDEX) else "Trie"

    def require(self, feature: Feature, uri: str, setting: str = "") -> None:
        """Raise ServerUnsupported unless the server has ``feature``.

        Raises:
            ServerUnsupported: one line naming the feature, the minimum version and the server's.
        """
        if self.has(feature):
            return
        needed = "Milvus Lite does not have it" if self.lite else \
            "needs Milvus " + ".".join(map(str, FEATURES[feature])) + " or newer"
        hint = f"; change {setting} or upgrade the server" if setting else "; upgrade the server"
        raise ServerUnsupported(f"{feature.value} {needed}, and the server at {uri} runs {self.server}{hint}",
                                {"feature": feature.name.lower(), "server": self.server, "uri": uri,
                                 "minimum": ".".join(map(str, FEATURES[feature]))})


def parse_version(server: str) -> Capabilities:
    """The capabilities of a server that reported ``server`` (an unknown form: the newest's)."""
    text = str(server).strip()
    if text.lower().startswith("milvus_lite"):
        return Capabilities(text, None, lite=True)
    found = _VERSION.match(text)
    if found is None:
        return Capabilities(text, None)
    major, minor, patch = (int(part) for part in found.groups())
    return Capabilities(text, (major, minor, patch))


def read_capabilities(client: object) -> Capabilities:
    """Ask a connected ``MilvusClient`` for its server's version."""
    return parse_version(str(client.get_server_version()))  # type: ignore[attr-defined]

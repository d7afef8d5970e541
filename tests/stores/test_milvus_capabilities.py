"""Server capabilities from the reported version: the scalar index type and the features each version has."""

from __future__ import annotations

import pytest

from eagle_rag.errors import ServerUnsupported
from eagle_rag.stores.milvus_capabilities import FEATURES, Feature, parse_version


@pytest.mark.parametrize(("reported", "version", "lite", "scalar", "bm25", "hybrid", "binary"), [
    ("v2.3.5-lite", (2, 3, 5), False, "Trie", False, False, True),  # PyPI milvus==2.3.5
    ("v2.4.0", (2, 4, 0), False, "INVERTED", False, True, True),
    ("v2.5.4", (2, 5, 4), False, "INVERTED", True, True, True),
    ("2.6.1-gpu", (2, 6, 1), False, "INVERTED", True, True, True),
    ("milvus_lite-3.2.2", None, True, "INVERTED", True, True, False),  # milvus-lite's gRPC server
    ("milvus_lite", None, True, "INVERTED", True, True, False),
    ("some-fork", None, False, "INVERTED", True, True, True),  # unknown: assume the newest
])
def test_version_decides_features(reported: str, version: tuple[int, int, int] | None, lite: bool, scalar: str,
                                  bm25: bool, hybrid: bool, binary: bool) -> None:
    caps = parse_version(reported)
    assert (caps.version, caps.lite, caps.scalar_index) == (version, lite, scalar)
    assert caps.has(Feature.BM25_FUNCTION) is bm25
    assert caps.has(Feature.HYBRID_SEARCH) is hybrid
    assert caps.has(Feature.BINARY_VECTORS) is binary


def test_a_missing_feature_is_one_line_naming_the_minimum_version() -> None:
    with pytest.raises(ServerUnsupported) as caught:
        parse_version("v2.3.5-lite").require(Feature.BM25_FUNCTION, "http://m:19530", "lexical.backend")
    assert str(caught.value) == ("the BM25 function (lexical.backend: milvus) needs Milvus 2.5.0 or newer, and the "
                                 "server at http://m:19530 runs v2.3.5-lite; change lexical.backend or upgrade the "
                                 "server")
    assert caught.value.details["minimum"] == "2.5.0" and caught.value.http_status == 503
    assert caught.value.cli_exit_code == 2
    assert FEATURES[Feature.BM25_FUNCTION] == (2, 5, 0)

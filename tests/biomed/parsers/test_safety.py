"""Allowed roots (``..`` traversal, symlinks) and bounded gunzip."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from eagle_rag.errors import IngestError
from eagle_rag_biomed.parsers.safety import check_allowed_root, check_pixels, gunzip_bounded


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "corpus"
    (root / "labels").mkdir(parents=True)
    (root / "labels" / "a.xml").write_text("<x/>")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    return root, outside


@pytest.mark.unit
def test_paths_inside_the_root_are_allowed(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    assert check_allowed_root(root / "labels" / "a.xml", [root]) == (root / "labels" / "a.xml").resolve()
    assert check_allowed_root(root / "labels" / ".." / "labels" / "a.xml", [root]).name == "a.xml"
    assert check_allowed_root(root, [root]) == root.resolve()


@pytest.mark.unit
def test_dotdot_traversal_is_refused(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    with pytest.raises(IngestError, match="outside the allowed roots") as info:
        check_allowed_root(root / "labels" / ".." / ".." / "secret.txt", [root])
    assert info.value.details["resolved"] == str(outside.resolve())
    sibling = root.parent / "corpus-evil"  # a prefix match of the root is not inside it
    sibling.mkdir()
    with pytest.raises(IngestError):
        check_allowed_root(sibling / "x", [root])


@pytest.mark.unit
def test_symlink_out_of_the_root_is_refused(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    link = root / "labels" / "innocent.xml"
    os.symlink(outside, link)
    with pytest.raises(IngestError, match="outside the allowed roots"):
        check_allowed_root(link, [root])
    assert check_allowed_root(link, [root, outside.parent]) == outside.resolve()


@pytest.mark.unit
def test_no_roots_is_a_configuration_error(tree: tuple[Path, Path]) -> None:
    with pytest.raises(ValueError, match="no allowed ingest roots"):
        check_allowed_root(tree[0], [])


@pytest.mark.unit
def test_gunzip_bounded() -> None:
    payload = b"x" * 10_000
    assert gunzip_bounded(gzip.compress(payload), Path("a.gz")) == payload
    assert gunzip_bounded(gzip.compress(payload), Path("a.gz"), head_only=10) == b"x" * 10
    with pytest.raises(IngestError, match="decompression bomb"):
        gunzip_bounded(gzip.compress(b"\x00" * 5_000_000), Path("bomb.gz"), limit=1_000_000)
    with pytest.raises(IngestError, match="truncated gzip"):
        gunzip_bounded(gzip.compress(payload)[:-12], Path("cut.gz"))
    with pytest.raises(IngestError, match="corrupt gzip"):
        gunzip_bounded(b"\x1f\x8b\x08\x00garbage-garbage", Path("bad.gz"))


@pytest.mark.unit
def test_check_pixels() -> None:
    check_pixels(100, 100, Path("a.png"), limit=10_000)
    with pytest.raises(IngestError, match="decompression bomb"):
        check_pixels(101, 100, Path("a.png"), limit=10_000)
    with pytest.raises(IngestError, match="invalid image size"):
        check_pixels(0, 10, Path("a.png"))

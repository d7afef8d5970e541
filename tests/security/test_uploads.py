"""Item 5: uploads are bounded, against a real ``eagle-rag serve``: a rejected upload is removed, names that
read the same once sanitised do not replace each other, and a kb's uploads have a quota."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.security.server import Server, error_of, serve, upload

pytestmark = pytest.mark.integration
QUOTA = 4000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("uploads") / "data"
    with serve(data, {"EAGLE_RAG_API__MAX_UPLOAD_BYTES_PER_KB": str(QUOTA)}) as running:
        yield running


def _stored(server: Server, kb: str) -> list[str]:
    folder = server.data_dir / "uploads" / kb
    return sorted(p.name for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_a_rejected_upload_is_removed(server: Server) -> None:
    with server.client() as client:
        error_of(upload(client, "rejected", "empty.md", "  \n\n  "), 422, "ingest_failed")
        error_of(upload(client, "rejected", "bad.md", b"\xff\xfe not utf-8 \xff"), 422, "ingest_failed")
    assert _stored(server, "rejected") == []


def test_symbol_names_do_not_replace_each_other(server: Server) -> None:
    with server.client() as client:
        for name, word in (("★.md", "starfruit"), ("☃.md", "snowberry"), ("😀.md", "smileroot")):
            answer = upload(client, "symbols", name, f"# Note\n\nA note about {word}.\n")
            assert answer.status_code == 200 and answer.json()["replaced"] == 0, answer.text
        found = {w: client.post("/search", json={"query": w, "kb_names": ["symbols"], "mode": "bm25"}).json()["total"]
                 for w in ("starfruit", "snowberry", "smileroot")}
    assert found == {"starfruit": 1, "snowberry": 1, "smileroot": 1}
    assert _stored(server, "symbols") == ["_.md", "_.md", "_.md"]


def test_re_sending_a_file_replaces_it(server: Server) -> None:
    with server.client() as client:
        assert upload(client, "again", "n.md", "# N\n\nfirst version\n").json()["documents"] == 1
        second = upload(client, "again", "n.md", "# N\n\nsecond version\n").json()
    assert second["replaced"] == 1 and _stored(server, "again") == ["n.md"]


def test_a_kb_upload_quota(server: Server) -> None:
    with server.client() as client:
        assert upload(client, "quota", "a.md", "# A\n\n" + "alpha " * 400).status_code == 200  # 2.4 kB
        refused = upload(client, "quota", "b.md", "# B\n\n" + "beta " * 400)  # 2 kB more: over 4 kB
        error = error_of(refused, 413, "upload_quota_exceeded")
        assert error["details"] == {"file": "b.md", "quota": QUOTA}
        replaced = upload(client, "quota", "a.md", "# A\n\n" + "gamma " * 500)  # replaces a.md: 3 kB in all
        assert replaced.status_code == 200, replaced.text
        assert upload(client, "other", "b.md", "# B\n\n" + "beta " * 400).status_code == 200  # per kb
    assert _stored(server, "quota") == ["a.md"]

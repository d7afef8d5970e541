"""The token vector store: rows round-trip as float16, and they follow their chunks through ingest,
replace, delete, rollback-free re-ingest and ``doctor --repair`` (a test plugin answers ``eagle_embed_tokens``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.profiles import GENERAL

from eagle_rag.engine import Engine
from eagle_rag.hookspecs import hookimpl
from eagle_rag.ops import doctor
from eagle_rag.settings import load_settings
from eagle_rag.stores.token_vectors import TokenVectors, TokenVectorStore, token_vectors_url

A_TEXT = "Atorvastatin lowers LDL cholesterol in adults with hyperlipidemia."
B_TEXT = "Aspirin irreversibly inhibits platelet cyclooxygenase."


def check_round_trip(url: str | Path) -> None:
    store = TokenVectorStore(url)
    vectors = np.array([[0.5, -0.25, 1.0], [0.125, 0.0, -1.0]], dtype=np.float32)
    assert store.put([TokenVectors("c1", "d1", "k1", vectors), TokenVectors("c2", "d1", "k2", vectors[:1]),
                      TokenVectors("c3", "d2", "k3", vectors)]) == 3
    got = store.get(["c1", "c2", "missing"])
    assert set(got) == {"c1", "c2"} and got["c1"].key == "k1" and got["c2"].vectors.shape == (1, 3)
    assert got["c1"].vectors.dtype == np.float32 and np.array_equal(got["c1"].vectors, vectors)  # exact in float16
    assert sorted(store.chunk_refs(["d1"])) == [("c1", "d1"), ("c2", "d1")]
    assert store.put([TokenVectors("c1", "d1", "k1b", vectors[:1])]) == 1  # a rewrite replaces the row
    assert store.get(["c1"])["c1"].key == "k1b" and store.get(["c1"])["c1"].vectors.shape == (1, 3)
    assert store.delete_chunks(["c2", "nope"]) == 1 and store.delete_document("d1") == 1
    assert store.chunk_refs() == [("c3", "d2")]
    with pytest.raises(ValueError, match="2-d"):
        store.put([TokenVectors("c4", "d2", "k", np.zeros(3))])
    store.close()
    assert TokenVectorStore(url).chunk_refs() == [("c3", "d2")]  # stored, not held in the process


def test_rows_round_trip_as_float16_and_delete(tmp_path: Path) -> None:
    check_round_trip(tmp_path / "t.sqlite")


@pytest.mark.postgres
def test_rows_round_trip_in_postgresql(postgres_database: str) -> None:
    check_round_trip(postgres_database)


def test_the_vectors_live_with_a_shared_registry(tmp_path: Path) -> None:
    embedded = load_settings(environ=GENERAL, overrides={"data_dir": str(tmp_path)})
    assert token_vectors_url(embedded) == f"sqlite:///{tmp_path / 'token_vectors.sqlite'}"
    sqlite_registry = load_settings(environ=GENERAL, overrides={
        "data_dir": str(tmp_path), "registry": {"url": f"sqlite:///{tmp_path / 'elsewhere.db'}"}})
    assert token_vectors_url(sqlite_registry) == f"sqlite:///{tmp_path / 'token_vectors.sqlite'}"
    shared = load_settings(environ=GENERAL, overrides={
        "data_dir": str(tmp_path), "registry": {"url": "postgresql+psycopg://eagle@db.example:5432/eagle"}})
    assert token_vectors_url(shared) == "postgresql+psycopg://eagle@db.example:5432/eagle"


class TokenPlugin:
    """Answers eagle_embed_tokens for ``eagle_text``: one 2-d row per chunk, its length in characters."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    @hookimpl
    def eagle_embed_tokens(self, ctx, collection, chunks):
        self.calls.append((collection, len(chunks)))
        return [TokenVectors(c.id, c.document_id, f"len{len(c.text)}", np.full((2, 4), len(c.text), dtype=np.float32))
                for c in chunks]


def _engine(data: Path, plugin: TokenPlugin, collections: list[str]) -> Engine:
    settings = load_settings(environ=GENERAL, overrides={
        "data_dir": str(data), "plugins": {"enabled": []}, "encoders": {"mode": "deterministic"},
        "ingest": {"token_vector_collections": collections}})
    return Engine(settings, extra_plugins=[("tokens", plugin)])


def _rows(eng: Engine) -> dict[str, str]:
    return dict(eng.tokens.chunk_refs())


@pytest.mark.integration
def test_hook_eagle_embed_tokens(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text(A_TEXT, encoding="utf-8")
    (corpus / "b.txt").write_text(B_TEXT, encoding="utf-8")
    plugin = TokenPlugin()
    with _engine(tmp_path / "data", plugin, ["eagle_text"]) as eng:
        assert eng.ingest([corpus], kb_name="kb").documents == 2
        assert plugin.calls == [("eagle_text", 2)]
        chunks = dict(eng.vectors.chunk_refs("eagle_text"))
        assert _rows(eng) == chunks  # one row per chunk, under its document
        stored = eng.tokens.get(list(chunks))
        assert {row.key for row in stored.values()} == {f"len{len(A_TEXT)}", f"len{len(B_TEXT)}"}

        # replace: the changed document's rows are those of its new chunks, the old ones are gone
        (corpus / "a.txt").write_text("Rosuvastatin lowers LDL cholesterol.", encoding="utf-8")
        assert eng.ingest([corpus], kb_name="kb").replaced == 1
        chunks = dict(eng.vectors.chunk_refs("eagle_text"))
        assert _rows(eng) == chunks and len(chunks) == 2
        assert {r.key for r in eng.tokens.get(list(chunks)).values()} == {"len36", f"len{len(B_TEXT)}"}

        # delete: no row of the document is left
        doc_b = next(d for c, d in chunks.items() if eng.tokens.get([c])[c].key == f"len{len(B_TEXT)}")
        assert eng.ingestor.delete_document(eng.request_context(), doc_b)
        assert set(_rows(eng).values()) == set(chunks.values()) - {doc_b}


@pytest.mark.integration
def test_doctor_repair_writes_missing_token_vectors_and_removes_orphans(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text(A_TEXT, encoding="utf-8")
    (corpus / "b.txt").write_text(B_TEXT, encoding="utf-8")
    data = tmp_path / "data"
    plugin = TokenPlugin()
    with _engine(data, plugin, []) as eng:  # ingested before the setting was turned on: no rows
        assert eng.ingest([corpus], kb_name="kb").documents == 2
        assert _rows(eng) == {} and plugin.calls == []
        eng.tokens.put([TokenVectors("ghost~c0", "ghost", "k", np.ones((1, 4)))])
    with _engine(data, plugin, ["eagle_text"]) as eng:
        report = doctor.check(eng)
        assert report.counts() == {"tokens": 2, "orphan": 1}
        assert [f.chunks for f in report.findings if f.kind == "orphan"] == [{"token_vectors/tokens": ["ghost~c0"]}]
        doctor.repair(eng, report)
        assert "wrote token vectors of 2 chunks of eagle_text" in report.actions
        assert "deleted 1 chunks from token_vectors/tokens" in report.actions
        assert _rows(eng) == dict(eng.vectors.chunk_refs("eagle_text"))
        assert doctor.check(eng).findings == []

        # a document that doctor marks failed loses its token vectors with its chunks
        chunk_id, doc_id = next(iter(eng.vectors.chunk_refs("eagle_text")))
        eng.lexical_for("eagle_text").delete_chunks([chunk_id])
        eng.lexical_for("eagle_text").commit()
        report = doctor.check(eng)
        assert report.counts() == {"missing": 1}
        doctor.repair(eng, report)
        assert doc_id not in set(_rows(eng).values()) and doctor.check(eng).findings == []


@pytest.mark.integration
@pytest.mark.postgres
def test_replicas_sharing_a_registry_read_each_others_token_vectors(tmp_path: Path, postgres_database: str) -> None:
    """Two engines with their own data folders and one PostgreSQL registry: what A's ingest wrote, B reads,
    and neither folder holds a token_vectors.sqlite."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text(A_TEXT, encoding="utf-8")

    def engine(name: str) -> Engine:
        settings = load_settings(environ=GENERAL, overrides={
            "data_dir": str(tmp_path / name), "plugins": {"enabled": []}, "encoders": {"mode": "deterministic"},
            "registry": {"url": postgres_database}, "ingest": {"token_vector_collections": ["eagle_text"]}})
        return Engine(settings, extra_plugins=[("tokens", TokenPlugin())])

    with engine("a") as a:
        assert a.ingest([corpus], kb_name="kb").documents == 1
        written = _rows(a)
        assert len(written) == 1
    with engine("b") as b:
        assert _rows(b) == written
        assert {row.key for row in b.tokens.get(list(written)).values()} == {f"len{len(A_TEXT)}"}
    assert not any((tmp_path / name / "token_vectors.sqlite").exists() for name in ("a", "b"))

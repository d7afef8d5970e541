"""``eval beir``: a slice of the judged queries (``--query-offset``), the per-query nDCG@10, and an index
reused only under the settings that wrote it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eagle_rag.errors import InvalidRequest
from eagle_rag.evaluation.beir import load_beir
from tests.client.helpers import cli_env
from tests.profiles import GENERAL

QUERIES = ["aspirin", "metformin", "warfarin", "imatinib", "heparin"]


def beir_folder(root: Path) -> Path:
    """Five documents, five judged queries (query i judges document i) and one unjudged query."""
    root.mkdir()
    (root / "qrels").mkdir()
    (root / "corpus.jsonl").write_text("".join(
        json.dumps({"_id": f"d{i}", "title": word, "text": f"{word} dosage and interactions"}) + "\n"
        for i, word in enumerate(QUERIES)))
    (root / "queries.jsonl").write_text("".join(
        json.dumps({"_id": f"q{i}", "text": word}) + "\n" for i, word in enumerate([*QUERIES, "unjudged"])))
    # qrels order, not file order of the queries, fixes the slice: q4 first, then q0 .. q3
    rows = [f"q{i}\td{i}\t1\n" for i in (4, 0, 1, 2, 3)]
    (root / "qrels" / "train.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(rows))
    return root


@pytest.mark.unit
def test_an_offset_and_a_limit_take_a_slice_of_the_judged_queries_in_qrels_order(tmp_path):
    root = beir_folder(tmp_path / "b")
    assert list(load_beir(root, "train").queries) == ["q4", "q0", "q1", "q2", "q3"]
    assert list(load_beir(root, "train", 2, offset=1).queries) == ["q0", "q1"]
    assert list(load_beir(root, "train", None, offset=3).queries) == ["q2", "q3"]
    assert load_beir(root, "train", 2, offset=5).queries == {}
    with pytest.raises(InvalidRequest):
        load_beir(root, "train", offset=-1)


@pytest.mark.integration
def test_eval_beir_reports_the_slice_and_every_querys_ndcg(tmp_path, monkeypatch, capsys):
    import eagle_rag.cli.logs
    from eagle_rag.cli.app import main

    root = beir_folder(tmp_path / "b")
    monkeypatch.setattr(eagle_rag.cli.logs, "setup", lambda verbose: None)
    for name, value in cli_env(tmp_path / "data").items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "out.json"
    with pytest.raises(SystemExit) as ended:
        main(["eval", "beir", str(root), "--split", "train", "--pipeline", "bm25", "--query-offset", "1",
              "--limit-queries", "2", "--data-dir", str(tmp_path / "idx"), "--json", str(out)])
    assert ended.value.code in (0, None)
    assert "queries=2 offset=1" in capsys.readouterr().out
    written = json.loads(out.read_text())["bm25"]
    assert written["queries"] == 2 and written["profile"] == "general"
    assert set(written["per_query"]) == {"q0", "q1"} and written["per_query"]["q0"]["ndcg@10"] == 1.0
    with pytest.raises(SystemExit) as ended:
        main(["eval", "beir", str(root), "--split", "train", "--query-offset", "-1"])
    assert ended.value.code == 2
    # the same folder under settings that write sentence rows: refused in one line, nothing searched
    capsys.readouterr()
    monkeypatch.setenv("EAGLE_RAG_INGEST__SENTENCE_COLLECTIONS", '["eagle_text"]')
    with pytest.raises(SystemExit) as ended:
        main(["eval", "beir", str(root), "--split", "train", "--pipeline", "bm25", "--data-dir",
              str(tmp_path / "idx")])
    assert ended.value.code == 2
    refused = capsys.readouterr()
    assert "ingest.sentence_collections is [] there, [\"eagle_text\"] here" in refused.err
    assert "nDCG" not in refused.out


@pytest.mark.integration
def test_run_pipeline_keeps_the_ndcg_of_every_query(tmp_path):
    from eagle_rag.engine import Engine
    from eagle_rag.evaluation.beir import ensure_index, run_pipeline
    from eagle_rag.settings import load_settings
    from eagle_rag.types import SearchMode

    data = load_beir(beir_folder(tmp_path / "b"), "train", 3, offset=2)
    settings = load_settings(environ=GENERAL, overrides={"data_dir": str(tmp_path / "idx"),
                                                         "encoders": {"mode": "deterministic"}})
    seen: dict[str, object] = {}
    with Engine(settings) as engine:
        ensure_index(engine, data)
        result = run_pipeline(engine, data, SearchMode.BM25, explain=True,
                              observe=lambda qid, response: seen.__setitem__(qid, response))
    assert set(result.per_query_ndcg) == {"q1", "q2", "q3"}
    # each query names its one judged document, which BM25 ranks first: nDCG@10 1.0 each
    assert result.per_query_ndcg == {"q1": 1.0, "q2": 1.0, "q3": 1.0}
    assert result.metrics["ndcg@10"] == pytest.approx(sum(result.per_query_ndcg.values()) / 3)
    # the same searches, observed: every query's response with its trails, labelled from the qrels
    from eagle_rag.evaluation.calibrate import JudgedHit, judged_hits

    assert list(seen) == ["q1", "q2", "q3"]
    hits = judged_hits("q2", seen["q2"], data.qrels["q2"], depth=1)
    assert [(h.document, h.position, h.relevant) for h in hits] == [("d2", 1, True)]
    assert hits[0].trail[0].stage == "bm25"
    assert JudgedHit.from_dict(hits[0].to_dict()) == hits[0]
    unjudged = judged_hits("q2", seen["q2"], {}, depth=1)
    assert [h.relevant for h in unjudged] == [False]


def _settings(tmp_path: Path, **overrides: object):
    from eagle_rag.settings import load_settings

    return load_settings(environ=GENERAL, overrides={"data_dir": str(tmp_path / "idx"),
                                                     "encoders": {"mode": "deterministic"}, **overrides})


@pytest.mark.integration
def test_an_index_is_reused_only_under_the_settings_that_wrote_it(tmp_path):
    from eagle_rag.engine import Engine
    from eagle_rag.evaluation.beir import ensure_index

    data = load_beir(beir_folder(tmp_path / "b"), "train")
    with Engine(_settings(tmp_path)) as engine:
        ensure_index(engine, data)
    marker = json.loads((tmp_path / "idx" / "beir_index.json").read_text())
    marker["ingest_docs_per_s"] = 123.0  # a reused index answers the stored rate without ingesting again
    (tmp_path / "idx" / "beir_index.json").write_text(json.dumps(marker))
    # a query-side setting writes nothing: the index is reused
    with Engine(_settings(tmp_path, router={"lexical_weight": 0.9})) as engine:
        assert ensure_index(engine, data) == 123.0
    for overrides, named in (({"ingest": {"token_vector_collections": ["eagle_text"]}},
                               "ingest.token_vector_collections is [] there"),
                             ({"ingest": {"chunk_chars": 900}}, "ingest.chunk_chars is 1500 there, 900 here")):
        with Engine(_settings(tmp_path, **overrides)) as engine, pytest.raises(InvalidRequest) as refused:
            ensure_index(engine, data)
        assert named in str(refused.value) and "give another --data-dir" in str(refused.value)
    del marker["settings"]  # an index of an older eval beir: its settings are unknown, so it is refused
    (tmp_path / "idx" / "beir_index.json").write_text(json.dumps(marker))
    with Engine(_settings(tmp_path)) as engine, pytest.raises(InvalidRequest, match="records no settings"):
        ensure_index(engine, data)


@pytest.mark.unit
def test_the_default_index_folder_is_keyed_by_the_profile_and_what_the_ingest_writes(tmp_path):
    from eagle_rag.evaluation.beir import index_folder_name, index_settings
    from eagle_rag.kernel.plugin_manager import build_plugin_manager

    data = load_beir(beir_folder(tmp_path / "b"), "train")

    def key(**overrides: object) -> str:
        settings = _settings(tmp_path, **overrides)
        return index_folder_name(data, settings, build_plugin_manager(settings))

    plain = key()
    assert plain.startswith("b-") and "-general-" in plain
    assert "-biomed-" in key(profile="biomed")
    assert key(ingest={"sentence_collections": ["eagle_text"]}) != plain
    assert key(search={"cross_encoder_pool": 5}) == plain  # query side: the same index
    biomed = _settings(tmp_path, profile="biomed")
    written = index_settings(biomed, build_plugin_manager(biomed))
    # the plugin's ingest-side options count (declared WRITES_INDEX), its query-side ones do not
    assert written["plugins.options.biomed.doc_semantic_router"]["ambiguous_default"] == "general"
    assert written["plugins.options.biomed.doc_semantic_router"]["short_default"] == "biomedical"
    assert not any(".tier2" in k or ".stages" in k for k in written)
    tuned = _settings(tmp_path, profile="biomed", plugins={
        "enabled": ["biomed", "datasets"], "default_namespace": "biomed",
        "options": {"biomed": {"tier2": {"pool": 10}}}})
    assert key(profile="biomed") == index_folder_name(data, tuned, build_plugin_manager(tuned))


@pytest.mark.unit
def test_a_query_set_part_chooses_the_queries_and_their_order(tmp_path):
    from eagle_rag.evaluation.beir import query_set

    root = beir_folder(tmp_path / "b")
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"seed": 1, "tune": ["q2", "q0"], "test": ["q1", "q9"]}))
    assert list(load_beir(root, "train", only=query_set(split, "tune")).queries) == ["q2", "q0"]
    assert list(load_beir(root, "train", 1, offset=1, only=query_set(split, "tune")).queries) == ["q0"]
    with pytest.raises(InvalidRequest, match="1 of the chosen queries are not judged"):
        load_beir(root, "train", only=query_set(split, "test"))  # q9 is not judged
    with pytest.raises(InvalidRequest, match="has no part 'dev'; its parts: test, tune"):
        query_set(split, "dev")

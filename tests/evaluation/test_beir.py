"""``eval beir``: a slice of the judged queries (``--query-offset``) and the per-query nDCG@10."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eagle_rag.errors import InvalidRequest
from eagle_rag.evaluation.beir import load_beir
from tests.client.helpers import cli_env

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
    import eagle_rag.cli_logging
    from eagle_rag.cli import main

    root = beir_folder(tmp_path / "b")
    monkeypatch.setattr(eagle_rag.cli_logging, "setup", lambda verbose: None)
    for name, value in cli_env(tmp_path / "data").items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "out.json"
    with pytest.raises(SystemExit) as ended:
        main(["eval", "beir", str(root), "--split", "train", "--pipeline", "bm25", "--query-offset", "1",
              "--limit-queries", "2", "--data-dir", str(tmp_path / "idx"), "--json", str(out)])
    assert ended.value.code in (0, None)
    assert "queries=2 offset=1" in capsys.readouterr().out
    assert json.loads(out.read_text())["bm25"]["queries"] == 2
    with pytest.raises(SystemExit) as ended:
        main(["eval", "beir", str(root), "--split", "train", "--query-offset", "-1"])
    assert ended.value.code == 2


@pytest.mark.integration
def test_run_pipeline_keeps_the_ndcg_of_every_query(tmp_path):
    from eagle_rag.engine import Engine
    from eagle_rag.evaluation.beir import ensure_index, run_pipeline
    from eagle_rag.settings import load_settings
    from eagle_rag.types import SearchMode

    data = load_beir(beir_folder(tmp_path / "b"), "train", 3, offset=2)
    settings = load_settings(environ={}, overrides={"data_dir": str(tmp_path / "idx"),
                                                    "encoders": {"mode": "deterministic"}})
    with Engine(settings) as engine:
        ensure_index(engine, data)
        result = run_pipeline(engine, data, SearchMode.BM25)
    assert set(result.per_query_ndcg) == {"q1", "q2", "q3"}
    # each query names its one judged document, which BM25 ranks first: nDCG@10 1.0 each
    assert result.per_query_ndcg == {"q1": 1.0, "q2": 1.0, "q3": 1.0}
    assert result.metrics["ndcg@10"] == pytest.approx(sum(result.per_query_ndcg.values()) / 3)

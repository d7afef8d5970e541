"""The calibrated probability of relevance on every hit (issue 38): features from the trail, the fitted
model and its monotone rule, the parameters file, ``eagle-rag calibrate``, ``min_relevance`` and
``expected_relevant``."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from eagle_rag.engine import Engine
from eagle_rag.errors import InvalidRequest
from eagle_rag.retrieve import relevance
from eagle_rag.retrieve.relevance import FEATURES, RelevanceModel, RelevanceParametersError, features
from eagle_rag.settings import load_settings
from eagle_rag.types import MatchKind, SearchHit, SearchMode, SearchRequest, SearchResponse, StageScore
from tests.client.helpers import cli_env
from tests.evaluation.test_beir import beir_folder

FULL_TRAIL = (StageScore("bm25", 4, 7.5), StageScore("dense", 2, 0.71), StageScore("sentence", 1, 0.75),
              StageScore("hybrid_rrf", 2, 0.028), StageScore("cross_encoder", 1, 1.13),
              StageScore("rerank_t2", 1, 4.7, {"ce_norm": 1.0, "li_norm": 0.96, "entity": 1.0, "section": 0.0}))


@pytest.mark.unit
def test_features_read_the_trail():
    x = dict(zip(FEATURES, features(FULL_TRAIL, MatchKind.EXACT, 3), strict=True))
    # position 3 -> ln 3; bm25 rank 4 -> 1/4; the best cosine of dense (0.71) and sentence (0.75)
    assert x["position_log"] == pytest.approx(math.log(3))
    assert (x["bm25_rr"], x["dense_rr"], x["sentence_rr"]) == (0.25, 0.5, 1.0)
    assert x["cosine"] == pytest.approx(0.75) and x["cross_encoder"] == pytest.approx(1.13)
    assert (x["cross_encoder_ran"], x["ce_norm"], x["li_norm"], x["entity"], x["exact_match"]) == (1, 1, .96, 1, 1)
    # a stage skipped for the language counts as absent
    skipped = (StageScore("dense", 1, 0.5), StageScore("cross_encoder", 1, 0.5, skipped="language"))
    y = dict(zip(FEATURES, features(skipped, MatchKind.SEMANTIC, 1), strict=True))
    assert (y["cross_encoder"], y["cross_encoder_ran"], y["position_log"], y["bm25_rr"]) == (0, 0, 0, 0)


@pytest.mark.unit
def test_the_probability_is_the_logistic_of_the_weighted_features():
    model = RelevanceModel("full", {"cross_encoder": 2.0, "position_log": -1.0}, intercept=0.5)
    x = features(FULL_TRAIL, MatchKind.PARTIAL, 1)
    # 0.5 + 2.0 * 1.13 - 1.0 * ln(1) = 2.76 -> 1 / (1 + e^-2.76) = 0.94047
    assert model.probability(x) == pytest.approx(1 / (1 + math.exp(-2.76)))
    assert model.probability(x) == pytest.approx(0.94047, abs=1e-5)


@pytest.mark.unit
def test_calibration_knots_map_the_score_to_the_probability():
    model = RelevanceModel("full", {"cross_encoder": 1.0}, 0.0, calibration=((-1.0, 0.1), (1.0, 0.9)))
    trail = (StageScore("cross_encoder", 1, 0.0),)
    # z = 0 + 1.0 * 0.0 = 0, halfway between the knots: 0.1 + (0 - -1) / (1 - -1) * (0.9 - 0.1) = 0.5
    assert model.probability(features(trail, MatchKind.PARTIAL, 1)) == pytest.approx(0.5)
    # beyond the last knot: its value
    assert model.probability(features((StageScore("cross_encoder", 1, 7.0),), MatchKind.PARTIAL, 1)) == 0.9
    with pytest.raises(RelevanceParametersError, match="knots"):
        RelevanceModel("full", {}, 0.0, calibration=((0.0, 0.6), (1.0, 0.4)))
    knots = relevance.isotonic_knots(np.array([0.0, 1.0, 1.0, 2.0, 3.0]), np.array([0, 1, 0, 1, 1]))
    # the tie at z = 1 shares its mean 0.5; the pool adjacent violators give 0, 0.5, 0.5, 1, 1
    assert knots == ((0.0, 0.0), (1.0, 0.5), (2.0, 1.0), (3.0, 1.0))


def _synthetic(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Rows where relevance rises with the cross-encoder score and, against the rule, falls with the cosine."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(400, len(FEATURES)))
    ce, cos = FEATURES.index("cross_encoder"), FEATURES.index("cosine")
    y = (1.5 * x[:, ce] - 2.0 * x[:, cos] + rng.normal(size=400) > 0).astype(int)
    return x, y


@pytest.mark.unit
def test_the_fit_keeps_monotone_features_non_negative_and_probabilities_in_0_1():
    x, y = _synthetic()
    model = relevance.fit(x, y, "full")
    assert model.coefficients["cross_encoder"] > 0.5
    # the data says "a higher cosine lowers it": the bound holds it at 0 and names it
    assert model.coefficients["cosine"] == 0.0 and "cosine" in model.clipped
    assert "cross_encoder" not in model.clipped
    probabilities = [model.probability(row) for row in x]
    assert all(0.0 <= p <= 1.0 for p in probabilities)
    # monotone: raising the cross-encoder score of every row never lowers its probability
    ce = FEATURES.index("cross_encoder")
    for step in (0.1, 1.0, 5.0):
        higher = x.copy()
        higher[:, ce] += step
        assert all(model.probability(h) >= p for h, p in zip(higher, probabilities, strict=True))
    with pytest.raises(ValueError, match="one class"):
        relevance.fit(x, np.zeros(len(x), dtype=int), "full")


@pytest.mark.unit
def test_parameters_round_trip_and_a_negative_monotone_coefficient_is_refused(tmp_path: Path):
    model = RelevanceModel("hybrid", {"cosine": 1.5, "bm25_rr": 0.7}, -2.0, fitted_on="x", samples=10, positives=3)
    path = tmp_path / "p.json"
    relevance.RelevanceParameters("general", {"hybrid": model}).save(path)
    assert relevance.load_parameters(path).models["hybrid"] == model
    assert relevance.resolve_model(tmp_path, "general", "hybrid", path) == relevance.ModelChoice(model, model)
    assert relevance.resolve_model(tmp_path, "general", "bm25", path) is None
    # the data folder's file (eagle-rag calibrate) comes first, for the modes it has
    mine = RelevanceModel("hybrid", {"cosine": 3.0}, -1.0)
    relevance.RelevanceParameters("general", {"hybrid": mine}).save(tmp_path / relevance.USER_FILE)
    assert relevance.resolve_model(tmp_path, "general", "hybrid", path) == relevance.ModelChoice(mine, mine)
    data = json.loads(path.read_text())
    data["models"]["hybrid"]["coefficients"]["cross_encoder"] = -0.1
    path.write_text(json.dumps(data))
    with pytest.raises(RelevanceParametersError, match="monotone feature.*cross_encoder"):
        relevance.load_parameters(path)
    path.write_text(json.dumps({**data, "format": 99}))
    with pytest.raises(RelevanceParametersError, match="format 1"):
        relevance.load_parameters(path)


@pytest.mark.unit
@pytest.mark.parametrize(("query", "kind"), [
    ("Which factor is inhibited by Milvexian?", "question"),         # a question mark
    ("Do only changes in coding regions of MEF2C cause disease", "question"),  # an auxiliary opens it
    ("Please list 3 drugs that have EGFR as their primary target.", "question"),  # a request
    ("Human dihydroorotate dehydrogenase is involved in what pathway", "question"),  # "what" inside
    ("Anaplasma phagocytophilum is an obligate bacterium, yes  or no", "question"),
    ("Hydrops is associated with Meniere's disease. Please provide a summary of it.", "question"),
    ("0-dimensional biomaterials show inductive properties.", "statement"),  # a SciFact claim
    ("metformin lactic acidosis", "statement"),                    # keywords
    ("Aspirin, which inhibits COX, lowers fever", "statement"),    # "which" as a relative pronoun
    ("糖尿病吃什么好", "chinese"),
    ("阿司匹林 aspirin 副作用", "chinese"),                         # mixed, as the router reads it
    ("", "statement"),
])
def test_the_query_kind(query: str, kind: str):
    assert relevance.query_kind(query) == relevance.QueryKind(kind)


@pytest.mark.unit
def test_a_query_kind_model_annotates_and_the_mode_model_orders(tmp_path: Path):
    mode = RelevanceModel("hybrid", {"cosine": 1.0}, -1.0, rank_depth=30)
    claims = RelevanceModel("hybrid", {"cosine": 2.0}, -3.0)
    params = relevance.RelevanceParameters("biomed", {"hybrid": mode, "hybrid/statement": claims})
    assert params.choice("hybrid", "aspirin lowers fever") == relevance.ModelChoice(mode, claims)
    assert params.choice("hybrid", "What does aspirin lower?") == relevance.ModelChoice(mode, mode)
    assert params.choice("full", "aspirin lowers fever") is None
    path = tmp_path / "p.json"
    params.save(path)
    assert relevance.load_parameters(path).models == params.models
    # a calibrated data folder with a model of the mode hides the shipped file's kinds
    mine = RelevanceModel("hybrid", {"cosine": 3.0}, -1.0)
    relevance.RelevanceParameters("biomed", {"hybrid": mine}).save(tmp_path / relevance.USER_FILE)
    assert relevance.resolve_model(tmp_path, "biomed", "hybrid", path, "aspirin") == relevance.ModelChoice(mine, mine)
    for models, message in (({"hybrid": mode, "hybrid/statement": mode}, "only annotates"),
                            ({"hybrid": mode, "hybrid/claims": claims}, "unknown query kind 'claims'"),
                            ({"hybrid/statement": claims}, "no model of mode 'hybrid'")):
        with pytest.raises(RelevanceParametersError, match=message):
            relevance.RelevanceParameters("biomed", models)
        path.write_text(json.dumps({"format": 1, "profile": "biomed",
                                    "models": {k: m.to_dict() for k, m in models.items()}}))
        with pytest.raises(RelevanceParametersError, match=f"p.json: invalid relevance model: .*{message}"):
            relevance.load_parameters(path)


@pytest.mark.unit
def test_reliability_scores_each_hit_with_its_query_kinds_model():
    from eagle_rag.evaluation.calibrate import JudgedHit, annotating, reliability

    # the mode's model gives every hit 0.5 (z = 0); the statement model gives expit(+-10) by the cosine
    params = relevance.RelevanceParameters("biomed", {
        "hybrid": RelevanceModel("hybrid", {}, 0.0),
        "hybrid/statement": RelevanceModel("hybrid", {"cosine": 20.0}, -10.0)})
    trail_hi, trail_lo = (StageScore("dense", 1, 1.0),), (StageScore("dense", 2, 0.0),)
    hits = [JudgedHit("c", 1, True, MatchKind.PARTIAL, trail_hi, "d1", "aspirin lowers fever"),
            JudgedHit("c", 2, False, MatchKind.PARTIAL, trail_lo, "d2", "aspirin lowers fever"),
            JudgedHit("q", 1, True, MatchKind.PARTIAL, trail_hi, "d1", "Does aspirin lower fever?"),
            JudgedHit("q", 2, False, MatchKind.PARTIAL, trail_lo, "d2", "Does aspirin lower fever?")]
    r = reliability(annotating(params, "hybrid"), hits)
    # claims: p = 1 - 4.54e-5 and 4.54e-5, both right within 4.54e-5; question: 0.5 and 0.5 against 1 and 0
    # ECE: bin 0 (the claim's 4.54e-5, label 0): 1/4 * 4.54e-5; bin 5 (two 0.5, one relevant): 2/4 * 0;
    # bin 9 (the claim's 0.99995, label 1): 1/4 * 4.54e-5 -> 2.27e-5
    assert r.ece == pytest.approx(2 * 0.25 * 4.54e-5, rel=1e-2)
    # Brier: (2 * 4.54e-5^2 + 0.25 + 0.25) / 4 = 0.125
    assert r.brier == pytest.approx(0.125, abs=1e-6)
    assert r.confident_queries == 2 and r.confident_right == 1.0
    with pytest.raises(KeyError, match="no model of mode 'full'"):
        annotating(params, "full")


@pytest.mark.unit
def test_calibrate_by_kind_fits_a_model_for_each_kind_with_enough_judged_hits():
    from eagle_rag.evaluation.calibrate import MIN_KIND_HITS, JudgedHit, kind_models

    def hits(query: str, n: int, relevant_every: int) -> list[JudgedHit]:
        return [JudgedHit(f"{query}{i // 10}", i % 10 + 1, i % relevant_every == 0, MatchKind.PARTIAL,
                          (StageScore("dense", i % 10 + 1, 0.9 - 0.01 * (i % 10)),), f"d{i}", query)
                for i in range(n)]

    questions = hits("Which drug lowers fever?", MIN_KIND_HITS + 20, 3)   # 120 hits, 40 relevant
    claims = hits("aspirin lowers fever", MIN_KIND_HITS, 5)               # 100 hits, 20 relevant
    chinese = hits("阿司匹林 退烧", MIN_KIND_HITS - 1, 4)                  # 99 hits: too few for a model
    models = kind_models([*questions, *claims, *chinese], SearchMode.HYBRID, "mine")
    assert sorted(models) == ["hybrid/question", "hybrid/statement"]
    assert (models["hybrid/question"].samples, models["hybrid/question"].positives) == (120, 40)
    assert (models["hybrid/statement"].samples, models["hybrid/statement"].positives) == (100, 20)
    assert models["hybrid/statement"].fitted_on == "mine; statement queries"
    # one kind only: the mode's model is that kind's, no model of its own
    assert kind_models(questions, SearchMode.HYBRID, "mine") == {}
    # a kind whose hits hold one class gets none
    none_relevant = [dataclasses.replace(h, relevant=False) for h in claims]
    assert sorted(kind_models([*questions, *none_relevant], SearchMode.HYBRID, "mine")) == ["hybrid/question"]


@pytest.mark.unit
def test_reorder_sorts_only_the_first_depth_items_and_keeps_ties_in_order():
    items = ["a", "b", "c", "d", "e"]
    # the first three by probability: c (0.9), then a and b tied at 0.4 in their order; d, e stay behind
    assert relevance.reorder(items, [0.4, 0.4, 0.9], 3) == ["c", "a", "b", "d", "e"]
    assert relevance.reorder(items, [], 0) == items
    assert relevance.reorder(items[:2], [0.1, 0.8], 30) == ["b", "a"]  # fewer items than the depth
    # only the movable ones trade places: b (not movable) stays second, a / c / d sort into places 1, 3, 4
    assert relevance.reorder(items, [0.2, 0.99, 0.5, 0.9], 4, [True, False, True, True]) == ["d", "b", "c", "a", "e"]


@pytest.mark.unit
def test_a_rank_depth_round_trips_and_a_negative_one_is_refused(tmp_path: Path):
    model = RelevanceModel("hybrid", {"cosine": 1.5}, -2.0, rank_depth=30, rank_note="tune +0.02, test +0.017",
                           rank_collections=("eagle_text_biomed",))
    path = tmp_path / "p.json"
    relevance.RelevanceParameters("biomed", {"hybrid": model}).save(path)
    assert relevance.load_parameters(path).models["hybrid"] == model
    plain = RelevanceModel("hybrid", {"cosine": 1.5}, -2.0)
    assert "rank_depth" not in plain.to_dict()  # what a fit writes: the model only annotates
    with pytest.raises(RelevanceParametersError, match="rank_depth"):
        RelevanceModel("hybrid", {"cosine": 1.5}, -2.0, rank_depth=-1)


@pytest.mark.unit
def test_the_shipped_parameters_load_and_keep_the_monotone_rule():
    import importlib.util

    spec = importlib.util.find_spec("eagle_rag_biomed")  # the plugin's data folder, without importing it
    assert spec is not None and spec.origin is not None
    biomed = relevance.load_parameters(Path(spec.origin).parent / "data" / "relevance_biomed.json")
    # the modes' models (BioASQ questions) and the models of claims (SciFact) and Chinese queries (KUAKE)
    assert set(biomed.models) == {"hybrid", "full", "hybrid/statement", "full/statement", "hybrid/chinese",
                                  "full/chinese"} and biomed.profile == "biomed"
    assert all(m.samples >= 2000 and m.calibration for m in biomed.models.values())
    # only hybrid orders by the probability (measured better on BioASQ's tune folds, confirmed on test)
    assert {mode: m.rank_depth for mode, m in biomed.models.items() if m.rank_depth} == {"hybrid": 30}
    assert biomed.models["hybrid"].rank_collections == ("eagle_text_biomed",)  # the collection it was fitted on
    # a claim is scored by the claims' model and still ordered by the mode's; a question by the mode's alone
    claim = biomed.choice("hybrid", "Aspirin lowers the risk of colorectal cancer.")
    assert claim == relevance.ModelChoice(biomed.models["hybrid"], biomed.models["hybrid/statement"])
    chinese = biomed.choice("full", "阿司匹林的副作用")
    assert chinese == relevance.ModelChoice(biomed.models["full"], biomed.models["full/chinese"])
    asked = biomed.choice("hybrid", "Which factor is inhibited by Milvexian?")
    assert asked == relevance.ModelChoice(biomed.models["hybrid"], biomed.models["hybrid"])
    general = relevance.load_parameters(relevance.GENERAL_FILE)
    assert general.profile == "general" and set(general.models) == {
        "hybrid", "full", "hybrid/question", "full/question", "hybrid/chinese", "full/chinese"}
    assert all(m.samples >= 2000 and m.calibration and not m.rank_depth for m in general.models.values())


# --------------------------------------------------------------------------- calibrate and search


def _judged(root: Path, name: str, shift: int) -> Path:
    """Qrels where query i judges document (i + shift) mod 5 relevant."""
    path = root / f"{name}.tsv"
    path.write_text("".join(f"q{i}\td{(i + shift) % 5}\t1\n" for i in range(5)))
    return path


def _calibrate(root: Path, data: Path, qrels: Path, *options: str) -> str:
    from eagle_rag.cli.app import main

    with pytest.MonkeyPatch.context() as patch:
        import eagle_rag.cli.logs

        patch.setattr(eagle_rag.cli.logs, "setup", lambda verbose: None)
        for name, value in cli_env(data).items():
            patch.setenv(name, value)
        with pytest.raises(SystemExit) as ended:
            main(["calibrate", "--queries", str(root / "queries.jsonl"), "--qrels", str(qrels), "--corpus",
                  str(root / "corpus.jsonl"), "--mode", "hybrid", "--data-dir", str(data), *options])
        assert ended.value.code in (0, None)
    return (data / relevance.USER_FILE).read_text()


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A five-document BEIR folder, indexed and calibrated in hybrid mode (query i judges document i)."""
    tmp = tmp_path_factory.mktemp("relevance")
    root = beir_folder(tmp / "b")
    _calibrate(root, tmp / "data", _judged(tmp, "same", 0))
    yield root, tmp / "data"


def _copy(shared: Path, tmp_path: Path) -> Path:
    """A copy of the calibrated data folder that a test may change."""
    import shutil

    data = tmp_path / "data"
    shutil.copytree(shared, data)
    return data


def _engine(data: Path) -> Engine:
    return Engine(load_settings(environ=cli_env(data), overrides={"data_dir": str(data)}))


@pytest.mark.integration
def test_calibrate_fits_and_min_relevance_drops_and_counts(calibrated: tuple[Path, Path]):
    _root, data = calibrated
    written = json.loads((data / relevance.USER_FILE).read_text())
    assert written["format"] == 1 and written["models"]["hybrid"]["samples"] == 25
    assert written["models"]["hybrid"]["positives"] == 5
    with _engine(data) as engine:
        answer = engine.search(SearchRequest(query="aspirin", top_k=5, mode=SearchMode.HYBRID))
        assert len(answer.hits) == 5
        top, rest = answer.hits[0], answer.hits[1:]
        assert top.document_id == "d0" and top.relevance is not None and top.relevance > 0.5
        assert all(h.relevance is not None and h.relevance < 0.5 for h in rest)
        assert answer.expected_relevant == pytest.approx(sum(h.relevance or 0 for h in answer.hits), abs=1e-3)
        kept = engine.search(SearchRequest(query="aspirin", top_k=5, mode=SearchMode.HYBRID, min_relevance=0.5))
        assert [h.document_id for h in kept.hits] == ["d0"] and kept.dropped["min_relevance"] == 4
        assert kept.hits[0].relevance == top.relevance and kept.total == 1
        # a query no document holds a word of: only dense hits, none judged like a relevant one
        nothing = engine.search(SearchRequest(query="zebra", top_k=5, mode=SearchMode.HYBRID, min_relevance=0.5))
        assert nothing.hits == () and nothing.dropped["min_relevance"] == 5
        assert nothing.empty_reason is not None and nothing.empty_reason.startswith("no hit reached min_relevance 0.5")
        for bad in (1.5, -0.1, "high", True):
            with pytest.raises(InvalidRequest, match="min_relevance"):
                engine.search(SearchRequest(query="aspirin", mode=SearchMode.HYBRID, min_relevance=bad))  # type: ignore[arg-type]


@pytest.mark.integration
def test_a_mode_without_parameters_says_so(calibrated: tuple[Path, Path]):
    _root, data = calibrated
    with _engine(data) as engine:
        answer = engine.search(SearchRequest(query="aspirin", top_k=5, mode=SearchMode.BM25))
        assert answer.hits and all(h.relevance is None for h in answer.hits)
        assert answer.expected_relevant is None
        assert answer.relevance_note is not None and answer.warnings == ()
        assert "no fitted parameters for profile 'general' in mode 'bm25'" in answer.relevance_note
        with pytest.raises(InvalidRequest, match="min_relevance cannot apply: relevance: no fitted parameters"):
            engine.search(SearchRequest(query="aspirin", mode=SearchMode.BM25, min_relevance=0.5))


@pytest.mark.integration
def test_calibrate_refits_from_other_judgements_and_changes_the_answers(calibrated: tuple[Path, Path],
                                                                       tmp_path: Path):
    root, shared = calibrated
    data = _copy(shared, tmp_path)
    with _engine(data) as engine:
        before = engine.search(SearchRequest(query="aspirin", top_k=5, mode=SearchMode.HYBRID)).hits[0]
    # now each query judges the next document, one that does not hold the query's word
    _calibrate(root, data, _judged(tmp_path, "next", 1))
    with _engine(data) as engine:
        after = engine.search(SearchRequest(query="aspirin", top_k=5, mode=SearchMode.HYBRID, min_relevance=0.5))
    assert before.document_id == "d0" and before.relevance is not None and before.relevance > 0.5
    assert "d0" not in [h.document_id for h in after.hits] and after.dropped["min_relevance"] >= 1


@pytest.mark.integration
def test_calibrate_drops_the_query_kind_models_of_the_modes_it_refits(calibrated: tuple[Path, Path],
                                                                      tmp_path: Path):
    root, shared = calibrated
    data = _copy(shared, tmp_path)
    kept = RelevanceModel("full", {"cosine": 1.0}, 0.0)
    written = relevance.load_parameters(data / relevance.USER_FILE)
    relevance.RelevanceParameters("general", {**written.models, "hybrid/question": RelevanceModel("hybrid", {}, 0.0),
                                              "full": kept, "full/question": kept}).save(data / relevance.USER_FILE)
    _calibrate(root, data, _judged(tmp_path, "same", 0), "--by-kind")
    # --by-kind: these queries are all statements, so the mode's model is theirs and no kind model is added
    assert sorted(relevance.load_parameters(data / relevance.USER_FILE).models) == ["full", "full/question", "hybrid"]


@pytest.mark.integration
def test_a_model_with_a_rank_depth_orders_the_top_hits_by_its_probability(calibrated: tuple[Path, Path],
                                                                          tmp_path: Path):
    data = _copy(calibrated[1], tmp_path)
    with _engine(data) as engine:
        before = engine.search(SearchRequest(query="aspirin", top_k=5, mode=SearchMode.HYBRID)).hits
    # a model whose probability rises with the position: expit(5 * ln(position)) = 0.5, 0.97, 0.996, ...
    rising = RelevanceModel("hybrid", {"position_log": 5.0}, 0.0, rank_depth=3)
    relevance.RelevanceParameters("general", {"hybrid": rising}).save(data / relevance.USER_FILE)
    with _engine(data) as engine:
        after = engine.search(SearchRequest(query="aspirin", top_k=5, mode=SearchMode.HYBRID, explain=True)).hits
    order = [h.id for h in before]
    assert [h.id for h in after] == [order[2], order[1], order[0], order[3], order[4]]
    # each hit keeps the probability of its place before the reordering, and its trail says where that was
    assert [h.relevance for h in after[:3]] == [round(1 / (1 + 3.0 ** -5), 4), round(1 / (1 + 2.0 ** -5), 4), 0.5]
    moved = [next(e for e in h.trail if e.stage == relevance.RANK_STAGE) for h in after[:3]]
    assert [(e.rank, e.detail["from"]) for e in moved] == [(1, 3), (2, 2), (3, 1)]
    assert all(e.stage != relevance.RANK_STAGE for h in after[3:] for e in h.trail)
    # a model limited to another collection's hits moves none of these
    relevance.RelevanceParameters("general", {"hybrid": RelevanceModel(
        "hybrid", {"position_log": 5.0}, 0.0, rank_depth=3, rank_collections=("eagle_chemical",))}).save(
        data / relevance.USER_FILE)
    with _engine(data) as engine:
        kept = engine.search(SearchRequest(query="aspirin", top_k=5, mode=SearchMode.HYBRID)).hits
    assert [h.id for h in kept] == order
    # a query kind's model gives the probability and the mode's model still orders: a constant 0.25
    relevance.RelevanceParameters("general", {"hybrid": rising, "hybrid/statement": RelevanceModel(
        "hybrid", {}, math.log(1 / 3))}).save(data / relevance.USER_FILE)
    with _engine(data) as engine:
        claim = engine.search(SearchRequest(query="aspirin", top_k=5, mode=SearchMode.HYBRID, explain=True)).hits
        asked = engine.search(SearchRequest(query="what is aspirin", top_k=5, mode=SearchMode.HYBRID)).hits
    assert [h.id for h in claim] == [h.id for h in after] and {h.relevance for h in claim} == {0.25}
    assert [e.score for h in claim[:3] for e in h.trail if e.stage == relevance.RANK_STAGE] == [
        h.relevance for h in after[:3]]  # the trail keeps the probability that ordered it
    assert asked[0].relevance is not None and asked[0].relevance > 0.25
    # the features read the place before back, so a collected hit is scored as the engine scored it
    assert relevance.features(after[0].trail, after[0].match, 1)[FEATURES.index("position_log")] == pytest.approx(
        math.log(3))


@pytest.mark.integration
def test_mode_full_hands_its_rerank_the_candidates_in_the_hybrid_models_order(calibrated: tuple[Path, Path],
                                                                              tmp_path: Path):
    data = _copy(calibrated[1], tmp_path)
    # the hybrid model orders (rank_depth 3) with a probability rising with the place: expit(5 * ln(place))
    rising = RelevanceModel("hybrid", {"position_log": 5.0}, 0.0, rank_depth=3)
    relevance.RelevanceParameters("general", {"hybrid": rising}).save(data / relevance.USER_FILE)

    def first_three(**search: object) -> list[tuple[int, int, float]]:
        settings = load_settings(environ=cli_env(data), overrides={"data_dir": str(data), "search": search})
        with Engine(settings) as engine:
            hits = engine.search(SearchRequest(query="aspirin", top_k=5, mode=SearchMode.FULL, explain=True)).hits
        return sorted((e.rank, int(e.detail["from"]), e.score) for h in hits for e in h.trail
                      if e.stage == relevance.PRIOR_STAGE)

    # the fused places 3, 2, 1 become 1, 2, 3 before the rerank, each with the probability of its fused place
    moved = first_three()
    assert [(rank, before) for rank, before, _ in moved] == [(1, 3), (2, 2), (3, 1)]
    assert [p for _, _, p in moved] == pytest.approx([1 / (1 + 3.0 ** -5), 1 / (1 + 2.0 ** -5), 0.5])
    assert first_three(full_relevance_prior=False) == []
    # a hybrid model that only annotates (no rank_depth) leaves the fused order to the rerank
    relevance.RelevanceParameters("general", {"hybrid": RelevanceModel("hybrid", {"position_log": 5.0}, 0.0)}).save(
        data / relevance.USER_FILE)
    assert first_three() == []


# --------------------------------------------------------------------------- surfaces


def _answer() -> SearchResponse:
    hits = tuple(SearchHit(f"c{i}", f"d{i}", "text", 0.03 - i / 100, "A > B", "eagle_text", MatchKind.PARTIAL,
                           {"kb_name": "k"}, relevance=p, kb_name="k") for i, p in enumerate((0.9, 0.35)))
    return SearchResponse("q", hits, 2, True, SearchMode.HYBRID, expected_relevant=1.25,
                          dropped={"min_relevance": 3})


@pytest.mark.unit
def test_every_surface_carries_relevance_and_expected_relevant():
    from eagle_rag.api.models import SearchBody, SearchResponseModel
    from eagle_rag.integrations.search import SearchOptions, hit_metadata
    from eagle_rag.service.core_tools import format_search, search_request

    answer = _answer()
    wire = answer.to_dict()
    assert SearchResponse.from_dict(wire) == answer  # the client reads what the server writes
    model = SearchResponseModel.model_validate({**wire, "hits": list(wire["hits"])})
    assert model.hits[0].relevance == 0.9 and model.expected_relevant == 1.25
    assert SearchBody(query="q", min_relevance=0.5).min_relevance == 0.5
    # the range is the service's to refuse (400, as the other options); the schema shows it
    schema = SearchBody.model_json_schema()["properties"]["min_relevance"]
    assert (schema["minimum"], schema["maximum"]) == (0, 1)
    agent = format_search(answer, 100, 50)
    assert [h["relevance"] for h in agent["hits"]] == [0.9, 0.35] and agent["expected_relevant"] == 1.25
    assert agent["guidance"].startswith("About 1.2 of these 2 hits are relevant")
    assert search_request("q", 5, min_relevance=0.4).min_relevance == 0.4
    assert hit_metadata(answer.hits[0], 1)["relevance"] == 0.9
    assert SearchOptions.of(filters={"min_relevance": 0.7}).request("q").min_relevance == 0.7


@pytest.mark.unit
def test_the_cli_shows_relevance_as_a_column_in_explain_and_in_the_summary(capsys):
    from eagle_rag.cli.app import print_response

    print_response(_answer(), explain=True)
    out = capsys.readouterr().out
    assert "1.  90% 0.0300 d0" in out and "2.  35% 0.0200 d1" in out
    assert "relevance: 90% (calibrated probability" in out
    assert "expected relevant: 1.2" in out and "3 hits under --min-relevance" in out


@pytest.mark.unit
def test_hook_eagle_relevance_parameters(tmp_path: Path):
    """The biomed plugin answers for ``biomed`` with its data file, the core for ``general``; nobody for
    another profile name."""
    from eagle_rag.kernel.plugin_manager import build_plugin_manager

    biomed = build_plugin_manager(load_settings(environ={"EAGLE_RAG_PROFILE": "biomed"},
                                                overrides={"data_dir": str(tmp_path)}))
    shipped = biomed.hook.eagle_relevance_parameters(profile="biomed")
    assert shipped.name == "relevance_biomed.json" and shipped.parent.name == "data"
    assert relevance.load_parameters(shipped).profile == "biomed"
    assert biomed.hook.eagle_relevance_parameters(profile="general") == relevance.GENERAL_FILE
    assert biomed.hook.eagle_relevance_parameters(profile="mine") is None

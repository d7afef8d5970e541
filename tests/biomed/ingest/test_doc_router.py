"""The tiered document router: Tier-0, the Tier-1 formula and bands, Tier-2 against a fake local LLM."""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from eagle_rag.types import Chunk
from eagle_rag_biomed.ingest.doc_router import (
    LlmRouterError,
    TextProfile,
    build_document_sketch,
    classify_document_text_profile,
    fuse,
    imrad_diversity,
    llm_arbitrate,
    load_prototypes,
    parse_verdict,
    sketch_entropy,
    umls_density,
)
from eagle_rag_biomed.options import DocRouterOptions, parse_options

BIO = "Imatinib inhibits BCR-ABL kinase in patients with chronic myeloid leukemia; EGFR and HER2 were measured."
EARNINGS = ("Quarterly earnings release: revenue increased 11 percent year over year to 5.2 billion dollars; gross "
            "margin expanded to 61 percent; diluted earnings per share were 2.05. The company raised its full-year "
            "revenue guidance and returned 1.1 billion dollars to shareholders through buybacks and dividends.")

LONG = "some text " * 60  # 600 characters: long enough for the router to judge (short_chars 500)


def _chunks(*texts: str) -> list[Chunk]:
    return [Chunk(id=f"c{i}", text=t, document_id="d") for i, t in enumerate(texts)]


def _router(**overrides: Any) -> DocRouterOptions:
    return parse_options({"doc_semantic_router": overrides}).doc_semantic_router


class AngleEncoder:
    """2-d fake encoder: biomedical prototypes -> (1, 0), general ones -> (0, 1), anything else -> ``sketch``."""

    name, dim, semantic = "fake", 2, False

    def __init__(self, sketch: tuple[float, float]) -> None:
        protos = load_prototypes()
        self.table = {**dict.fromkeys(protos.biomedical, (1.0, 0.0)), **dict.fromkeys(protos.general, (0.0, 1.0))}
        norm = math.hypot(*sketch)
        self.sketch = [sketch[0] / norm, sketch[1] / norm]

    def encode_passages(self, texts):
        return [list(self.table.get(t, self.sketch)) for t in texts]

    encode_queries = encode_passages


PROTO_ONLY = {"fusion": {"weights": {"prototype": 1.0, "umls": 0.0, "imrad": 0.0, "entropy": 0.0}}}


@pytest.mark.unit
def test_tier0_switch_and_known_sources():
    off = classify_document_text_profile(_chunks(EARNINGS), ["body"], _router(enabled=False), None)
    assert (off.profile, off.confidence, off.rule, off.tier) == (
        TextProfile.BIOMEDICAL, 0.5, "router_disabled_default", 0)
    label = classify_document_text_profile(_chunks(EARNINGS), ["body"], _router(), None, source_type="drug_label")
    assert (label.profile, label.rule, label.tier) == (TextProfile.BIOMEDICAL, "source_type", 0)


@pytest.mark.unit
def test_fusion_formula_and_weight_override():
    signals = {"prototype": 0.2, "umls": 0.4, "imrad": 2 / 3, "entropy": 0.9}
    assert fuse(signals, _router()) == pytest.approx(0.55 * 0.2 + 0.25 * 0.4 + 0.15 * (2 / 3) + 0.05 * 0.9)
    custom = _router(fusion={"weights": {"prototype": 1.0, "umls": 0.0, "imrad": 0.0, "entropy": 0.5}})
    assert fuse(signals, custom) == pytest.approx(1.0 * 0.2 + 0.5 * 0.9)


@pytest.mark.unit
def test_signals():
    assert imrad_diversity(["introduction", "methods", "methods", "body"]) == pytest.approx(2 / 3)
    assert imrad_diversity(["introduction", "methods", "results", "discussion"]) == 1.0
    # 4 words, each once: entropy = log2(4) = 2 bits -> 2 / 5
    assert sketch_entropy("a b c d") == pytest.approx(2 / 5)
    assert sketch_entropy("x x x x") == 0.0 and sketch_entropy("") == 0.0
    assert sketch_entropy(" ".join(f"w{i}" for i in range(64))) == 1.0  # log2(64) = 6 bits, capped
    density = umls_density(BIO)
    assert 0 < density <= 1.0
    assert umls_density("Quarterly revenue and dividends.") == 0.0
    sketch = build_document_sketch([Chunk(id="a", text="body text", document_id="d",
                                          metadata={"content_summary": "summary first"})], 100)
    assert sketch.splitlines() == ["summary first", "body text"]
    assert len(build_document_sketch(_chunks("x" * 500), 100)) == 100


@pytest.mark.unit
@pytest.mark.parametrize(("angle", "expected_rule"), [
    ((1.0, 0.2), "tier1_fusion_biomedical"),  # margin 0.98 - 0.196 > 0.12
    ((0.2, 1.0), "tier1_fusion_general"),
    ((1.0, 1.0), "tier2_ambiguous_default"),  # margin 0: inside the band
])
def test_bands(angle, expected_rule):
    profile = classify_document_text_profile(_chunks(LONG), ["body"], _router(**PROTO_ONLY),
                                             AngleEncoder(angle))
    assert profile.rule == expected_rule
    x, y = angle[0] / math.hypot(*angle), angle[1] / math.hypot(*angle)
    assert profile.signals["prototype"] == pytest.approx(x - y)
    threshold = _router().confidence_threshold
    if profile.tier == 1:
        assert profile.confidence == pytest.approx(min(1.0, abs(x - y - threshold)))
    else:  # the default answer without an LLM is general (chosen on eval/biomed/doc_router)
        assert profile.profile is TextProfile.GENERAL and profile.confidence == 0.5
        assert "disabled" in profile.note


@pytest.mark.unit
def test_threshold_shifts_the_band_and_ambiguous_default_is_configurable():
    encoder = AngleEncoder((1.0, 0.8))  # margin about 0.16
    assert classify_document_text_profile(_chunks("t"), [], _router(**PROTO_ONLY), encoder).rule == \
        "tier1_fusion_biomedical"
    shifted = _router(**PROTO_ONLY, confidence_threshold=0.1, ambiguous_default="general")
    profile = classify_document_text_profile(_chunks(LONG), [], shifted, encoder)
    assert (profile.profile, profile.rule) == (TextProfile.GENERAL, "tier2_ambiguous_default")
    biomedical = _router(**PROTO_ONLY, confidence_threshold=0.1, ambiguous_default="biomedical")
    assert classify_document_text_profile(_chunks(LONG), [], biomedical, encoder).profile is TextProfile.BIOMEDICAL


@pytest.mark.unit
def test_a_document_too_short_to_judge_gets_the_short_default_in_the_band():
    """In the band (margin 0) without an LLM: under short_chars (500) characters of text the short default
    (biomedical), from 500 on the ambiguous default (general); short_chars 0 turns the rule off."""
    band = AngleEncoder((1.0, 1.0))
    short = classify_document_text_profile(_chunks("x" * 300, "y" * 199), [], _router(**PROTO_ONLY), band)
    assert (short.profile, short.rule, short.tier) == (TextProfile.BIOMEDICAL, "tier2_short_default", 2)
    assert short.confidence == 0.5 and "disabled" in short.note
    long = classify_document_text_profile(_chunks("x" * 300, "y" * 200), [], _router(**PROTO_ONLY), band)
    assert (long.profile, long.rule) == (TextProfile.GENERAL, "tier2_ambiguous_default")
    off = classify_document_text_profile(_chunks("x" * 10), [], _router(**PROTO_ONLY, short_chars=0), band)
    assert off.rule == "tier2_ambiguous_default"
    general = _router(**PROTO_ONLY, short_default="general")
    assert classify_document_text_profile(_chunks("x" * 10), [], general, band).profile is TextProfile.GENERAL
    strong = classify_document_text_profile(_chunks("x" * 10), [], _router(**PROTO_ONLY), AngleEncoder((0.2, 1.0)))
    assert strong.rule == "tier1_fusion_general"  # Tier-1 outside the band still decides a short text


@pytest.mark.unit
def test_prototype_file_shape(tmp_path):
    protos = load_prototypes()
    assert len(protos.biomedical) == 5 and len(protos.general) == 3
    bad = tmp_path / "bad.yaml"
    bad.write_text("biomedical: {a: text}\n")
    with pytest.raises(ValueError, match="general"):
        load_prototypes(str(bad))
    with pytest.raises(ValueError, match="doc_semantic_router"):
        parse_options({"doc_semantic_router": {"llm_margn": 0.2}})


# ----------------------------------------------------------------------------- Tier-2, a fake LLM


class FakeLLM(BaseHTTPRequestHandler):
    requests: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeLLM.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        if self.path.startswith("/slow"):
            time.sleep(1.5)
        if self.path.startswith("/garbage"):
            payload = b"<html>502 bad gateway</html>"
        else:
            answer = '```json\n{"profile": "general", "confidence": 0.83, "rationale": "earnings release"}\n```'
            payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": answer}}]}).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):  # the client timed out first (the /slow case)
            pass

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def llm_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeLLM)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _llm(base_url: str, **extra: Any) -> DocRouterOptions:
    llm = {"enabled": True, "base_url": base_url, "model": "fake-model", "timeout_s": 0.5, **extra}
    return _router(**PROTO_ONLY, llm=llm)


@pytest.mark.unit
def test_tier2_parsable_answer(llm_url):
    FakeLLM.requests.clear()
    options = _llm(f"{llm_url}/ok/v1", api_key_env="FAKE_KEY", max_sketch_chars=100)
    profile = classify_document_text_profile(_chunks("x" * 300), [], options, AngleEncoder((1.0, 1.0)),
                                             environ={"FAKE_KEY": "sekret"})
    assert (profile.profile, profile.rule, profile.tier, profile.confidence) == (
        TextProfile.GENERAL, "tier2_llm", 2, 0.83)
    assert profile.note == "earnings release"
    [request] = FakeLLM.requests
    assert request["path"] == "/ok/v1/chat/completions" and request["auth"] == "Bearer sekret"
    assert request["body"]["model"] == "fake-model" and request["body"]["temperature"] == 0
    assert len(request["body"]["messages"][1]["content"]) == 100
    assert "Return JSON only" in request["body"]["messages"][0]["content"]


@pytest.mark.unit
@pytest.mark.parametrize("path", ["/garbage/v1", "/slow/v1"])
def test_tier2_garbage_or_timeout_falls_back(llm_url, path):
    started = time.perf_counter()
    profile = classify_document_text_profile(_chunks(LONG), [], _llm(llm_url + path), AngleEncoder((1.0, 1.0)))
    assert (profile.profile, profile.rule, profile.confidence) == (TextProfile.GENERAL, "tier2_ambiguous_default",
                                                                   0.5)
    assert profile.note and time.perf_counter() - started < 1.4


@pytest.mark.unit
def test_tier2_unreachable_and_unconfigured():
    with pytest.raises(LlmRouterError, match="failed"):
        llm_arbitrate("x", _llm("http://127.0.0.1:9").llm)
    with pytest.raises(LlmRouterError, match="base_url and model"):
        llm_arbitrate("x", _router(llm={"enabled": True}).llm)
    with pytest.raises(LlmRouterError, match="http"):
        llm_arbitrate("x", _llm("file:///etc/passwd").llm)


@pytest.mark.unit
@pytest.mark.parametrize(("content", "ok"), [
    ('{"profile": "biomedical", "confidence": 0.9}', True),
    ('Sure! {"profile": "GENERAL", "confidence": 1, "rationale": "r"} hope it helps', True),
    ('{"profile": "legal", "confidence": 0.9}', False),
    ('{"profile": "general", "confidence": 7}', False),
    ("no json here", False),
])
def test_parse_verdict(content, ok):
    raw = json.dumps({"choices": [{"message": {"content": content}}]}).encode()
    if ok:
        assert parse_verdict(raw).profile in ("biomedical", "general")
    else:
        with pytest.raises(LlmRouterError):
            parse_verdict(raw)


@pytest.mark.integration
def test_real_bundled_encoder_tells_an_abstract_from_an_earnings_release():
    from eagle_rag.encoders import bundled_bge_small

    encoder = bundled_bge_small("pubmedbert").load()
    abstract = ("Background: In a randomized placebo-controlled trial, patients with chronic myeloid leukemia "
                "received imatinib 400 mg daily. Results: Complete cytogenetic response was 76%; adverse events "
                "included edema and neutropenia. Conclusions: Imatinib improved survival.")
    bio = classify_document_text_profile(_chunks(abstract), ["introduction", "results", "conclusion"], _router(),
                                         encoder)
    gen = classify_document_text_profile(_chunks(EARNINGS + " " + EARNINGS), ["body"], _router(), encoder)
    assert (bio.profile, bio.rule) == (TextProfile.BIOMEDICAL, "tier1_fusion_biomedical")
    # below the cut (-0.05 + 0.12): in the band, which Tier-2 decides; without an LLM the default, general
    assert (gen.profile, gen.rule) == (TextProfile.GENERAL, "tier2_ambiguous_default")
    # the release alone (330 characters) is too short to judge: in the band, the short default
    short = classify_document_text_profile(_chunks(EARNINGS), ["body"], _router(), encoder)
    assert len(EARNINGS) < 500 and (short.profile, short.rule) == (TextProfile.BIOMEDICAL, "tier2_short_default")
    assert gen.signals["score"] < 0.07 < bio.signals["score"]
    assert bio.signals["prototype"] > 0 > gen.signals["prototype"]

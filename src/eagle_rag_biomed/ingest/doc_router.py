"""The tiered document router (TDR): is a document biomedical (domain encoders) or general (core encoder)?

- **Tier-0**: ``doc_semantic_router.enabled`` false -> biomedical, confidence 0.5, rule
  ``router_disabled_default``. A document from a biomedical-only source format
  (SPL label, compound file, PubMed/PMC XML, medical image) is biomedical without fusion (rule
  ``source_type``, confidence 1.0).
- **Tier-1**: four signals of the document sketch, fused with weights overridable in
  ``doc_semantic_router.fusion.weights``::

      score = 0.55*proto_margin + 0.25*umls_density + 0.15*imrad_diversity + 0.05*sketch_entropy

  ``proto_margin`` = max cosine to the biomedical prototypes - max cosine to the general ones (the
  sketch and prototypes embedded with the ``pubmedbert`` label's encoder; 0 when it cannot load);
  ``umls_density`` = unique ontology entities / sqrt(len(sketch) in characters), at most 1;
  ``imrad_diversity`` = distinct IMRaD sections / 3, at most 1; ``sketch_entropy`` = Shannon entropy
  (bits) of the word frequencies / 5, at most 1. score > threshold + margin -> biomedical
  (``tier1_fusion_biomedical``), score < threshold - margin -> general (``tier1_fusion_general``);
  the confidence is min(1, |score - threshold|).
- **Tier-2** (the band between): an LLM verdict (:func:`llm_arbitrate`, below: any OpenAI-compatible
  chat endpoint, off by default; rule ``tier2_llm``), else the ``ambiguous_default`` (rule
  ``tier2_ambiguous_default``, confidence 0.5), or for a document shorter than ``short_chars`` (too
  short for the signals) the ``short_default`` (rule ``tier2_short_default``). Every LLM problem
  raises :class:`LlmRouterError` and falls back to the default. See docs/biomed.md, "The document router".
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from http.client import HTTPException
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from eagle_rag.plugin_api import Chunk, TextEncoder
from eagle_rag_biomed.ingest.sections import IMRAD
from eagle_rag_biomed.options import DocRouterOptions, RouterLlmOptions

PROTOTYPES_FILE = "doc_profile_prototypes.yaml"
BIOMEDICAL_SOURCES = frozenset({"drug_label", "compound", "pubmed", "pmc", "image", "dicom", "nifti"})
SKETCH_NODES = 8
_WORD = re.compile(r"[a-z0-9]+")


class TextProfile(StrEnum):
    BIOMEDICAL = "biomedical"
    GENERAL = "general"


@dataclass(frozen=True)
class DocumentTextProfile:
    """The router's answer for one document, with the Tier-1 signals when they were computed.

    ``note`` is the LLM's rationale (rule ``tier2_llm``) or why Tier-2 gave no verdict.
    """

    profile: TextProfile
    confidence: float
    rule: str
    tier: int
    signals: Mapping[str, float] = field(default_factory=dict)
    note: str = ""

    def metadata(self) -> dict[str, str | float | int]:
        """The chunk metadata keys the classifiers read (``biomed_text_profile*``)."""
        return {"biomed_text_profile": self.profile.value, "biomed_text_profile_rule": self.rule,
                "biomed_text_profile_confidence": round(self.confidence, 4), "biomed_text_profile_tier": self.tier}


@dataclass(frozen=True)
class Prototypes:
    biomedical: tuple[str, ...]
    general: tuple[str, ...]


@lru_cache(maxsize=8)
def load_prototypes(path: str = "") -> Prototypes:
    """The prototype texts of ``path`` (a YAML file) or of the packaged file. Raises ValueError if malformed."""
    text = (Path(path).read_text(encoding="utf-8") if path else
            resources.files("eagle_rag_biomed").joinpath("data", PROTOTYPES_FILE).read_text(encoding="utf-8"))
    data = yaml.safe_load(text) or {}
    groups = {}
    for key in ("biomedical", "general"):
        group = data.get(key) if isinstance(data, dict) else None
        if not isinstance(group, dict) or not group or not all(isinstance(v, str) and v for v in group.values()):
            raise ValueError(f"{path or PROTOTYPES_FILE}: {key!r} must map names to non-empty texts")
        groups[key] = tuple(group.values())
    return Prototypes(groups["biomedical"], groups["general"])


_VEC_LOCK = threading.Lock()
_VEC_CACHE: dict[tuple[int, int], tuple[TextEncoder, Prototypes, np.ndarray, np.ndarray]] = {}


def _prototype_vectors(encoder: TextEncoder, protos: Prototypes) -> tuple[np.ndarray, np.ndarray]:
    key = (id(encoder), id(protos))
    with _VEC_LOCK:
        hit = _VEC_CACHE.get(key)
        if hit is not None and hit[0] is encoder and hit[1] is protos:
            return hit[2], hit[3]
    bio = np.asarray(encoder.encode_passages(list(protos.biomedical)), dtype=np.float64)
    gen = np.asarray(encoder.encode_passages(list(protos.general)), dtype=np.float64)
    with _VEC_LOCK:
        _VEC_CACHE[key] = (encoder, protos, bio, gen)
    return bio, gen


def build_document_sketch(chunks: Sequence[Chunk], max_chars: int) -> str:
    """Content summaries first, then the text of the first 8 chunks, cut to ``max_chars``."""
    parts = [str(c.metadata["content_summary"]) for c in chunks if c.metadata.get("content_summary")]
    parts.extend(c.text for c in chunks[:SKETCH_NODES])
    return "\n".join(dict.fromkeys(p.strip() for p in parts if p.strip()))[:max_chars]


def prototype_margin(encoder: TextEncoder, sketch: str, protos: Prototypes) -> float:
    """max cos(sketch, biomedical) - max cos(sketch, general), in [-1, 1] (vectors are unit length)."""
    vec = np.asarray(encoder.encode_passages([sketch])[0], dtype=np.float64)
    bio, gen = _prototype_vectors(encoder, protos)
    return float(np.clip(float(np.max(bio @ vec)) - float(np.max(gen @ vec)), -1.0, 1.0))


def umls_density(sketch: str) -> float:
    """Unique ontology entities (keywords included) / sqrt(characters), at most 1."""
    from eagle_rag_biomed.ontology import match_entities

    if not sketch:
        return 0.0
    unique = {m.canonical.lower() for m in match_entities(sketch)}
    return min(1.0, len(unique) / math.sqrt(len(sketch)))


def imrad_diversity(sections: Sequence[str]) -> float:
    """Distinct IMRaD sections among the chunks / 3, at most 1."""
    return min(1.0, len(set(sections) & IMRAD) / 3.0)


def sketch_entropy(sketch: str) -> float:
    """Shannon entropy in bits of the lower-cased word frequencies / 5, at most 1."""
    counts = Counter(_WORD.findall(sketch.lower()))
    total = sum(counts.values())
    if total == 0:
        return 0.0
    entropy = -sum(n / total * math.log2(n / total) for n in counts.values())
    return min(1.0, entropy / 5.0)


def fuse(signals: Mapping[str, float], options: DocRouterOptions) -> float:
    """The weighted sum of the four signals (weights of ``fusion.weights``)."""
    w = options.fusion.weights
    return (w.prototype * signals["prototype"] + w.umls * signals["umls"] + w.imrad * signals["imrad"]
            + w.entropy * signals["entropy"])


def tier1_verdict(score: float, options: DocRouterOptions) -> TextProfile | None:
    """Tier-1's answer for a fused score: biomedical above ``confidence_threshold + llm_margin``,
    general below ``confidence_threshold - llm_margin``, None in the band between (Tier-2 decides)."""
    distance = score - options.confidence_threshold
    if distance > options.llm_margin:
        return TextProfile.BIOMEDICAL
    if distance < -options.llm_margin:
        return TextProfile.GENERAL
    return None


def classify_document_text_profile(chunks: Sequence[Chunk], sections: Sequence[str], options: DocRouterOptions,
                                   encoder: TextEncoder | None, source_type: str = "",
                                   environ: Mapping[str, str] | None = None) -> DocumentTextProfile:
    """Run the three tiers over one document's chunks (``sections`` aligned with them)."""
    if not options.enabled:
        return DocumentTextProfile(TextProfile.BIOMEDICAL, 0.5, "router_disabled_default", 0)
    if source_type in BIOMEDICAL_SOURCES:
        return DocumentTextProfile(TextProfile.BIOMEDICAL, 1.0, "source_type", 0)
    sketch = build_document_sketch(chunks, options.sketch_max_tokens * 4)
    signals = {"prototype": 0.0, "umls": umls_density(sketch), "imrad": imrad_diversity(sections),
               "entropy": sketch_entropy(sketch)}
    if encoder is not None and sketch:
        signals["prototype"] = prototype_margin(encoder, sketch, load_prototypes(options.prototype_config))
    score = fuse(signals, options)
    signals = {**signals, "score": score}
    confidence = min(1.0, abs(score - options.confidence_threshold))
    tier1 = tier1_verdict(score, options)
    if tier1 is not None:
        return DocumentTextProfile(tier1, confidence, f"tier1_fusion_{tier1.value}", 1, signals)
    try:
        verdict = llm_arbitrate(sketch, options.llm, environ)
    except LlmRouterError as exc:
        if sum(len(c.text) for c in chunks) < options.short_chars:
            return DocumentTextProfile(TextProfile(options.short_default), 0.5, "tier2_short_default", 2,
                                       signals, note=str(exc))
        return DocumentTextProfile(TextProfile(options.ambiguous_default), 0.5, "tier2_ambiguous_default", 2,
                                   signals, note=str(exc))
    return DocumentTextProfile(TextProfile(verdict.profile), verdict.confidence, "tier2_llm", 2, signals,
                               note=verdict.rationale)


# ----------------------------------------------------------------------------- Tier-2: LLM arbitration
PROMPT = ("Classify the document sketch as biomedical or general corporate text.\n"
          'Return JSON only: {"profile":"biomedical"|"general","confidence":0.0-1.0,"rationale":"..."}')
MAX_RESPONSE_BYTES = 1 << 20


class LlmRouterError(RuntimeError):
    """Tier-2 could not give a verdict (disabled, not configured, unreachable, timed out, unparsable)."""


@dataclass(frozen=True)
class LlmVerdict:
    """The LLM's answer: profile, confidence in [0, 1] and its one-line rationale."""

    profile: str
    confidence: float
    rationale: str = ""


def _json_object(text: str) -> dict[str, Any]:
    """The first ``{...}`` JSON object in ``text``. Raises LlmRouterError."""
    start = text.find("{")
    while start >= 0:
        try:
            obj, _ = json.JSONDecoder().raw_decode(text[start:])
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        if isinstance(obj, dict):
            return obj
        start = text.find("{", start + 1)
    raise LlmRouterError(f"no JSON object in the LLM answer: {text[:200]!r}")


def parse_verdict(raw: bytes) -> LlmVerdict:
    """The verdict in an OpenAI-style chat completion body. Raises LlmRouterError when malformed."""
    try:
        body = json.loads(raw.decode("utf-8"))
        content = body["choices"][0]["message"]["content"]
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, IndexError, TypeError) as exc:
        raise LlmRouterError(f"not an OpenAI-style chat completion ({type(exc).__name__}: {exc})") from exc
    if not isinstance(content, str):
        raise LlmRouterError("the chat completion has no text content")
    obj = _json_object(content)
    profile = str(obj.get("profile", "")).strip().lower()
    if profile not in ("biomedical", "general"):
        raise LlmRouterError(f"the LLM answered profile {obj.get('profile')!r}; expected biomedical or general")
    try:
        confidence = float(obj.get("confidence", 0.5))
    except (TypeError, ValueError) as exc:
        raise LlmRouterError(f"confidence {obj.get('confidence')!r} is not a number") from exc
    if not 0.0 <= confidence <= 1.0:
        raise LlmRouterError(f"confidence {confidence} is outside 0..1")
    return LlmVerdict(profile, confidence, str(obj.get("rationale", ""))[:300])


def llm_arbitrate(sketch: str, options: RouterLlmOptions, environ: Mapping[str, str] | None = None) -> LlmVerdict:
    """Ask the configured endpoint to classify ``sketch`` (cut to ``max_sketch_chars``).

    The API key is read from the environment variable named by ``options.api_key_env`` (sent as a
    Bearer token when set). Raises LlmRouterError when Tier-2 is off, not configured, or fails.
    """
    if not options.enabled:
        raise LlmRouterError("Tier-2 LLM arbitration is disabled (doc_semantic_router.llm.enabled)")
    if not options.base_url or not options.model:
        raise LlmRouterError("doc_semantic_router.llm needs base_url and model")
    if not options.base_url.startswith(("http://", "https://")):
        raise LlmRouterError(f"doc_semantic_router.llm.base_url must be http(s), got {options.base_url!r}")
    env = os.environ if environ is None else environ
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    key = env.get(options.api_key_env, "") if options.api_key_env else ""
    if key:
        headers["Authorization"] = f"Bearer {key}"
    payload = {"model": options.model, "temperature": 0,
               "messages": [{"role": "system", "content": PROMPT},
                            {"role": "user", "content": sketch[: options.max_sketch_chars]}]}
    request = urllib.request.Request(options.base_url.rstrip("/") + "/chat/completions",
                                     data=json.dumps(payload).encode("utf-8"), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=options.timeout_s) as response:  # noqa: S310 - http(s) only
            raw = response.read(MAX_RESPONSE_BYTES)
    except (urllib.error.URLError, HTTPException, OSError, ValueError) as exc:
        raise LlmRouterError(f"the LLM endpoint failed: {type(exc).__name__}: {exc}") from exc
    return parse_verdict(raw)

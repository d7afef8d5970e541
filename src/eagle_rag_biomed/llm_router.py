"""Tier-2 of the document router: ask an LLM through any OpenAI-compatible chat endpoint.

``POST {base_url}/chat/completions`` with ``{"model", "temperature": 0, "messages": [system, user]}``;
the reply's ``choices[0].message.content`` must hold the JSON object
``{"profile": "biomedical"|"general", "confidence": 0.0-1.0, "rationale": "..."}`` (code fences and
text around it are tolerated). Off by default (``doc_semantic_router.llm.enabled``): no LLM is
reachable from these machines. Every problem raises :class:`LlmRouterError`, and the caller falls back
to the ``ambiguous_default``.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from http.client import HTTPException
from typing import Any

from eagle_rag_biomed.options import RouterLlmOptions

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

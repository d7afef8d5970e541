"""Measure the document router on a labelled set (``eval/biomed/doc_router/documents.jsonl``).

Each labelled document (``id``, ``label`` biomedical | general, ``text``) is routed as one chunk of a
plain-text file, as ingest routes a short document: the Tier-1 signals and their fused score come
from :func:`~eagle_rag_biomed.ingest.doc_router.classify_document_text_profile`. The score does not
depend on the threshold, the margin or the ambiguous default, so :func:`decide` replays those
choices on stored scores; Tier-2 here is the ambiguous default (no LLM is reachable from the machines
the set was measured on). :func:`tune` picks the threshold and the default on one half of the set
(:func:`split_halves`) by balanced accuracy, so a large sample of real abstracts
(:func:`load_beir_corpus`, every one biomedical) can join the set's 30 biomedical documents without
outweighing its 30 general ones; eval/biomed/doc_router/README.md reports the other half.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from eagle_rag.plugin_api import Chunk, TextEncoder
from eagle_rag_biomed.ingest.doc_router import (
    DocumentTextProfile,
    TextProfile,
    classify_document_text_profile,
    tier1_verdict,
)
from eagle_rag_biomed.ingest.sections import detect_section
from eagle_rag_biomed.options import DocRouterOptions

__all__ = ["LabelledDocument", "Outcome", "TierAccuracy", "accuracy_by_tier", "balanced_accuracy", "decide",
           "effective_cut", "load_beir_corpus", "load_labelled_set", "route_set", "split_halves", "tune"]

TIERS = ("tier1", "tier2", "all")
THRESHOLDS = tuple(round(-0.2 + 0.005 * i, 3) for i in range(121))  # -0.200 .. 0.400


@dataclass(frozen=True)
class LabelledDocument:
    """One document of the set: its id, its true label and its text."""

    id: str
    label: TextProfile
    text: str


@dataclass(frozen=True)
class Outcome:
    """One routed document: the router's fused score and, for given options, its answer and tier."""

    document: LabelledDocument
    score: float
    profile: TextProfile
    tier: int

    @property
    def correct(self) -> bool:
        return self.profile is self.document.label


@dataclass(frozen=True)
class TierAccuracy:
    """Documents a tier answered and how many of them it got right."""

    documents: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.documents if self.documents else 0.0


def load_labelled_set(path: Path) -> list[LabelledDocument]:
    """The documents of a JSONL file. Raises ValueError naming the line of a malformed record."""
    docs: list[LabelledDocument] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            docs.append(LabelledDocument(str(row["id"]), TextProfile(row["label"]), str(row["text"])))
        except (json.JSONDecodeError, KeyError, ValueError, TypeError) as exc:
            raise ValueError(f"{path.name}:{number}: not a labelled document ({exc})") from exc
    return docs


def load_beir_corpus(path: Path, label: TextProfile, prefix: str = "") -> list[LabelledDocument]:
    """The records of a BEIR ``corpus.jsonl`` as labelled documents (title, a newline, then the text), each
    with ``label`` and the id ``prefix + _id``. Raises ValueError naming the line of a malformed record."""
    docs: list[LabelledDocument] = []
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                text = f"{row.get('title') or ''}\n{row.get('text') or ''}".strip()
                docs.append(LabelledDocument(prefix + str(row["_id"]), label, text))
            except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
                raise ValueError(f"{path.name}:{number}: not a BEIR corpus record ({exc})") from exc
    return docs


def split_halves(docs: Sequence[LabelledDocument]) -> tuple[list[LabelledDocument], list[LabelledDocument]]:
    """(tuning half, test half): the 1st, 3rd, 5th ... document of each label, then the 2nd, 4th ..."""
    seen: dict[TextProfile, int] = {}
    tune_half: list[LabelledDocument] = []
    test_half: list[LabelledDocument] = []
    for doc in docs:
        seen[doc.label] = seen.get(doc.label, 0) + 1
        (tune_half if seen[doc.label] % 2 else test_half).append(doc)
    return tune_half, test_half


def route_set(docs: Iterable[LabelledDocument], options: DocRouterOptions,
              encoder: TextEncoder | None) -> list[tuple[LabelledDocument, DocumentTextProfile]]:
    """Each document routed as one chunk of a plain-text file with ``options`` and ``encoder``."""
    out = []
    for doc in docs:
        chunk = Chunk(id=doc.id, text=doc.text, document_id=doc.id)
        profile = classify_document_text_profile([chunk], [detect_section((), doc.text)], options, encoder, "text")
        out.append((doc, profile))
    return out


def decide(scored: Iterable[tuple[LabelledDocument, float]], options: DocRouterOptions) -> list[Outcome]:
    """The router's answers for stored fused scores under ``options`` (Tier-2 = ``ambiguous_default``; the
    short-text rule, ``short_default``, is not replayed: the stored scores carry no text)."""
    out = []
    for doc, score in scored:
        verdict = tier1_verdict(score, options)
        if verdict is None:
            out.append(Outcome(doc, score, TextProfile(options.ambiguous_default), 2))
        else:
            out.append(Outcome(doc, score, verdict, 1))
    return out


def accuracy_by_tier(outcomes: Sequence[Outcome]) -> dict[str, TierAccuracy]:
    """``tier1``, ``tier2`` and ``all``: documents answered and answered right."""
    def tally(items: list[Outcome]) -> TierAccuracy:
        return TierAccuracy(len(items), sum(o.correct for o in items))

    return {"tier1": tally([o for o in outcomes if o.tier == 1]),
            "tier2": tally([o for o in outcomes if o.tier == 2]), "all": tally(list(outcomes))}


def balanced_accuracy(outcomes: Sequence[Outcome]) -> float:
    """The mean over the labels present of the share of their documents routed right.

    On a set with as many documents of each label this is the plain accuracy; with 2,600 abstracts
    beside 15 general documents it still weighs both kinds of error alike.
    """
    shares = []
    for label in TextProfile:
        mine = [o for o in outcomes if o.document.label is label]
        if mine:
            shares.append(sum(o.correct for o in mine) / len(mine))
    return sum(shares) / len(shares) if shares else 0.0


def effective_cut(options: DocRouterOptions) -> float:
    """The score above which a document is biomedical when Tier-2 is the ambiguous default."""
    if options.ambiguous_default == TextProfile.GENERAL.value:
        return options.confidence_threshold + options.llm_margin
    return options.confidence_threshold - options.llm_margin


def tune(scored: Sequence[tuple[LabelledDocument, float]], base: DocRouterOptions) -> DocRouterOptions:
    """``base`` with the threshold and ambiguous default of the best balanced accuracy on ``scored``.

    The margin stays ``base.llm_margin``: it only decides which documents an LLM would see, and no
    LLM is measured here. Ties go to the lowest effective cut (more documents biomedical: the
    plugin's domain, as before), then to the ``general`` default (an LLM, when configured, then sees
    the documents near the cut from below, fewer in a biomedical corpus).
    """
    best: tuple[float, float, bool] | None = None
    chosen = base
    for default in ("general", "biomedical"):
        for threshold in THRESHOLDS:
            options = base.model_copy(update={"confidence_threshold": threshold, "ambiguous_default": default})
            key = (round(balanced_accuracy(decide(scored, options)), 9), -round(effective_cut(options), 6),
                   default == "general")
            if best is None or key > best:
                best, chosen = key, options
    return chosen

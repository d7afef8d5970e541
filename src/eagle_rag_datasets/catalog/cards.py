"""The dataset card: one catalog entry, typed and immutable."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from eagle_rag_datasets.catalog.facets import license_id, normalize_language, normalize_task


@dataclass(frozen=True)
class LicenseVerdict:
    """A checked licence conclusion: the verdict, the evidence behind it, and when it was verified."""

    verdict: str
    evidence: tuple[str, ...] = ()
    verified: date | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "evidence": list(self.evidence),
            "verified": self.verified.isoformat() if self.verified else None,
        }


@dataclass(frozen=True)
class DatasetCard:
    """One dataset card.

    ``description`` is the main description; ``description_zh`` an optional second one in Chinese
    (a card may be described in one or two languages). ``kind``: "dataset" (the default), "model",
    "tool", "product", "article" or "link"; inferred when absent (:mod:`eagle_rag_datasets.catalog.kinds`).
    ``license`` is the licence as the source states it; :attr:`license_id` its normalised identifier
    (``cc-by-4.0``, ``unknown``, ...).
    """

    id: str
    name: str
    aliases: tuple[str, ...] = ()
    description: str = ""
    description_zh: str = ""
    tags: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    license: str | None = None
    license_verdict: LicenseVerdict | None = None
    homepage: str | None = None
    source: str | None = None
    kind: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def license_id(self) -> str:
        return license_id(self.license)

    @property
    def language_codes(self) -> frozenset[str]:
        return frozenset(normalize_language(lang) for lang in self.languages)

    @property
    def task_labels(self) -> frozenset[str]:
        return frozenset(normalize_task(task) for task in self.tasks)

    def to_dict(self) -> dict[str, Any]:
        """The card as plain JSON-ready data (the ingest format, plus ``license_id``)."""
        out: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "aliases": list(self.aliases),
            "description": self.description,
            "tags": list(self.tags),
            "tasks": list(self.tasks),
            "languages": list(self.languages),
            "license": self.license,
            "license_id": self.license_id,
            "homepage": self.homepage,
            "source": self.source,
        }
        if self.kind:
            out["kind"] = self.kind
        if self.description_zh:
            out["description_zh"] = self.description_zh
        if self.license_verdict is not None:
            out["license_verdict"] = self.license_verdict.to_dict()
        return out

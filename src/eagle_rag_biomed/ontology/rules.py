"""The curated routing rules (``data/routing_rules.yaml``): entities, keywords, suffixes, SMILES.

:func:`load_routing_rules` validates the file and returns typed, immutable objects. A malformed
file raises :class:`RoutingRulesError` naming the entity and the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

RULES_FILE = "routing_rules.yaml"


class RoutingRulesError(ValueError):
    """The routing rules file is malformed."""


class EntityType(StrEnum):
    """Entity types of the curated rules, the compiled vocabulary and MRCONSO."""

    GENE = "gene"
    DRUG = "drug"
    DISEASE = "disease"
    PATHWAY = "pathway"
    CHEMICAL = "chemical"
    CONCEPT = "concept"
    KEYWORD = "keyword"

    @classmethod
    def from_str(cls, value: str) -> EntityType:
        """Parse a type name; the error lists the valid names."""
        try:
            return cls(value)
        except ValueError:
            valid = ", ".join(member.value for member in cls)
            raise ValueError(f"unknown entity type {value!r}; valid: {valid}") from None


GROUP_TYPES: dict[str, EntityType] = {
    "targets": EntityType.GENE,
    "drugs": EntityType.DRUG,
    "diseases": EntityType.DISEASE,
    "pathways": EntityType.PATHWAY,
}


@dataclass(frozen=True, slots=True)
class CuratedEntity:
    """One curated entity of ``routing_rules.yaml``."""

    name: str
    type: EntityType
    group: str
    aliases: tuple[str, ...]
    cui: str
    pathways: tuple[str, ...]
    related_drugs: tuple[str, ...]
    targets: tuple[str, ...] = ()
    digit_suffix: bool = False


@dataclass(frozen=True, slots=True)
class RoutingRules:
    """All of ``routing_rules.yaml``."""

    entities: tuple[CuratedEntity, ...]
    entity_keywords: tuple[str, ...]
    drug_suffixes: tuple[str, ...]
    gene_context_words: frozenset[str]
    name_aliases: Mapping[str, str]
    drug_suffix_exceptions: frozenset[str] = frozenset()
    """Words that end in a drug stem but name no drug (``cryostat``)."""


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str | int) for item in value):
        raise RoutingRulesError(f"{where}: expected a list of strings, got {value!r}")
    return tuple(str(item).strip() for item in value if str(item).strip())


def _entity(name: str, group: str, body: Any) -> CuratedEntity:
    where = f"entities.{group}.{name}"
    if not isinstance(body, dict):
        raise RoutingRulesError(f"{where}: expected a mapping")
    unknown = set(body) - {"aliases", "cui", "pathways", "related_drugs", "targets", "digit_suffix"}
    if unknown:
        raise RoutingRulesError(f"{where}: unknown fields {sorted(unknown)}")
    cui = str(body.get("cui") or "").strip()
    if cui and not (cui.startswith("C") and cui[1:].isdigit() and len(cui) == 8):
        raise RoutingRulesError(f"{where}.cui: not a UMLS CUI: {cui!r}")
    return CuratedEntity(
        name=name, type=GROUP_TYPES[group], group=group, aliases=_strings(body.get("aliases"), where),
        cui=cui, pathways=_strings(body.get("pathways"), where),
        related_drugs=_strings(body.get("related_drugs"), where),
        targets=_strings(body.get("targets"), where), digit_suffix=bool(body.get("digit_suffix", False)),
    )


def parse_routing_rules(data: Any) -> RoutingRules:
    """Validate the parsed YAML document and build :class:`RoutingRules`."""
    if not isinstance(data, dict) or not isinstance(data.get("entities"), dict):
        raise RoutingRulesError("routing rules: expected a mapping with an 'entities' mapping")
    entities: list[CuratedEntity] = []
    for group, members in data["entities"].items():
        if group not in GROUP_TYPES:
            raise RoutingRulesError(f"entities.{group}: unknown group; valid: {', '.join(GROUP_TYPES)}")
        if not isinstance(members, dict):
            raise RoutingRulesError(f"entities.{group}: expected a mapping of entities")
        entities.extend(_entity(str(name), group, body) for name, body in members.items())
    matching = data.get("matching") or {}
    aliases = (data.get("chemical") or {}).get("name_aliases") or {}
    if not isinstance(aliases, dict):
        raise RoutingRulesError("chemical.name_aliases: expected a mapping of name -> SMILES")
    return RoutingRules(
        entities=tuple(entities),
        entity_keywords=_strings(data.get("entity_keywords"), "entity_keywords"),
        drug_suffixes=_strings(matching.get("drug_suffixes"), "matching.drug_suffixes"),
        gene_context_words=frozenset(
            word.lower() for word in _strings(matching.get("gene_context_words"), "matching.gene_context_words")
        ),
        name_aliases={str(name).strip().lower(): str(smiles).strip() for name, smiles in aliases.items()},
        drug_suffix_exceptions=frozenset(
            word.lower() for word in _strings(matching.get("drug_suffix_exceptions"),
                                              "matching.drug_suffix_exceptions")),
    )


def load_routing_rules(path: Path | None = None) -> RoutingRules:
    """Read and validate ``path``, or the packaged rules when ``path`` is None."""
    if path is None:
        return packaged_routing_rules()
    return parse_routing_rules(yaml.safe_load(path.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def packaged_routing_rules() -> RoutingRules:
    """The packaged ``routing_rules.yaml``, read once per process."""
    text = resources.files("eagle_rag_biomed").joinpath("data", RULES_FILE).read_text(encoding="utf-8")
    return parse_routing_rules(yaml.safe_load(text))

"""The merged ontology: curated entities, compiled vocabulary and optional UMLS, one surface table.

Merge rules, in order:

1. every curated entity of ``routing_rules.yaml`` (source ``curated``) and every entity keyword
   (type ``keyword``);
2. every compiled vocabulary entry: one whose canonical name equals (normalised) the name or an
   alias of a curated entity of a compatible type is absorbed into it (its ids, its CUI when the
   curated one has none, its synonyms appended after the curated aliases); the others become
   entities of source ``compiled``;
3. every MRCONSO concept: merged into the entity with the same CUI, else the same canonical name;
   otherwise added as type ``concept``, source ``umls``, with empty pathways and related drugs.

The surface table maps each normalised name (canonical and aliases, plus a space variant of hyphens
between letters: "non-small-cell" -> "non small cell") to its candidates, best first: curated before
compiled (absorbed synonyms count as compiled) before UMLS before keywords, a canonical name before
an alias, then by type: drug, gene, disease, pathway, chemical, concept for canonical names; drug,
disease, pathway, chemical, gene, concept for aliases (HGNC aliases are the most ambiguous).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from eagle_rag_biomed.ontology.common_words import CommonWords, is_abbreviation
from eagle_rag_biomed.ontology.mrconso import UmlsConcept
from eagle_rag_biomed.ontology.normalize import fast_key, normalize_key
from eagle_rag_biomed.ontology.rules import EntityType, RoutingRules
from eagle_rag_biomed.ontology.vocabulary import VocabularyEntry

SOURCE_RANK = {"curated": 0, "compiled": 1, "umls": 2}
TYPE_RANK = {EntityType.DRUG: 0, EntityType.GENE: 1, EntityType.DISEASE: 2, EntityType.PATHWAY: 3,
             EntityType.CHEMICAL: 4, EntityType.CONCEPT: 5, EntityType.KEYWORD: 6}
# HGNC aliases are the most ambiguous synonyms ("SIDS" is an alias of IDS): as aliases, genes come last.
ALIAS_TYPE_RANK = {EntityType.DRUG: 0, EntityType.DISEASE: 1, EntityType.PATHWAY: 2, EntityType.CHEMICAL: 3,
                   EntityType.GENE: 4, EntityType.CONCEPT: 5, EntityType.KEYWORD: 6}
COMPATIBLE = {EntityType.GENE: {"gene"}, EntityType.DRUG: {"drug", "chemical"},
              EntityType.DISEASE: {"disease"}, EntityType.PATHWAY: set()}
_LETTER_HYPHEN = re.compile(r"(?<=[a-z])-(?=[a-z])")


@dataclass(slots=True)
class Entity:
    """One entity of the merged ontology (mutable only while the index is built).

    ``keys`` holds the normalised keys of ``canonical`` and then of each alias, in that order.
    """

    canonical: str
    type: EntityType
    source: str
    cui: str = ""
    aliases: list[str] = field(default_factory=list)
    pathways: tuple[str, ...] = ()
    related_drugs: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    ids: dict[str, str] = field(default_factory=dict)
    digit_suffix: bool = False
    keys: list[str] = field(default_factory=list, repr=False)
    curated_forms: int = 0  # canonical + curated aliases; later aliases were absorbed or merged
    match_canonical: bool = True  # False for a compiled canonical name that is a common word ("Water")

    def __post_init__(self) -> None:
        if not self.keys:
            self.keys.append(normalize_key(self.canonical))

    def add_alias(self, alias: str) -> None:
        """Append ``alias`` unless its normalised key is already known."""
        key = normalize_key(alias)
        if key and key not in self.keys:
            self.keys.append(key)
            self.aliases.append(alias)


class Candidate(NamedTuple):
    """An entity a surface key may stand for, with the guard that decides when it may match.

    ``curated`` is true for the curated name and aliases of a curated entity (not for synonyms it
    absorbed): only those take the curated precedence and the ``digit_suffix`` rule.
    """

    entity: Entity
    form: str  # the surface form as written in the source (for the case guard)
    guarded: bool
    rank: tuple[int, int, int]
    curated: bool


def is_guarded(form: str, key: str, type_: EntityType, source: str, common: CommonWords) -> bool:
    """Whether a surface form (``key`` is its normalised form) may match only when written in upper
    case or exactly as in the source (or, for genes, next to a gene context word).

    Genes: single words that are common English words (``CAT``, ``SET``, ``MET``) and symbols of one
    or two characters. Other types: abbreviations (mixed or upper case) that are common words
    (``cAMP``, ``AIDS``, ``NET``); for curated entities only the tier-1 words (``NET``, not ``COVID``).
    """
    if type_ is EntityType.KEYWORD or not key:
        return False
    if type_ is EntityType.GENE:
        return len(key) <= 2 or (key in common.tiers and key.isalpha())
    if key not in common.tiers or not key.isalpha() or not is_abbreviation(form):
        return False
    return common.tiers[key] == 1 if source == "curated" else True


class OntologyIndex:
    """Entities and the surface table; built once, then read-only.

    ``keys[slot]`` is a surface key and ``candidates(slot)`` its candidates, best first (computed on
    first use: a query touches a handful of slots, the table has about 300,000).
    """

    def __init__(self, entities: list[Entity], common: CommonWords) -> None:
        self.entities = entities
        self.common = common
        self.slots: dict[str, int] = {}
        self.keys: list[str] = []
        self._refs: list[list[int]] = []  # per slot: entity index << 16 | form position
        self._cache: dict[int, list[Candidate]] = {}
        slots, keys, refs = self.slots, self.keys, self._refs
        for index, entity in enumerate(entities):
            base = index << 16
            for position, key in enumerate(entity.keys):
                if position == 0 and not entity.match_canonical:
                    continue
                variants: tuple[str, ...] = (key,)
                if "-" in key and (spaced := _LETTER_HYPHEN.sub(" ", key)) != key:
                    variants = (key, spaced)
                for variant in variants:
                    slot = slots.get(variant)
                    if slot is None:
                        slots[variant] = len(keys)
                        keys.append(variant)
                        refs.append([base | position])
                    else:
                        refs[slot].append(base | position)

    def candidates(self, slot: int) -> list[Candidate]:
        """Candidates of a surface slot, best first, one per entity."""
        cached = self._cache.get(slot)
        if cached is not None:
            return cached
        found: list[Candidate] = []
        seen: set[int] = set()
        for ref in self._refs[slot]:
            entity = self.entities[ref >> 16]
            position = ref & 0xFFFF
            if id(entity) in seen:
                continue
            seen.add(id(entity))
            form = entity.canonical if position == 0 else entity.aliases[position - 1]
            curated = position < entity.curated_forms
            source = 3 if entity.type is EntityType.KEYWORD else 0 if curated else max(
                SOURCE_RANK.get(entity.source, 3), 1)
            guarded = is_guarded(form, entity.keys[position], entity.type,
                                 "curated" if curated else entity.source, self.common)
            type_rank = (ALIAS_TYPE_RANK if position else TYPE_RANK)[entity.type]
            found.append(Candidate(entity, form, guarded, (source, min(position, 1), type_rank), curated))
        found.sort(key=lambda c: c.rank)  # stable: entity order breaks ties
        self._cache[slot] = found
        return found

    def resolve(self, name: str) -> Entity | None:
        """The best entity named ``name`` exactly (normalised), with no guard; None when unknown."""
        key = normalize_key(name)
        slot = self.slots.get(key)
        if slot is None:
            slot = self.slots.get(_LETTER_HYPHEN.sub(" ", key))
        return self.candidates(slot)[0].entity if slot is not None else None


def build_entities(rules: RoutingRules, vocabulary: Iterable[VocabularyEntry],
                   umls: Mapping[str, UmlsConcept]) -> list[Entity]:
    """Merge curated rules, compiled entries and UMLS concepts (rules in the module docstring)."""
    entities: list[Entity] = []
    curated_by_key: dict[str, Entity] = {}
    for item in rules.entities:
        entity = Entity(item.name, item.type, "curated", item.cui, pathways=item.pathways,
                        related_drugs=item.related_drugs, targets=item.targets, digit_suffix=item.digit_suffix)
        for alias in item.aliases:
            entity.add_alias(alias)
        entity.curated_forms = len(entity.keys)
        entities.append(entity)
        for key in entity.keys:
            curated_by_key.setdefault(key, entity)
    for word in rules.entity_keywords:
        entities.append(Entity(word, EntityType.KEYWORD, "curated", curated_forms=1))
    types = {t.value: t for t in EntityType}
    for entry in vocabulary:
        if entry.type not in types:
            raise ValueError(f"vocabulary entry {entry.canonical!r}: unknown type {entry.type!r}")
        owner = curated_by_key.get(fast_key(entry.canonical))
        if owner is not None and entry.type in COMPATIBLE.get(owner.type, set()):
            owner.ids = {**entry.ids, **owner.ids}
            owner.cui = owner.cui or entry.ids.get("cui", "")
            for synonym in (entry.synonyms if entry.nomatch else (entry.canonical, *entry.synonyms)):
                owner.add_alias(synonym)
            continue
        entities.append(Entity(entry.canonical, types[entry.type], "compiled", entry.ids.get("cui", ""),
                               aliases=list(entry.synonyms), ids=entry.ids,  # ids: copied on write
                               match_canonical=not entry.nomatch,
                               keys=[fast_key(s) for s in (entry.canonical, *entry.synonyms)]))
    _merge_umls(entities, umls)
    return entities


def _merge_umls(entities: list[Entity], umls: Mapping[str, UmlsConcept]) -> None:
    if not umls:
        return
    by_cui: dict[str, Entity] = {}
    by_name: dict[str, Entity] = {}
    for entity in entities:
        if entity.type is not EntityType.KEYWORD:
            if entity.cui:
                by_cui.setdefault(entity.cui, entity)
            by_name.setdefault(normalize_key(entity.canonical), entity)
    for key, concept in umls.items():
        target = by_cui.get(concept.cui) or by_name.get(key)
        if target is None:
            target = Entity(concept.canonical, EntityType.CONCEPT, "umls", concept.cui)
            entities.append(target)
        target.cui = target.cui or concept.cui
        target.ids = {"cui": concept.cui, **target.ids}  # a new dict: compiled ids are shared
        for alias in concept.aliases:
            target.add_alias(alias)

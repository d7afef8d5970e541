"""Public entity API of the biomed plugin, over the merged ontology.

The ontology (curated ``routing_rules.yaml`` + compiled ``vocabulary.json.gz`` + the optional
MRCONSO file named by ``EAGLE_BIOMED_UMLS_MRCONSO_PATH``) is built lazily on first use, once per
process, and shared by all threads; :func:`reset_ontology_cache` drops it (tests, a new MRCONSO).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eagle_rag_biomed.ontology.common_words import packaged_common_words
from eagle_rag_biomed.ontology.index import Entity, OntologyIndex, build_entities
from eagle_rag_biomed.ontology.matcher import EntityMatch, EntityMatcher
from eagle_rag_biomed.ontology.mrconso import load_umls_metathesaurus, mrconso_path_from_env
from eagle_rag_biomed.ontology.normalize import normalize_key
from eagle_rag_biomed.ontology.rules import EntityType, RoutingRules, packaged_routing_rules
from eagle_rag_biomed.ontology.vocabulary import packaged_vocabulary

EXPANSION_LIMIT = 12
MAX_EXPANSION_ALIAS = 40
_WORD_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9-]*[A-Za-z]")


@dataclass(frozen=True, slots=True)
class Ontology:
    """The loaded ontology: rules, index, matcher, drug-suffix pattern and load time (s)."""

    rules: RoutingRules
    index: OntologyIndex
    matcher: EntityMatcher
    drug_suffix: re.Pattern[str]
    load_seconds: float


def build_ontology(rules: RoutingRules | None = None, vocabulary: Any = None,
                   environ: Mapping[str, str] | None = None) -> Ontology:
    """Build an ontology; None arguments mean the packaged rules and vocabulary and ``os.environ``."""
    started = time.perf_counter()
    rules = rules or packaged_routing_rules()
    entries = packaged_vocabulary() if vocabulary is None else vocabulary
    umls = load_umls_metathesaurus(mrconso_path_from_env(environ))
    common = packaged_common_words()
    index = OntologyIndex(build_entities(rules, entries, umls), common)
    matcher = EntityMatcher(index, rules.gene_context_words)
    suffixes = "|".join(sorted((re.escape(s.lower()) for s in rules.drug_suffixes), key=len, reverse=True))
    exceptions = "|".join(sorted(re.escape(w) for w in rules.drug_suffix_exceptions))
    not_drug = rf"(?!(?:{exceptions})$)" if exceptions else ""
    pattern = re.compile(rf"^{not_drug}[a-z][a-z0-9-]{{2,}}(?:{suffixes})$" if suffixes else r"(?!)")
    return Ontology(rules, index, matcher, pattern, time.perf_counter() - started)


_LOCK = threading.Lock()
_ONTOLOGY: Ontology | None = None


def get_ontology() -> Ontology:
    """The process-wide ontology, built on first call (thread-safe)."""
    global _ONTOLOGY
    if _ONTOLOGY is None:
        with _LOCK:
            if _ONTOLOGY is None:
                _ONTOLOGY = build_ontology()
    return _ONTOLOGY


def set_ontology(ontology: Ontology | None) -> None:
    """Replace the process-wide ontology (None: rebuild lazily on next use)."""
    global _ONTOLOGY
    with _LOCK:
        _ONTOLOGY = ontology


def reset_ontology_cache() -> None:
    """Forget the process-wide ontology; the next call rebuilds it (re-reading the environment)."""
    set_ontology(None)


def match_entities(text: str, include_keywords: bool = True) -> list[EntityMatch]:
    """Entities (curated, compiled, UMLS) and entity keywords in ``text``, in order of appearance."""
    matches = get_ontology().matcher.match(text)
    return matches if include_keywords else [m for m in matches if m.type is not EntityType.KEYWORD]


def is_drug_name(word: str) -> bool:
    """True when ``word`` looks like a drug by its stem (-mab, -nib, -ciclib, -statin, ...)."""
    ontology = get_ontology()
    key = normalize_key(word)
    return bool(ontology.drug_suffix.match(key)) and key not in packaged_common_words()


def match_drug_entities(text: str) -> list[str]:
    """Lower-cased canonical drug names in ``text``: order of first appearance, no duplicates.

    Drugs are matched entities of type drug, matched chemicals whose name has a drug stem, and
    unknown words with a drug stem (``zongertinib``) that no other entity covers.
    """
    return drugs_in_matches(text, get_ontology().matcher.match(text))


def drugs_in_matches(text: str, matches: Sequence[EntityMatch]) -> list[str]:
    """:func:`match_drug_entities` of ``text`` from its matches (``match_entities(text)``, keywords
    included or not), so a caller that already matched the text does not match it again."""
    ontology = get_ontology()
    found: list[tuple[int, str]] = []
    for match in matches:
        if match.type is EntityType.DRUG or (
                match.type is EntityType.CHEMICAL and ontology.drug_suffix.match(normalize_key(match.canonical))):
            found.append((match.span[0], match.canonical.lower()))
    covered = [m.span for m in matches]
    for token in _WORD_TOKEN.finditer(text):
        if not any(s <= token.start() < e for s, e in covered) and is_drug_name(token.group()):
            found.append((token.start(), normalize_key(token.group())))
    names: list[str] = []
    for _, name in sorted(found, key=lambda item: item[0]):
        if name not in names:
            names.append(name)
    return names


def _entity_dict(name: str, entity: Entity | None) -> dict[str, Any]:
    if entity is None:
        return {"entity": name, "found": False, "cui": "", "aliases": [], "pathways": [],
                "related_drugs": [], "type": "", "source": "", "ids": {}}
    return {"entity": entity.canonical, "found": True, "cui": entity.cui, "aliases": list(entity.aliases),
            "pathways": list(entity.pathways), "related_drugs": list(entity.related_drugs),
            "type": entity.type.value, "source": entity.source, "ids": dict(entity.ids)}


def resolve_entity(name: str) -> dict[str, Any]:
    """``{entity, found, cui, aliases, pathways, related_drugs, type, source, ids}`` for a name.

    ``name`` is looked up exactly (normalised: case, dashes, accents, spacing); an unknown name
    gives ``found=False`` with empty fields and ``entity`` set to the name as given.
    """
    return _entity_dict(name, get_ontology().index.resolve(name))


def _loose(key: str) -> str:
    """A key with hyphens as spaces, so that "non-small-cell" and "non-small cell" count as one."""
    return key.replace("-", " ")


def _expansion_aliases(entity: Entity, seen: set[str]) -> list[str]:
    """Up to two names not yet seen: the canonical name (when the text used another), then aliases.

    Compiled variants of the canonical name ("Imatinibum", "Imatinib Mesylate") are skipped;
    curated aliases never are.
    """
    stem = entity.keys[0]
    picked: list[str] = []
    for position, (name, key) in enumerate(zip((entity.canonical, *entity.aliases), entity.keys, strict=True)):
        if len(picked) == 2:
            break
        loose = _loose(key)
        if loose in seen or len(name) > MAX_EXPANSION_ALIAS:
            continue
        if position > 0 and position >= entity.curated_forms and (stem in key or key in stem):
            continue
        seen.add(loose)
        picked.append(name)
    return picked


def expand_query_with_entities(query: str, limit: int = EXPANSION_LIMIT) -> list[str]:
    """Expansion terms: per entity, in order of first appearance, 2 names then 1 pathway.

    The 2 names are the canonical name when the query used another one ("Gleevec" -> "imatinib"),
    then the aliases in their curated order. Terms already in the query (the matched text) or
    already added are skipped; keywords add nothing; the list is truncated to ``limit``.
    """
    return expansion_terms(match_entities(query), limit)


def expansion_terms(matches: Sequence[EntityMatch], limit: int = EXPANSION_LIMIT) -> list[str]:
    """:func:`expand_query_with_entities` from the query's matches (keywords are skipped)."""
    matches = [m for m in matches if m.type is not EntityType.KEYWORD]
    seen = {_loose(normalize_key(m.text)) for m in matches}
    terms: list[str] = []
    done: set[int] = set()
    for match in matches:
        if id(match.entity) in done:
            continue
        done.add(id(match.entity))
        terms.extend(_expansion_aliases(match.entity, seen))
        for pathway in match.entity.pathways[:1]:
            if (key := _loose(normalize_key(pathway))) not in seen:
                seen.add(key)
                terms.append(pathway)
    return terms[:max(limit, 0)]


def expand_query_for_dense_retrieval(query: str) -> str:
    """``f"{query} [biomed entities: a, b, ...]"`` for dense embedding only; the query when none."""
    terms = expand_query_with_entities(query)
    return f"{query} [biomed entities: {', '.join(terms)}]" if terms else query


def name_to_smiles(name: str) -> str | None:
    """SMILES of a drug name from the curated ``chemical.name_aliases``, via any alias or synonym.

    ``"Gleevec"``, ``"STI-571"`` and ``"imatinib"`` give the imatinib SMILES; None when the name
    resolves to no entity with a curated SMILES.
    """
    aliases = get_ontology().rules.name_aliases
    key = normalize_key(name)
    if key in aliases:
        return aliases[key]
    entity = get_ontology().index.resolve(name)
    if entity is None:
        return None
    return aliases.get(normalize_key(entity.canonical))

"""Biomedical ontology and vocabulary: curated routing rules, a compiled CC0 vocabulary (DrugBank,
HGNC, Disease Ontology, MeSH), optional UMLS MRCONSO, and an Aho-Corasick entity matcher.

Public API (see ``umls.py``): :func:`match_entities`, :func:`match_drug_entities`,
:func:`resolve_entity`, :func:`expand_query_with_entities`, :func:`expand_query_for_dense_retrieval`,
:func:`name_to_smiles`, :func:`load_umls_metathesaurus`. Names are imported on first access, so the
vocabulary compiler (``compiler/``) and the rules loader work without ``pyahocorasick``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eagle_rag_biomed.ontology.matcher import EntityMatch
    from eagle_rag_biomed.ontology.mrconso import MRCONSO_ENV, UmlsConcept, load_umls_metathesaurus
    from eagle_rag_biomed.ontology.rules import EntityType, RoutingRules, load_routing_rules
    from eagle_rag_biomed.ontology.umls import (
        Ontology,
        build_ontology,
        drugs_in_matches,
        expand_query_for_dense_retrieval,
        expand_query_with_entities,
        expansion_terms,
        get_ontology,
        is_drug_name,
        match_drug_entities,
        match_entities,
        name_to_smiles,
        reset_ontology_cache,
        resolve_entity,
        set_ontology,
    )

_EXPORTS = {
    "EntityMatch": "matcher",
    "MRCONSO_ENV": "mrconso", "UmlsConcept": "mrconso", "load_umls_metathesaurus": "mrconso",
    "EntityType": "rules", "RoutingRules": "rules", "load_routing_rules": "rules",
    **dict.fromkeys([
        "Ontology", "build_ontology", "drugs_in_matches", "expand_query_for_dense_retrieval",
        "expand_query_with_entities", "expansion_terms",
        "get_ontology", "is_drug_name", "match_drug_entities", "match_entities", "name_to_smiles",
        "reset_ontology_cache", "resolve_entity", "set_ontology",
    ], "umls"),
}

__all__ = [
    "MRCONSO_ENV",
    "EntityMatch",
    "EntityType",
    "Ontology",
    "RoutingRules",
    "UmlsConcept",
    "build_ontology",
    "drugs_in_matches",
    "expand_query_for_dense_retrieval",
    "expand_query_with_entities",
    "expansion_terms",
    "get_ontology",
    "is_drug_name",
    "load_routing_rules",
    "load_umls_metathesaurus",
    "match_drug_entities",
    "match_entities",
    "name_to_smiles",
    "reset_ontology_cache",
    "resolve_entity",
    "set_ontology",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{module}"), name)

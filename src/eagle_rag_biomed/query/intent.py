"""Query intent: which biomed workflow a query belongs to, inferred from the query text only.

:func:`detect_retrieval_intent` never reads evaluation labels (a gold set's ``workflow`` field) or
anything else but the text. The workflows are tried in this order and the first cue wins:

========== ========================================================= ================== =========== =====
workflow   trigger                                                   suppress           section cues entity
========== ========================================================= ================== =========== =====
chemical   smiles / inchi / compound / ligand / molecular formula,   ()                 ("compound",) True
           or a SMILES / InChI string in the query
regulatory drug label / prescribing information / indications and    ("eagle_chemical",) from query  True
           usage / dosage and administration (+ boxed warning,
           package insert, warnings and precautions)
combination combination / combined with / co-administered / plus,    ()                 from query  True
           and two or more drugs named
drug_entity a drug named (``match_drug_entities``)                   ()                 from query  True
general    anything else                                             ()                 from query  False
========== ========================================================= ================== =========== =====

Section cues "from query": ``warning`` -> ``warnings``, ``dosage`` / ``dosing`` -> ``dosage``,
``indications`` / ``usage`` -> ``indications_and_usage``,
``contraindication`` -> ``contraindications`` and ``adverse reaction`` / ``side effect`` ->
``adverse_reactions``. Cues keep that order and appear once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum
from functools import lru_cache

from eagle_rag.plugin_api import QueryRetrievalIntent
from eagle_rag_biomed.ontology import match_drug_entities

__all__ = ["Workflow", "detect_retrieval_intent", "intent_of", "is_competitive_query", "looks_like_smiles",
           "section_cues_for", "smiles_in_query"]


class Workflow(StrEnum):
    """The five biomed workflows, in the order :func:`detect_retrieval_intent` tries them."""

    CHEMICAL = "chemical"
    REGULATORY = "regulatory"
    COMBINATION = "combination"
    DRUG_ENTITY = "drug_entity"
    GENERAL = "general"

    @classmethod
    def from_str(cls, value: str) -> Workflow:
        """Parse a workflow name; ValueError listing the valid names."""
        try:
            return cls(value.strip().lower())
        except ValueError:
            raise ValueError(f"unknown workflow {value!r}; valid: {', '.join(w.value for w in cls)}") from None


CHEMICAL_COLLECTION = "eagle_chemical"

_COMPOUND_CUE_RE = re.compile(r"\b(?:smiles|inchi(?:key)?|compounds?|ligands?|molecular\s+formula)\b", re.I)
_LABEL_CUE_RE = re.compile(
    r"\b(?:drug\s+labels?|prescribing\s+information|indications\s+and\s+usage|dosage\s+and\s+administration"
    r"|boxed\s+warnings?|package\s+inserts?|warnings\s+and\s+precautions)\b", re.I)
_COMBINATION_CUE_RE = re.compile(r"\b(?:combinations?|combined\s+with|co-?administ(?:ered|ration)|plus)\b", re.I)
_SECTION_CUES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bwarnings?\b", re.I), "warnings"),
    (re.compile(r"\b(?:dosage|dosing)\b", re.I), "dosage"),
    (re.compile(r"\b(?:indications?|usage)\b", re.I), "indications_and_usage"),
    (re.compile(r"\bcontraindications?\b", re.I), "contraindications"),
    (re.compile(r"\b(?:adverse\s+(?:reactions?|events?|effects?)|side\s+effects?)\b", re.I), "adverse_reactions"),
)
_COMPETITIVE_RE = re.compile(
    r"\b(?:compet\w*|alternatives?\s+to|instead\s+of|versus|vs\.?|compared\s+(?:with|to)|head-to-head|"
    r"landscape|rivals?|same\s+target|(?:first|second|third)-generation|other\s+\w+\s+inhibitors)\b", re.I)
_SMILES_TOKEN = re.compile(r"^[A-Za-z0-9@+\-\[\]\(\)=#$/\\%.:*]{4,}$")
_SMILES_SIGNS = re.compile(r"[()=\[\]#]|[cnos]\d|[CNOS]\d.*[CNOScnos]\d")


def is_competitive_query(query: str) -> bool:
    """True for a competitive-intelligence question ("alternatives to X", "X versus", "competitors").

    Such a query names one drug but asks about the others that share its target, so Tier-2 boosts the
    drug's related drugs too and applies no cross-drug penalty (the penalty would bury exactly the
    documents these questions want).
    """
    return bool(_COMPETITIVE_RE.search(query))


def section_cues_for(query: str) -> tuple[str, ...]:
    """The section cues the query asks for, in table order, each once."""
    return tuple(cue for pattern, cue in _SECTION_CUES if pattern.search(query))


@lru_cache(maxsize=4096)
def looks_like_smiles(token: str) -> bool:
    """True when ``token`` is a SMILES or InChI string that RDKit can read.

    A cheap shape test (SMILES characters only, at least one of ``( ) = [ ] #`` or a ring closure such
    as ``c1``) runs first, so words like "T790M" or "BRCA1/2" never reach RDKit.
    """
    text = token.strip().rstrip(".,;")
    if text.startswith("InChI="):
        return True
    if not _SMILES_TOKEN.match(text) or not _SMILES_SIGNS.search(text):
        return False
    try:
        from rdkit import Chem, rdBase
    except ImportError:  # pragma: no cover - rdkit is a dependency of the biomed extra
        return True
    with rdBase.BlockLogs():
        return Chem.MolFromSmiles(text) is not None


def smiles_in_query(query: str) -> str:
    """The first SMILES / InChI token of the query, or ""."""
    for token in query.split():
        if looks_like_smiles(token):
            return token.strip().rstrip(".,;")
    return ""


def detect_retrieval_intent(query: str) -> QueryRetrievalIntent:
    """The workflow, suppressed collections, section cues and entity requirement of ``query``.

    Deterministic and side-effect free; see the module table for the rules. The request's stages read
    it from :func:`eagle_rag_biomed.query.analysis.analysis_for` instead of calling this again.
    """
    return intent_of(query, match_drug_entities(query), smiles_in_query(query))


def intent_of(query: str, drugs: Sequence[str], smiles: str) -> QueryRetrievalIntent:
    """:func:`detect_retrieval_intent` given the query's drugs and first structure (already found)."""
    cues = section_cues_for(query)
    if _COMPOUND_CUE_RE.search(query) or smiles:
        return QueryRetrievalIntent(Workflow.CHEMICAL.value, (), ("compound",), True)
    if _LABEL_CUE_RE.search(query):
        return QueryRetrievalIntent(Workflow.REGULATORY.value, (CHEMICAL_COLLECTION,), cues, True)
    if _COMBINATION_CUE_RE.search(query) and len(drugs) >= 2:
        return QueryRetrievalIntent(Workflow.COMBINATION.value, (), cues, True)
    if drugs:
        return QueryRetrievalIntent(Workflow.DRUG_ENTITY.value, (), cues, True)
    return QueryRetrievalIntent(Workflow.GENERAL.value, (), cues, False)

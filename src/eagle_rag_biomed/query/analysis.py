"""The analysis of one query: what it is about, computed once per request and read by every biomed stage.

:func:`analyze_query` runs the ontology matcher once over the query text and derives everything the
stages need from those matches (docs/biomed.md, "Query analysis and intent"):

``intent``          workflow, suppressed collections, section cues, entity requirement (:mod:`.intent`);
``entities``        the ontology matches that are not bare keywords, in order of appearance;
``drugs``           the lower-cased canonical drug names, in order of first appearance;
``smiles``          the first SMILES / InChI token, or "";
``competitive``     a competitive-intelligence question ("alternatives to X", "X versus Y");
``boost_terms``     Tier-2 entity boost terms: the drugs (plus their related drugs, 6 each, for a
                    competitive question); without a drug, the related drugs of the genes and
                    pathways named (diseases' related drugs are treatments, not the subject);
``penalty_drugs``   the drugs the cross-drug penalty protects (none for a competitive question);
``anchor_drugs``    the drugs that anchor the supplement: the drugs, else the first 4 related drugs
                    of the first entity that has some;
``canonical_names`` drugs the query writes another way ("Gleevec"), by their canonical name;
``expansion_terms`` the entity names and pathways of the dense suffix.

:func:`analysis_for` is how a stage reads it: the first call for a query text in a request computes it,
every later call returns the same object (one :class:`RequestAnalyses` under one ``ctx.extra`` key).
A request sees at most two texts: its own (QUERY_ASSEMBLE) and the assembled query (every later hook).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from eagle_rag.plugin_api import HookContext, QueryRetrievalIntent
from eagle_rag_biomed.ontology import EntityMatch, EntityType, drugs_in_matches, expansion_terms, match_entities
from eagle_rag_biomed.query.intent import Workflow, intent_of, is_competitive_query, smiles_in_query

__all__ = ["ANALYSIS_KEY", "QueryAnalysis", "RequestAnalyses", "analysis_for", "analyze_query"]

ANALYSIS_KEY = "biomed_query_analysis"
RELATED_DRUGS_PER_ENTITY = 6
ANCHOR_RELATED_DRUGS = 4
_TARGET_TYPES = (EntityType.GENE, EntityType.PATHWAY)


@dataclass(frozen=True)
class QueryAnalysis:
    """Everything the biomed stages read about one query text (see the module docstring)."""

    query: str
    intent: QueryRetrievalIntent
    entities: tuple[EntityMatch, ...]
    drugs: tuple[str, ...]
    smiles: str
    competitive: bool
    boost_terms: tuple[str, ...]
    penalty_drugs: tuple[str, ...]
    anchor_drugs: tuple[str, ...]
    canonical_names: tuple[str, ...]
    expansion_terms: tuple[str, ...]

    @property
    def workflow(self) -> Workflow:
        return Workflow(self.intent.workflow)

    @property
    def section_cues(self) -> tuple[str, ...]:
        return self.intent.section_cues

    @property
    def sparse_terms(self) -> tuple[str, ...]:
        """The drugs plus the section cues (``_`` as a space), each once: the lexical channel's extra terms."""
        return tuple(dict.fromkeys([*self.drugs, *(cue.replace("_", " ") for cue in self.section_cues)]))

    @property
    def dense_query(self) -> str:
        """``"{query} [biomed entities: a, b, ...]"`` for dense embedding; the query itself without terms."""
        terms = self.expansion_terms
        return f"{self.query} [biomed entities: {', '.join(terms)}]" if terms else self.query

    @property
    def chemical_task(self) -> bool:
        """The chemical workflow, or a structure in the query."""
        return self.workflow is Workflow.CHEMICAL or bool(self.smiles)


def _related(matches: Sequence[EntityMatch], limit: int) -> list[str]:
    return list(dict.fromkeys(d.lower() for m in matches for d in m.entity.related_drugs[:limit]))


def _boost_terms(drugs: Sequence[str], entities: Sequence[EntityMatch], competitive: bool) -> tuple[str, ...]:
    if drugs:
        if not competitive:
            return tuple(drugs)
        related = _related([m for m in entities if m.type is EntityType.DRUG], RELATED_DRUGS_PER_ENTITY)
        return tuple(dict.fromkeys([*drugs, *related]))
    return tuple(_related([m for m in entities if m.type in _TARGET_TYPES], RELATED_DRUGS_PER_ENTITY))


def _anchor_drugs(drugs: Sequence[str], entities: Sequence[EntityMatch]) -> tuple[str, ...]:
    if drugs:
        return tuple(drugs)
    first = next((m for m in entities if m.entity.related_drugs), None)
    return tuple(_related([first], ANCHOR_RELATED_DRUGS)) if first is not None else ()


def _canonical_names(query: str, entities: Sequence[EntityMatch], drugs: Sequence[str]) -> tuple[str, ...]:
    lowered = query.lower()
    names = [m.canonical.lower() for m in entities if m.type is EntityType.DRUG]
    return tuple(dict.fromkeys(n for n in names if n not in lowered and n in drugs))


def analyze_query(query: str) -> QueryAnalysis:
    """The analysis of ``query``: one ontology matcher call, everything else derived from its matches."""
    matches = match_entities(query)
    entities = tuple(m for m in matches if m.type is not EntityType.KEYWORD)
    drugs = tuple(drugs_in_matches(query, matches))
    smiles = smiles_in_query(query)
    competitive = is_competitive_query(query)
    return QueryAnalysis(
        query=query, intent=intent_of(query, drugs, smiles), entities=entities, drugs=drugs, smiles=smiles,
        competitive=competitive, boost_terms=_boost_terms(drugs, entities, competitive),
        penalty_drugs=() if competitive else drugs, anchor_drugs=_anchor_drugs(drugs, entities),
        canonical_names=_canonical_names(query, entities, drugs), expansion_terms=tuple(expansion_terms(entities)))


class RequestAnalyses:
    """The analyses of one request, by query text; thread-safe (a request's plans run concurrently)."""

    def __init__(self) -> None:
        self._by_query: dict[str, QueryAnalysis] = {}
        self._lock = threading.Lock()

    def get(self, query: str) -> QueryAnalysis:
        """The analysis of ``query``, computed on the first call."""
        with self._lock:
            found = self._by_query.get(query)
            if found is None:
                found = self._by_query[query] = analyze_query(query)
            return found


def analysis_for(ctx: HookContext, query: str) -> QueryAnalysis:
    """The analysis of ``query`` in the request of ``ctx``: computed on first use, then shared."""
    holder = ctx.extra.get(ANALYSIS_KEY)
    if not isinstance(holder, RequestAnalyses):
        holder = ctx.extra.setdefault(ANALYSIS_KEY, RequestAnalyses())
    return holder.get(query)

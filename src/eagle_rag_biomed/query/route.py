"""CLASSIFY_QUERY for the biomed namespace: which collections to search, with which encoder labels.

:meth:`BiomedQueryRouteClassifier.route` follows this decision tree (docs/biomed.md, "Routing"):

1. abstain (None) outside the ``biomed`` namespace, so the core's own routing runs;
2. read ``default_dual_text_search``, ``medcpt_dual_search``, ``exploratory_search_collections`` and
   ``collection_recall_top_k`` (20) from the plugin options;
3. detect the intent, the entities and the drugs of the query;
4. a chemical task (chemical workflow or a SMILES in the query) -> ``eagle_chemical`` / molformer;
5. otherwise ``eagle_text_biomed`` / pubmedbert, plus ``eagle_text_medcpt`` / medcpt-query with
   ``medcpt_dual_search`` and the core ``eagle_text`` / bge-small with ``default_dual_text_search``.
   A chemical task whose query holds no structure (no SMILES / InChI: the workflow came from a
   word such as "ligand" or "compound") searches these text collections too (reason
   ``chemical_text``), because such a query is as often a literature question ("CCL19 is a ligand
   for CCR7") as a compound lookup;
6. drugs named (or an entity with related drugs), not chemical, chemical not suppressed ->
   ``eagle_chemical`` too, as for a ``doc_types`` filter that asks for compounds;
7. radiology keywords -> ``eagle_medical_radiology``; 8. pathology keywords ->
   ``eagle_medical_pathology``; 9. visual mode / ``has_image`` / combination with drugs -> core
   ``eagle_visual``; 10. ``exploratory_search_collections``;
11. ``retrieval_hints["parent_doc_retrieval"] = False`` when a drug or entity is named (hits stay
    chunk-sized); 12. the intent's ``suppress_collections`` are removed.

Additions: a query in CJK script also searches the core multilingual collection (a query wholly in
CJK script searches it instead of the English text collections, as the core routes), and the core
``eagle_text`` is searched when it holds chunks (the document router sends general text there) even
without ``default_dual_text_search``. A plan is made only for a collection and encoder label the
registry knows; an image collection only when it holds vectors (its label may be unable to embed a
text query otherwise). No plan at all -> None (the core routes instead).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from eagle_rag.plugin_api import CollectionQueryPlan, Modality, QueryRouteDecision
from eagle_rag.plugin_api.encoders import (
    MIXED_QUERY_MIN_CJK,
    MULTILINGUAL_COLLECTION,
    MULTILINGUAL_ENCODER,
    EncoderRegistry,
)
from eagle_rag.plugin_api.text import cjk_ratio
from eagle_rag_biomed.ingest.sections import normalize_heading
from eagle_rag_biomed.names import NAMESPACE, PLUGIN_NAME, Collection, EncoderLabel
from eagle_rag_biomed.query.analysis import QueryAnalysis, analyze_query
from eagle_rag_biomed.query.intent import Workflow

QUERY_LABELS: dict[str, str] = {
    Collection.TEXT_BIOMED: EncoderLabel.PUBMEDBERT, Collection.TEXT_MEDCPT: EncoderLabel.MEDCPT_QUERY,
    Collection.CHEMICAL: EncoderLabel.MOLFORMER, Collection.RADIOLOGY: EncoderLabel.MEDIMAGEINSIGHT,
    Collection.PATHOLOGY: EncoderLabel.UNI2, Collection.CORE_TEXT: EncoderLabel.BGE_SMALL,
    Collection.CORE_VISUAL: EncoderLabel.GENERAL_VISUAL, MULTILINGUAL_COLLECTION: MULTILINGUAL_ENCODER,
}
_RADIOLOGY_RE = re.compile(r"\b(?:ct|mri|pet[- ]ct|ultrasound|sonograph\w*|radiograph\w*|x-?ray|mammogra\w*|"
                           r"radiolog\w*|dicom|nifti|scan)\b", re.I)
_PATHOLOGY_RE = re.compile(r"(?:\bh&e\b|\bhematoxylin|\bhaematoxylin|\bbiops(?:y|ies)\b|\bdysplasia\b|\bihc\b|"
                           r"\bimmunohistochem\w*|\bhistolog\w*|\bhistopatholog\w*|\bpathology\s+slides?\b|"
                           r"\bwhole[- ]slide\b)", re.I)
CountFn = Callable[[str], int]


COMPOUND_FILTER = "doc_type_compound"
"""The reason of the ``eagle_chemical`` plan of a request whose ``doc_types`` filter asks for compounds."""


def route_reason(analysis: QueryAnalysis, plans: list[CollectionQueryPlan]) -> str:
    """What the routing read in the query and what it chose, for ``SearchResponse.route["reason"]``:
    ``workflow=drug_entity; entities=imatinib (drug), chronic myeloid leukemia (disease); section
    cues=dosage; plans=eagle_text_biomed(biomed_text), ...`` (the parts with nothing to say are left out)."""
    intent = analysis.intent
    parts = [f"workflow={intent.workflow}"]
    if analysis.entities:
        parts.append("entities=" + ", ".join(dict.fromkeys(f"{m.canonical} ({m.type})" for m in analysis.entities)))
    if intent.section_cues:
        parts.append("section cues=" + ", ".join(intent.section_cues))
    parts.append("plans=" + ", ".join(f"{p.collection}({p.reason})" for p in plans))
    if intent.suppress_collections:
        parts.append(f"suppressed={','.join(intent.suppress_collections)}")
    return "; ".join(parts)


@dataclass
class _Plans:
    """Plans in the order they are added, each collection once, with the reason it was added."""

    known: EncoderRegistry
    top_k: int
    plans: list[CollectionQueryPlan] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def add(self, collection: str, reason: str, label: str | None = None, weight: float = 1.0) -> None:
        if any(p.collection == collection for p in self.plans):
            return
        names = {p.name for p in self.known.collections()}
        label = label or QUERY_LABELS.get(collection) or ""
        if collection not in names:
            self.skipped.append(f"{collection}: not registered")
            return
        if label not in self.known.labels():
            label = self.known.collection(collection).default_encoder
        self.plans.append(CollectionQueryPlan(collection, label, self.top_k, reason=reason, weight=weight))


class BiomedQueryRouteClassifier:
    """The biomed query router over the collections of an :class:`EncoderRegistry`.

    ``count`` answers how many vectors a collection holds (0 when it does not exist); it decides the
    core text and image collections (see the module docstring). Cheap to build.
    """

    def __init__(self, encoders: EncoderRegistry, *, default_dual_text_search: bool = False,
                 medcpt_dual_search: bool = False, exploratory: tuple[str, ...] = (),
                 recall_top_k: int = 20, count: CountFn | None = None, general_text_weight: float = 1.0) -> None:
        self.encoders = encoders
        self.general_text_weight = general_text_weight
        self.default_dual_text_search = default_dual_text_search
        self.medcpt_dual_search = medcpt_dual_search
        self.exploratory = exploratory
        self.recall_top_k = recall_top_k
        self.count: CountFn = count or (lambda _collection: 0)

    def route(self, query: str, plugin_namespace: str, has_image: bool = False, route_mode: str = "hybrid",
              analysis: QueryAnalysis | None = None, doc_types: tuple[str, ...] = ()) -> QueryRouteDecision | None:
        """The plans for ``query``; None outside the biomed namespace or when no plan can be made.

        ``analysis`` is the request's analysis of ``query`` (computed here when not given); ``doc_types``
        the request's document-type filter (a filter that asks for compounds searches ``eagle_chemical``).
        """
        if plugin_namespace != NAMESPACE:
            return None
        analysis = analysis if analysis is not None else analyze_query(query)
        intent, entities, drugs = analysis.intent, analysis.entities, analysis.drugs
        plans = _Plans(self.encoders, self.recall_top_k)
        chemical_task = analysis.chemical_task
        ratio = cjk_ratio(query)
        if chemical_task:
            plans.add(Collection.CHEMICAL, "chemical_task")
        if ratio < 1.0 and not (chemical_task and analysis.smiles):
            plans.add(Collection.TEXT_BIOMED, "chemical_text" if chemical_task else "biomed_text")
            if self.medcpt_dual_search:
                plans.add(Collection.TEXT_MEDCPT, "medcpt_dual_search")
            if self.default_dual_text_search:
                plans.add(Collection.CORE_TEXT, "default_dual_text_search")
            elif self.count(Collection.CORE_TEXT) > 0:
                plans.add(Collection.CORE_TEXT, "general_text_present", weight=self.general_text_weight)
        if ratio >= MIXED_QUERY_MIN_CJK:
            plans.add(MULTILINGUAL_COLLECTION, "cjk_script")
        if {normalize_heading(t) for t in doc_types} & {"compound", "compounds"}:
            plans.add(Collection.CHEMICAL, COMPOUND_FILTER)
        related = any(m.entity.related_drugs for m in entities)
        if (drugs or related) and not chemical_task and Collection.CHEMICAL not in intent.suppress_collections:
            plans.add(Collection.CHEMICAL, "drug_entities" if drugs else "entity_related_drugs")
        if _RADIOLOGY_RE.search(query):
            self._add_visual(plans, Collection.RADIOLOGY, "radiology_keywords")
        if _PATHOLOGY_RE.search(query):
            self._add_visual(plans, Collection.PATHOLOGY, "pathology_keywords")
        if route_mode == "visual" or has_image or (intent.workflow == Workflow.COMBINATION and drugs):
            self._add_visual(plans, Collection.CORE_VISUAL, "visual")
        for extra in self.exploratory:
            plans.add(extra, "exploratory")
        kept = [p for p in plans.plans if p.collection not in intent.suppress_collections]
        if not kept:
            return None
        hints = {"parent_doc_retrieval": False} if (drugs or entities) else {}
        return QueryRouteDecision(plans=tuple(kept), retrieval_hints=hints, reason=route_reason(analysis, kept),
                                  classifier=PLUGIN_NAME)

    def _add_visual(self, plans: _Plans, collection: str, reason: str) -> None:
        label = QUERY_LABELS.get(collection, "")
        registered = label in self.encoders.labels()
        if registered and self.encoders.spec(label).modality is Modality.VISUAL and self.count(collection) <= 0:
            plans.skipped.append(f"{collection}: holds no vectors")
            return
        plans.add(collection, reason)


class CollectionCounts:
    """1 when a collection holds any vector, else 0, cached for ``ttl_s`` seconds (routing asks on every
    query; the store answers with a limit-1 query, ``has_rows``, not a ``count(*)`` scan)."""

    def __init__(self, vectors: object, ttl_s: float = 30.0) -> None:
        self.vectors = vectors
        self.ttl_s = ttl_s
        self._cache: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()

    def __call__(self, collection: str) -> int:
        now = time.monotonic()
        with self._lock:
            hit = self._cache.get(collection)
            if hit is not None and now - hit[0] < self.ttl_s:
                return hit[1]
        try:
            has = self.vectors.has_collection(collection)  # type: ignore[attr-defined]
            n = 1 if has and self.vectors.has_rows(collection) else 0  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - an unreachable store counts as empty for routing
            n = 0
        with self._lock:
            self._cache[collection] = (now, n)
        return n


_COUNTS: dict[int, CollectionCounts] = {}


def collection_counts(vectors: object) -> CollectionCounts:
    """The shared :class:`CollectionCounts` of a vector store object."""
    counts = _COUNTS.get(id(vectors))
    if counts is None or counts.vectors is not vectors:
        if len(_COUNTS) > 64:
            _COUNTS.clear()
        counts = _COUNTS[id(vectors)] = CollectionCounts(vectors)
    return counts

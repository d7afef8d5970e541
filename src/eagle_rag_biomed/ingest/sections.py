"""Section and document-type detection of CHUNK enrich (:func:`detect_section`, :func:`detect_doc_type`).

Sections are canonical names: IMRaD (abstract, introduction, methods, results, discussion,
conclusion), patent (claims, description) and drug-label sections (indications_and_usage, dosage,
warnings, contraindications, adverse_reactions, ... ; other LOINC-coded label sections keep their
LOINC name). :func:`detect_section` walks the chunk path from leaf to root, then falls back to the
heading at the top of the chunk text (numbered heading, short ALL-CAPS line, patent claims); nothing
found is ``"body"``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePath
from typing import Any

from eagle_rag_biomed.parsers.spl_sections import LOINC_SECTIONS

BODY = "body"
DOC_TYPES = ("compound", "drug_label", "patent", "research", "other")
IMRAD = frozenset({"introduction", "methods", "results", "discussion", "conclusion"})
STRUCTURE_KEYS = ("smiles", "canonical_smiles", "inchi")
"""Metadata keys whose value makes a document a compound card."""
DOC_TYPE_NAMES: dict[str, tuple[str, ...]] = {
    "compound": ("molecule", "chemical", "structure", "compound card"),
    "drug_label": ("label", "drug label", "prescribing information", "package insert", "spl"),
    "research": ("abstract", "article", "paper", "research article", "publication", "literature", "pubmed",
                 "study", "studies"),
    "patent": (),
    "other": (),
}
"""The names people use for each document type (plurals are folded by the core)."""


def _table(groups: Mapping[str, Iterable[str]]) -> dict[str, str]:
    return {alias: canonical for canonical, aliases in groups.items() for alias in (canonical, *aliases)}


SECTION_ALIASES: dict[str, str] = _table({
    "abstract": ("summary", "graphical abstract", "synopsis"),
    "introduction": ("background", "context", "rationale", "importance", "objective", "objectives", "aim",
                     "aims", "purpose", "hypothesis", "background and aims", "background of the invention"),
    "methods": ("method", "materials and methods", "material and methods", "methodology", "patients and methods",
                "study design", "design", "setting", "participants", "experimental procedures",
                "experimental section", "experimental", "interventions", "measurements", "statistical analysis",
                "data sources", "study selection", "data extraction", "design setting and participants"),
    "results": ("findings", "outcomes", "results and discussion"),
    "discussion": ("interpretation", "limitations", "comment"),
    "conclusion": ("conclusions", "concluding remarks", "significance", "implications", "summary and conclusions"),
    "claims": ("claim", "what is claimed", "what is claimed is", "we claim"),
    "description": ("detailed description", "detailed description of the invention", "description of the invention",
                    "field of the invention", "summary of the invention", "brief description of the drawings"),
})

LABEL_ALIASES: dict[str, str] = _table({
    "indications_and_usage": ("indications and usage", "indications", "uses", "indications usage"),
    "dosage": ("dosage and administration", "dosage forms and strengths", "dosing", "directions",
               "route method and frequency of administration"),
    "warnings": ("warning", "warnings and precautions", "boxed warning", "precautions", "general precautions",
                 "do not use", "ask doctor", "ask doctor or pharmacist", "stop use", "when using",
                 "keep out of reach of children", "user safety warnings"),
    "contraindications": (),
    "adverse_reactions": ("adverse reactions", "side effects"),
    "drug_interactions": ("drug interactions",),
    "overdosage": (),
    "clinical_pharmacology": ("clinical pharmacology", "mechanism of action", "pharmacokinetics", "pharmacodynamics"),
    "use_in_specific_populations": ("use in specific populations", "pregnancy", "nursing mothers", "lactation",
                                    "pediatric use", "geriatric use", "labor and delivery"),
    "how_supplied": ("how supplied", "storage and handling", "package label principal display panel"),
    "patient_counseling": ("information for patients", "patient counseling information", "spl medguide",
                           "spl patient package insert", "patient medication information"),
})
# every other LOINC-coded label section keeps its own canonical name
_LOINC = {name.replace("_", " "): name for name in LOINC_SECTIONS.values()
          if name not in ("spl_unclassified_section", "spl_product_data_elements")}

_NUMBERING = re.compile(r"^\s*(?:(?:\d{1,2}(?:\.\d{1,2}){0,3}|[ivxlc]{1,5}|[a-z])[.)]?\s+)", re.IGNORECASE)
_NUMBERED_HEADING = re.compile(r"^\s*\d{1,2}(?:\.\d{1,2}){0,3}\.?\s+([A-Z][^\n]{2,80})$")
_CAPS_HEADING = re.compile(r"^\s*([A-Z][A-Z0-9 &/,:()-]{2,80})\s*$")
_CLAIMS = re.compile(r"^\s*(?:what is claimed is|we claim|claims?)\b|^\s*1\s*\.\s+an?\s+(?:method|compound|composition|"
                     r"process|apparatus|pharmaceutical|formulation|use)\b", re.IGNORECASE)


def normalize_heading(text: str) -> str:
    """``"2.1 Materials & Methods:"`` -> ``"materials and methods"``; ``"indications_and_usage"`` too."""
    text = _NUMBERING.sub("", text.replace("_", " ").replace("&", " and ")).lower()
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


def canonical_section(heading: str, label: bool = False) -> str | None:
    """The canonical section of one heading, or None. ``label`` tries drug-label sections first."""
    key = normalize_heading(heading)
    if not key:
        return None
    if label:
        found = LABEL_ALIASES.get(key) or _LOINC.get(key)
        if found:
            return found
    return SECTION_ALIASES.get(key) or LABEL_ALIASES.get(key) or _LOINC.get(key)


def section_from_text_heading(text: str, label: bool = False) -> str | None:
    """The text fallbacks on the first line: numbered heading, ALL-CAPS line (<= 6 words), claims."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    if _CLAIMS.search(first):
        return "claims"
    numbered = _NUMBERED_HEADING.match(first)
    if numbered:
        return canonical_section(numbered.group(1), label)
    caps = _CAPS_HEADING.match(first)
    if caps and len(caps.group(1).split()) <= 6:
        return canonical_section(caps.group(1), label)
    return None


def detect_section(path: Sequence[str], text: str, label: bool = False) -> str:
    """The section of a chunk: path segments from leaf to root, then the text heading, else ``"body"``."""
    for segment in reversed(path):
        found = canonical_section(segment, label)
        if found:
            return found
    return section_from_text_heading(text, label) or BODY


_RESEARCH = re.compile(r"\b(?:patients?|participants|cohorts?|randomi[sz]ed|clinical(?: trials?)?|in vitro|in vivo|"
                       r"(?:we|here we|this (?:study|article|paper|review)) (?:found|show|report|demonstrate|observed|"
                       r"investigated|identified|describe|propose|present|consider|examined|analy[sz]ed|measured|"
                       r"derive|used|developed)|significantly|p\s*[<=]\s*0?\.\d+|95% ci|odds ratio|hazard ratio|mice|"
                       r"rats|cells?|expression|placebo|efficacy|incidence|mortality|prevalence|infections?|"
                       r"diseases?|genes?|genomes?|proteins?|mutations?|receptors?|rna|dna|tumou?rs?|cancer|"
                       r"diagnostic|therapy|treatment|hypothesis|statistical|microarrays?|molecular|biomarkers?|"
                       r"[a-z]+ (?:study|trial|analysis))\b", re.IGNORECASE)
_LABEL_TEXT = re.compile(r"prescribing information|indications and usage|dosage and administration|"
                         r"drug facts|active ingredients?\b", re.IGNORECASE)
_PATENT_TEXT = re.compile(r"what is claimed is|we claim:|\bpatent (?:application|no\.?)|embodiments? of the "
                          r"(?:present )?invention", re.IGNORECASE)
_SOURCE_TYPES = {"compound": "compound", "drug_label": "drug_label", "pubmed": "research", "pmc": "research",
                 "abstract": "research"}


def detect_doc_type(metadata: Mapping[str, Any], source_type: str, source_uri: str, sections: Iterable[str],
                    text_head: str) -> str:
    """compound / drug_label / patent / research / other, from what the parser said, then names and text.

    Order: the parser's ``doc_type``; a structure in the metadata (``smiles``, ``inchi``: a compound
    card, e.g. a JSONL record); the source type; file-name tokens (``compound_``, ``label_``,
    ``patent``); label or patent phrases in the text (``prescribing information``, ``what is claimed``);
    a claims section; IMRaD sections or an abstract; two distinct research phrases; else ``other``.
    """
    declared = str(metadata.get("doc_type") or "")
    if declared in DOC_TYPES:
        return declared
    if any(metadata.get(key) for key in STRUCTURE_KEYS):
        return "compound"
    if source_type in _SOURCE_TYPES:
        return _SOURCE_TYPES[source_type]
    name = PurePath(source_uri.split("#", 1)[0]).name.lower()
    for token, doc_type in (("compound_", "compound"), ("label_", "drug_label"), ("patent", "patent")):
        if token in name:
            return doc_type
    found = set(sections)
    if _PATENT_TEXT.search(text_head) or "claims" in found:
        return "patent"
    if _LABEL_TEXT.search(text_head):
        return "drug_label"
    if len(found & IMRAD) >= 2 or "abstract" in found:
        return "research"
    cues = {m.group(0).lower() for m in _RESEARCH.finditer(text_head)}
    return "research" if len(cues) >= 2 else "other"


def filter_vocabulary() -> dict[str, dict[str, str]]:
    """The names of the section and document-type values this plugin writes (``eagle_filter_vocabulary``):
    every heading alias of a canonical section and the common names of each document type."""
    sections = {**_LOINC, **LABEL_ALIASES, **SECTION_ALIASES, BODY: BODY}
    doc_types = {alias: canonical for canonical, aliases in DOC_TYPE_NAMES.items() for alias in (canonical, *aliases)}
    return {"sections": sections, "doc_types": doc_types}

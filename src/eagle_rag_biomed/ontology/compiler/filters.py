"""Which synonyms of the compiled vocabulary are kept: drop what would only produce false matches.

A synonym is dropped when it is empty, longer than :data:`MAX_LENGTH`, has no letter (``"5"``,
``"1-2"``), is shorter than three characters (gene symbols excepted), is a generic term, a
statistics or clinical abbreviation, or a common English word (``data/common_words.txt``), with
rules by kind:

- an approved gene symbol is always kept (the matcher guards the ones that are common words);
- a gene alias or previous symbol is dropped when it is a tier 1-2 common word (``WAS``, ``SET``);
- a drug, chemical or disease name that is one plain word is dropped when it is a tier 1 common
  word (``water``, ``gold``, ``death``), and a drug or chemical one at tier 2 too (``chicken``,
  ``tablet``) unless it names a real substance (:data:`SUBSTANCE_WORDS`);
- a short abbreviation (<= 3 characters, mixed or upper case) that is a tier 1-2 word (``AS``,
  ``NO``, ``HIS``) is dropped; longer ones (``cAMP``) are kept and the matcher guards them.
"""

from __future__ import annotations

from enum import StrEnum

from eagle_rag_biomed.ontology.common_words import CommonWords, is_abbreviation
from eagle_rag_biomed.ontology.normalize import normalize_key

MAX_LENGTH = 100


class SurfaceKind(StrEnum):
    """Where a surface form comes from, which decides the filter rules."""

    GENE_SYMBOL = "gene_symbol"
    GENE_ALIAS = "gene_alias"
    GENE_NAME = "gene_name"
    DRUG = "drug"
    CHEMICAL = "chemical"
    DISEASE = "disease"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


GENERIC_TERMS = _words("""
    disease diseases disorder disorders syndrome syndromes illness condition conditions death injury
    injuries wounds emergencies corpse amelia aura bites burns choking confusion strains scar scars drowning
    drug drugs agent agents medication medications medicine medicines therapy therapies treatment
    protein proteins peptide peptides enzyme enzymes receptor receptors ligand ligands antibody antibodies
    antigen antigens hormone hormones vaccine vaccines vitamins antibiotic antibiotics narcotics steroids
    cell cells gene genes tissue tissues blood plasma serum urine
    acid acids salt salts solution solutions suspension powder tablet tablets capsule capsules paste
    buffer indicator indicators element elements mineral minerals metal metals oils fats gases ions oxide
    biological complement stain dye poison explosive explosives plastics cosmetics perfume sewage soil soils
    placebo control controls standard inhibitor inhibitors agonist antagonist kinase pathway mutation
    expression target fusion variant resistance tumor tumour carcinoma metastasis chemotherapy
    kinases pathways mutations agonists antagonists biomarker biomarkers targets oncogene oncogenes variants
    tumors tumours carcinomas metastases fusions immunotherapy phosphorylation
""")

SUBSTANCE_WORDS = _words("""
    adrenaline aluminium aluminum asbestos caffeine calcium cannabis cholesterol cocaine copper glucose
    gluten heroin hydrogen insulin lithium marijuana mercury methane neon nickel nicotine nitrogen oxygen
    platinum potassium silicon sodium testosterone titanium uranium zinc
""")

KEEP_WORDS = frozenset({"cancer", "pain"})

# Statistics, trial and clinical abbreviations that HGNC also lists as aliases of some gene.
CLINICAL_ABBREVIATIONS = _words("""
    ci or hr rr sd se sem iqr bmi icu mri ct pet ecg ekg eeg dna rna pcr hiv aids usa uk eu fda who nih
    os pfs dfs orr dcr ae aes sae qol iv po bid tid qd mg kg ml mm na ns vs ph auc cmax tmax rt qt bp hf
    mi cad ckd copd gi uti tb ms pd cr pr ar er pk ddi adr itt ic50 ec50 ed50 ld50 ld ra sle ibd
""")


def keep_surface(surface: str, kind: SurfaceKind, common: CommonWords) -> bool:
    """True when ``surface`` should stay in the compiled vocabulary (see the module docstring)."""
    text = surface.strip()
    key = normalize_key(text)
    if not key or len(text) > MAX_LENGTH or not any(ch.isalpha() for ch in key):
        return False
    if kind is SurfaceKind.GENE_SYMBOL:
        return True
    if kind is SurfaceKind.GENE_ALIAS:
        return len(key) >= 2 and key not in CLINICAL_ABBREVIATIONS and common.tier(key) not in (1, 2)
    if len(key) < 3 or key in GENERIC_TERMS:
        return False
    if not key.isalpha() or key in KEEP_WORDS:
        return True
    tier = common.tier(key)
    if is_abbreviation(text):
        return not (len(key) <= 3 and tier in (1, 2)) and key not in CLINICAL_ABBREVIATIONS
    if tier == 1:
        return False
    if tier == 2 and kind in (SurfaceKind.DRUG, SurfaceKind.CHEMICAL):
        return key in SUBSTANCE_WORDS
    return True


def uninvert(term: str) -> str | None:
    """MeSH inverted form to natural order: ``Neoplasms, Lung`` -> ``Lung Neoplasms``.

    Returns None for terms with no single ``", "`` inversion, and for chemical names whose commas
    are locants (``1,2-dichloro``) or that hold brackets.
    """
    if term.count(", ") != 1 or "(" in term or "[" in term:
        return None
    head, tail = term.split(", ")
    if not head or not tail or any(ch.isdigit() for ch in tail[:1]):
        return None
    return f"{tail} {head}"

"""The notice shipped next to the compiled vocabulary: sources, versions, licences, counts."""

from __future__ import annotations

from typing import Any

LICENCES = {
    "drugbank": ("DrugBank Open Data vocabulary (drugs, synonyms, CAS, UNII, InChIKey)",
                 "CC0 1.0 (public domain dedication)", "https://go.drugbank.com/releases/latest#open-data"),
    "hgnc": ("HGNC complete set (HUGO Gene Nomenclature Committee): approved symbols, aliases, previous "
             "symbols, names", "CC0 1.0", "https://www.genenames.org/download/"),
    "disease_ontology": ("Human Disease Ontology: HumanDO.tsv, cross-references (MESH, UMLS_CUI), EXACT "
                         "synonyms of the slim .obo subsets", "CC0 1.0", "https://disease-ontology.org"),
    "mesh": ("Medical Subject Headings (MeSH) descriptors: C-tree (diseases) and D-tree (chemicals and "
             "drugs) names and entry terms", "NLM MeSH terms and conditions: free use with attribution; "
             "courtesy of the U.S. National Library of Medicine", "https://www.nlm.nih.gov/mesh/"),
}


def render_notice(document: dict[str, Any]) -> str:
    """Markdown notice for ``document`` (the compiled vocabulary); deterministic."""
    lines = [
        "# Biomed vocabulary: sources and licences",
        "",
        "`vocabulary.json.gz` is compiled by `scripts/build_vocabulary.py` from the sources below.",
        "Each entry is `{canonical, type, ids, synonyms}`; types gene, drug, disease, chemical.",
        "UMLS CUIs come only from the Disease Ontology cross-references (no UMLS file is used).",
        "",
        "| source | what | version | licence |",
        "|---|---|---|---|",
    ]
    for name, meta in document["sources"].items():
        what, licence, url = LICENCES[name]
        lines.append(f"| {name} ({url}) | {what} | {meta['version']} | {licence} |")
    lines += ["", "## Counts", ""]
    lines += [f"- {key}: {value:,}" for key, value in sorted(document["counts"].items())]
    lines += ["", "## Source files (SHA-256)", ""]
    for name, meta in document["sources"].items():
        lines += [f"- {name}/{file}: `{digest}`" for file, digest in meta["files"].items()]
    lines += [
        "",
        "## Attribution",
        "",
        "- MeSH: Medical Subject Headings, courtesy of the U.S. National Library of Medicine (NLM).",
        "  This product uses MeSH but is not endorsed by NLM; the MeSH terms are unmodified apart from",
        "  inverted entry terms written in natural order (\"Neoplasms, Lung\" -> \"Lung Neoplasms\").",
        "- HGNC: HGNC Database, HUGO Gene Nomenclature Committee (HGNC), www.genenames.org.",
        "- Human Disease Ontology: Schriml LM et al., Nucleic Acids Research (disease-ontology.org).",
        "- DrugBank Open Data: Wishart DS et al., DrugBank (go.drugbank.com), CC0.",
        "- `common_words.txt` (the stop list used to filter synonyms) was selected with wordfreq",
        "  (Robyn Speer et al.; word frequency data CC BY-SA 4.0); it holds only the words.",
        "",
    ]
    return "\n".join(lines)

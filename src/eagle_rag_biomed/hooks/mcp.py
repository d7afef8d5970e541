"""The biomed plugin's read-only MCP tools (namespace ``biomed``), registered by ``eagle_mcp_tools``.

* ``biomed_query_entities(entity, kb_name?)``: the ontology's record of a gene, drug, disease or
  pathway name (aliases, pathways, related drugs); an unknown name answers ``found: false`` with up
  to :data:`CLOSE_MATCHES` close names of the ontology (rapidfuzz), not an error. With ``kb_name``,
  ``kb_mentions`` says which documents of that knowledge base name the entity (a BM25 search of its
  name and aliases); for an unknown name with close matches it is never ``complete`` (only the
  spelling given was looked up) and ``reason`` says to ask again with a close match.
* ``biomed_retrieve_compounds(smiles_or_name, top_k=5, kb_name?)``: the ingested compounds most similar
  to a SMILES, InChI or drug name by Morgan-fingerprint Tanimoto (:func:`biomed_retrieve_compounds`).
  Errors: ``encode_failed`` (not a valid structure, or a name with no known structure; a drug the
  ontology knows without one, such as the antibody trastuzumab, says so with reason ``no_structure``),
  ``collection_missing`` (no compound is indexed), ``not_found`` (unknown kb), ``search_failed``.
"""

from __future__ import annotations

from typing import Any

from rapidfuzz import fuzz, process

from eagle_rag.plugin_api import McpTool, NotFound, SearchMode, SearchRequest, hookimpl
from eagle_rag.plugin_api.commands import tool_error
from eagle_rag_biomed.chem.molecules import InvalidStructure
from eagle_rag_biomed.chem.store import MAX_TOP_K, biomed_retrieve_compounds
from eagle_rag_biomed.names import Collection
from eagle_rag_biomed.ontology.normalize import normalize_key
from eagle_rag_biomed.ontology.umls import get_ontology, resolve_entity

NAMESPACE = "biomed"
METHOD = "morgan_tanimoto"
CLOSE_MATCHES = 5
CLOSE_MATCH_MIN_SCORE = 75.0
"""rapidfuzz ``ratio`` (0-100) a name needs to be offered as a close match of an unknown entity."""
KB_MENTIONS = 5
KB_NAME = {"type": "string", "pattern": r"^[A-Za-z0-9_.\-]{1,64}$", "description": "restrict to one knowledge base"}


def close_matches(name: str, limit: int = CLOSE_MATCHES) -> list[dict[str, Any]]:
    """Up to ``limit`` entities whose name or alias is closest to ``name`` (rapidfuzz ratio of the
    normalised keys, at least :data:`CLOSE_MATCH_MIN_SCORE`), best first, one per entity."""
    index = get_ontology().index
    found: list[dict[str, Any]] = []
    seen: set[int] = set()
    for _key, score, slot in process.extract(normalize_key(name), index.keys, scorer=fuzz.ratio,
                                             limit=limit * 4, score_cutoff=CLOSE_MATCH_MIN_SCORE):
        entity = index.candidates(slot)[0].entity
        if id(entity) in seen:
            continue
        seen.add(id(entity))
        found.append({"entity": entity.canonical, "type": entity.type.value, "score": round(score / 100, 3)})
        if len(found) == limit:
            break
    return found


def _kb_mentions(engine: Any, answer: dict[str, Any], kb_name: str) -> dict[str, Any]:
    names = [answer["entity"], *answer["aliases"][:3]] if answer["found"] else [answer["entity"]]
    response = engine.search(SearchRequest(query=" ".join(names), top_k=50, mode=SearchMode.BM25,
                                           kb_names=(kb_name,)))
    documents = list(dict.fromkeys(hit.document_id for hit in response.hits))
    mentions = {"kb_name": kb_name, "documents": documents[:KB_MENTIONS], "document_count": len(documents),
                "complete": response.exhaustive}
    suggested = [m["entity"] for m in answer.get("close_matches") or ()]
    if not answer["found"] and suggested:  # only the name as written was looked up, not what it may mean
        mentions["complete"] = False
        mentions["reason"] = (f"{answer['entity']!r} is no known entity, so only that spelling was looked up; "
                              f"ask again with a close match ({', '.join(suggested[:3])}) to list its mentions")
    return mentions


def _check_kb(engine: Any, kb_name: str | None) -> None:
    """Raise NotFound for a kb name no document carries."""
    if kb_name is not None and kb_name not in engine.registry.kb_names():
        raise NotFound(f"unknown kb name {kb_name!r}", {"field": "kb_name"})


def query_entities(engine: Any, entity: str, kb_name: str | None = None) -> dict[str, Any]:
    """The ``biomed_query_entities`` answer (see the module docstring). Raises NotFound for an unknown kb."""
    _check_kb(engine, kb_name)
    answer = resolve_entity(entity)
    if not answer["found"]:
        answer["close_matches"] = close_matches(entity)
    if kb_name is not None:
        answer["kb_mentions"] = _kb_mentions(engine, answer, kb_name)
    return answer


def retrieve_compounds(engine: Any, smiles_or_name: str, top_k: int = 5, kb_name: str | None = None) -> dict[str, Any]:
    """The ``biomed_retrieve_compounds`` answer (see the module docstring). Raises NotFound for an unknown kb."""
    _check_kb(engine, kb_name)
    try:
        found = biomed_retrieve_compounds(engine, smiles_or_name, top_k, kb_name)
    except InvalidStructure as exc:
        drug = resolve_entity(smiles_or_name)
        if drug["found"] and drug["type"] == "drug":  # a biologic: the structure table holds small molecules
            drugbank = drug["ids"].get("drugbank")
            known = f"{drug['entity']}" + (f", DrugBank {drugbank}" if drugbank else "")
            return tool_error("encode_failed", f"{smiles_or_name!r} is a known drug ({known}) without a "
                              "small-molecule structure: a biologic (an antibody, a protein or a peptide) has no "
                              "SMILES to compare by Tanimoto; search its text with core_search instead",
                              {"field": "smiles_or_name", "reason": "no_structure", "entity": drug["entity"]})
        return tool_error("encode_failed", str(exc)[:500], {"field": "smiles_or_name", "reason": exc.code})
    if found.total_indexed == 0:
        collection = Collection.CHEMICAL.value
        return tool_error("collection_missing", f"no compound is indexed in {collection}: ingest SDF, MOL or "
                          "compound records first", {"collection": collection})
    hits = []
    for h in found.hits:
        hits.append({"compound_id": h.compound_id, "name": h.name, "smiles": h.smiles, "score": h.similarity,
                     "document_id": h.compound_id, "path": h.name, "kb_name": h.kb_name})
    return {"query": found.query, "resolved_smiles": found.resolved_smiles, "resolved_by": found.resolved_by,
            "resolved_name": found.resolved_name, "collection": found.collection, "method": METHOD,
            "index": found.index, "indexed": found.total_indexed, "hits": hits}


@hookimpl
def eagle_mcp_tools(engine: Any) -> list[McpTool]:
    """``biomed_query_entities`` and ``biomed_retrieve_compounds`` (read-only, namespace ``biomed``)."""
    entity_schema = {
        "type": "object",
        "properties": {"entity": {"type": "string", "minLength": 1, "maxLength": 200,
                                  "description": "a gene, drug, disease or pathway name (e.g. HER2, imatinib)"},
                       "kb_name": {**KB_NAME, "description": "also list the documents of this knowledge base "
                                                             "that name the entity"}},
        "required": ["entity"],
    }
    compound_schema = {
        "type": "object",
        "properties": {"smiles_or_name": {"type": "string", "minLength": 1, "maxLength": 2000,
                                          "description": "a SMILES, an InChI or a drug name (e.g. aspirin, "
                                                         "CC(=O)Oc1ccccc1C(=O)O)"},
                       "top_k": {"type": "integer", "minimum": 1, "maximum": MAX_TOP_K, "default": 5,
                                 "description": f"most compounds to return (default 5, at most {MAX_TOP_K})"},
                       "kb_name": KB_NAME},
        "required": ["smiles_or_name"],
    }
    return [
        McpTool("biomed_query_entities", "Resolve a biomedical name (gene, drug, disease, pathway) in the local "
                "ontology: canonical name, aliases, pathways and related drugs; an unknown name answers found=false "
                "with close matches. Read-only.", entity_schema,
                lambda entity, kb_name=None: query_entities(engine, entity, kb_name), namespace=NAMESPACE,
                title="Resolve a biomedical entity"),
        McpTool("biomed_retrieve_compounds", "Find the ingested compounds most similar to a SMILES, InChI or drug "
                "name (Morgan fingerprints, Tanimoto similarity: 1.0 is the same structure). Read-only.",
                compound_schema, lambda smiles_or_name, top_k=5, kb_name=None: retrieve_compounds(
                    engine, smiles_or_name, top_k, kb_name), namespace=NAMESPACE, title="Find similar compounds"),
    ]

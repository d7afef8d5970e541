"""The biomed plugin's HTTP routes (``eagle_api_register``): ``POST /biomed/compounds`` (structure
similarity by Morgan-fingerprint Tanimoto over the ingested compounds) and ``GET /biomed/entities/{name}``
(the vocabulary's entry for a name: aliases, pathways, related drugs). Both are read-only; the web
console's "Compounds and entities" tab uses them."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path as PathParam
from fastapi import Query
from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from eagle_rag.plugin_api import InvalidRequest, hookimpl
from eagle_rag.plugin_api.commands import PlainText
from eagle_rag_biomed.chem.store import MAX_TOP_K, biomed_retrieve_compounds
from eagle_rag_biomed.hooks.mcp import query_entities


class CompoundsBody(BaseModel):
    """``POST /biomed/compounds``."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"query": "CC(=O)Oc1ccccc1C(=O)O", "top_k": 5}, {"query": "imatinib", "kb_name": "demo"}]})

    query: PlainText = Field(min_length=1, max_length=2000, validation_alias=AliasChoices("query", "smiles_or_name"),
                             description="a SMILES, an InChI or a drug name (also accepted as "
                                         "`smiles_or_name`, the MCP tool's name for it)")
    top_k: int = Field(5, ge=1, le=MAX_TOP_K, description="compounds to return")
    kb_name: str | None = Field(None, pattern=r"^[A-Za-z0-9_.\-]{1,64}$", description="only this kb")


class CompoundHit(BaseModel):
    compound_id: str = Field(description="the document id of the compound record")
    name: str
    smiles: str
    similarity: float = Field(description="Tanimoto similarity of the Morgan fingerprints, 0..1")
    rank: int = Field(description="from 1")
    kb_name: str
    source_uri: str


class CompoundsResponse(BaseModel):
    query: str
    resolved_smiles: str = Field(description="the structure searched for (canonical SMILES)")
    resolved_by: str = Field(description="how the query became a structure (smiles, inchi, alias, ...)")
    resolved_name: str
    collection: str
    index: str = Field(description="the fingerprint index: Morgan radius and bits, Tanimoto")
    hits: list[CompoundHit]
    total_indexed: int = Field(description="compounds in the fingerprint index (every kb)")


class CloseMatch(BaseModel):
    entity: str
    type: str
    score: float = Field(description="string similarity of the normalised names, 0..1")


class EntityResponse(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "entity": "Imatinib", "found": True, "cui": "C0935989", "aliases": ["Gleevec", "STI-571"],
        "pathways": ["BCR-ABL signaling"], "related_drugs": [], "type": "drug", "source": "curated",
        "ids": {}}]})

    entity: str = Field(description="the canonical name (the name as given when not found)")
    found: bool
    cui: str
    aliases: list[str]
    pathways: list[str]
    related_drugs: list[str]
    type: str
    source: str
    ids: dict[str, str]
    close_matches: list[CloseMatch] = Field(default_factory=list, description="for an unknown name: the "
                                            "closest names of the vocabulary, best first")
    kb_mentions: dict[str, Any] | None = Field(None, description="with kb_name: the documents of that kb that "
                                               "name the entity (as the MCP tool biomed_query_entities)")


@hookimpl
def eagle_api_register(api: Any, engine: Any, error_responses: dict[int | str, dict[str, Any]]) -> None:
    """Add ``POST /biomed/compounds`` and ``GET /biomed/entities/{name}``; returns None."""

    @api.post("/biomed/compounds", tags=["biomed"], response_model=CompoundsResponse, responses=error_responses,
              operation_id="biomed_compounds", summary="Compounds similar to a SMILES, InChI or drug name")
    def biomed_compounds(body: CompoundsBody) -> dict[str, Any]:
        """Ranked by Tanimoto; an unreadable structure or unknown name is a 400 ``invalid_structure``."""
        return biomed_retrieve_compounds(engine, body.query, body.top_k, body.kb_name).to_dict()

    @api.get("/biomed/entities/{name}", tags=["biomed"], response_model=EntityResponse,
             response_model_exclude_none=True, responses=error_responses, operation_id="biomed_entity",
             summary="A drug, gene or disease: aliases, pathways, related drugs")
    def biomed_entity(name: Annotated[PlainText, PathParam(min_length=1, max_length=200)],
                      kb_name: Annotated[str | None, Query(pattern=r"^[A-Za-z0-9_.\-]{1,64}$",
                                                           description="also list this kb's documents that "
                                                                       "name the entity")] = None) -> dict[str, Any]:
        """``found`` is false (with empty fields and ``close_matches``) for a name the vocabulary does not hold;
        a blank name is a 400 and an unknown kb a 404, as in the MCP tool."""
        if not name.strip():
            raise InvalidRequest("the entity name is empty", {"field": "name"})
        return query_entities(engine, name, kb_name)

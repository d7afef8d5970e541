"""The chemical branch of Tier-2: for chemical queries, a structurally similar compound may outrank text.

After the Tier-2 fusion, for the chemical workflow:

1. the query's structure: the first SMILES / InChI in the query, else the first drug it names resolved
   by ``resolve_compound_query`` (curated aliases, DrugBank open structures); none -> no change;
2. each candidate's structure: ``metadata["smiles"]`` (compound records), else a SMILES after
   "SMILES:" in its text; candidates without one are left alone;
3. structural similarity = RDKit Morgan-fingerprint Tanimoto (radius 2, 2048 bits). When the
   ``molformer`` label is configured with a real chemical checkpoint (not the bundled text stand-in),
   it is averaged with the cosine of the two SMILES embeddings: ``(tanimoto + cosine) / 2``;
4. each candidate's score becomes ``max(fused score, similarity * scale)`` and the list is re-sorted
   (ties: the more similar structure first, then the fused order); ``scale`` is the highest score the
   Tier-2 fusion can give, so the two
   are on one scale.

Tanimoto on Morgan fingerprints is the cheminformatics standard and needs no model
(docs/biomed.md, "The chemical branch").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from eagle_rag.plugin_api import HookContext, NodeWithScore
from eagle_rag_biomed.encoders.labels import has_domain_checkpoint
from eagle_rag_biomed.query.analysis import QueryAnalysis
from eagle_rag_biomed.query.intent import looks_like_smiles

__all__ = ["CHEMICAL_ENCODER", "apply_chemical_branch", "node_smiles", "query_structure", "tanimoto"]

CHEMICAL_ENCODER = "molformer"
_TEXT_SMILES = re.compile(r"SMILES:\s*(\S+)")


def query_structure(analysis: QueryAnalysis) -> tuple[str, str] | None:
    """(canonical SMILES, how) of the query's compound, or None when it names none."""
    from eagle_rag_biomed.chem.molecules import InvalidStructure
    from eagle_rag_biomed.chem.names import resolve_compound_query

    candidates = [(analysis.smiles, "smiles")] + [(d, "drug_name") for d in analysis.drugs]
    for text, how in candidates:
        if not text:
            continue
        try:
            return resolve_compound_query(text).smiles, how
        except InvalidStructure:
            continue
    return None


def node_smiles(node: NodeWithScore) -> str:
    """The candidate's SMILES (metadata, else "SMILES: ..." in its text), or ""."""
    value = str(node.node.metadata.get("smiles") or "").strip()
    if value:
        return value
    match = _TEXT_SMILES.search(node.node.text)
    if match and looks_like_smiles(match.group(1)):
        return match.group(1).rstrip(".,;")
    return ""


def tanimoto(smiles_a: str, smiles_b: str) -> float:
    """Morgan-fingerprint Tanimoto similarity in [0, 1]; 0.0 when a structure cannot be read."""
    from rdkit import DataStructs

    from eagle_rag_biomed.chem.fingerprints import morgan_fingerprint
    from eagle_rag_biomed.chem.molecules import InvalidStructure

    try:
        return float(DataStructs.TanimotoSimilarity(morgan_fingerprint(smiles_a), morgan_fingerprint(smiles_b)))
    except InvalidStructure:
        return 0.0


def _chemical_encoder_configured(ctx: HookContext) -> bool:
    return has_domain_checkpoint(ctx.services.encoders if ctx.services.has("encoders") else None, CHEMICAL_ENCODER)


def _cosines(ctx: HookContext, query_smiles: str, smiles: Sequence[str]) -> list[float]:
    pm = ctx.services.pm
    q = pm.hook.eagle_embed_text(ctx=ctx, encoder=CHEMICAL_ENCODER, texts=[query_smiles], kind="query")
    p = pm.hook.eagle_embed_text(ctx=ctx, encoder=CHEMICAL_ENCODER, texts=list(smiles), kind="passage")
    return [float(sum(a * b for a, b in zip(q[0], vec, strict=False))) for vec in p]


def apply_chemical_branch(ctx: HookContext, analysis: QueryAnalysis, fused: Sequence[NodeWithScore],
                          scale: float = 1.0) -> list[NodeWithScore]:
    """``fused`` with each compound's score raised to its structural similarity where that is higher.

    ``scale`` is the highest score the fusion can give (the sum of its positive weights); the similarity
    is multiplied by it, so an identical structure (similarity 1.0) ties the best possible fused score.
    """
    resolved = query_structure(analysis)
    if resolved is None:
        ctx.log_decision("biomed_rerank_t2", plugin="biomed", summary="chemical branch: no query structure",
                         stage="chemical_branch")
        return list(fused)
    query_smiles, how = resolved
    positions = [(i, s) for i, s in enumerate(node_smiles(n) for n in fused) if s]
    sims = {i: tanimoto(query_smiles, s) for i, s in positions}
    use_encoder = _chemical_encoder_configured(ctx) and bool(positions)
    if use_encoder:
        for (i, _), cos in zip(positions, _cosines(ctx, query_smiles, [s for _, s in positions]), strict=True):
            sims[i] = (sims[i] + cos) / 2.0
    rescored = [(max(n.score, sims[i] * scale) if i in sims else n.score, i) for i, n in enumerate(fused)]
    rescored.sort(key=lambda item: (-item[0], -sims.get(item[1], 0.0), item[1]))
    ctx.log_decision("biomed_rerank_t2", plugin="biomed",
                     summary=f"chemical branch: {len(positions)} structures vs {how} query",
                     stage="chemical_branch", query_smiles=query_smiles,
                     similarity="tanimoto+cosine" if use_encoder else "tanimoto",
                     raised=sum(1 for i, _ in positions if sims[i] * scale > fused[i].score))
    return [fused[i].scored("chemical_branch", score, rank, {"structure": sims.get(i, 0.0)})
            for rank, (score, i) in enumerate(rescored, start=1)]

"""Reranking: Tier-1 per plan, the Tier-2 policy, formula, weights and signals, the chemical branch."""

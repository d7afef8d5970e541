"""The answer to a search or an id check: typed responses, the honest message, and the per-hit
explanation (docs/datasets.md, section 8)."""

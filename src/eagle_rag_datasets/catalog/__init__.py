"""The catalog: dataset cards, how they are read and validated, their facets, their analysed terms,
and the synonym file (docs/datasets.md, sections 2 and 3)."""

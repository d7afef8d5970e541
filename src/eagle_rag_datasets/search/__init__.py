"""One search over the catalog, stage by stage: the request (``query``), the query units
(``units``), unit matching and typo tolerance (``matching``), the tiered candidates
(``candidates``), facet filters (``filters``), phrase proximity (``proximity``), the order of hits
(``ranking``), the BM25 engines (``engines``) and the pipeline that runs them (``pipeline``).
See docs/datasets.md, sections 4 to 7."""

"""The ingest side: CHUNK enrich (sections, primary drugs), the document router and the chunk classifiers."""

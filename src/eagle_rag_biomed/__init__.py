"""Eagle-RAG biomed plugin: biomedical parsers, routing, encoders, collections and chemistry."""

"""A minimal Eagle-RAG plugin."""

"""Retrievers of agent frameworks over the one search service (optional extras).

* :mod:`eagle_rag.integrations.langchain`: ``EagleRagRetriever``, a ``langchain_core`` retriever
  (``pip install "eagle-rag[langchain]"``).
* :mod:`eagle_rag.integrations.llama_index`: ``EagleRagRetriever``, a ``llama_index.core`` retriever
  (``pip install "eagle-rag[llama-index]"``).

Both search an :class:`~eagle_rag.engine.Engine` in this process or a running server by its URL,
with the search options of :class:`~eagle_rag.integrations.search.SearchOptions`.
"""

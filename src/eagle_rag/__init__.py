"""Eagle-RAG: the data layer under biomedical RAG.

The core owns orchestration, stores, encoders, fusion, audit and the service; domain behaviour
comes from plugins through the hooks declared in :mod:`eagle_rag.hookspecs`.
"""

__version__ = "0.1.0"

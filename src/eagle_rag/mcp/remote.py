"""The MCP tools of a running Eagle-RAG server: :class:`RemoteToolRegistry` lives in
:mod:`eagle_rag.service.remote_tools` (the remote Backend builds it); this name stays for its importers."""

from eagle_rag.service.remote_tools import RemoteToolRegistry, profile_notice

__all__ = ["RemoteToolRegistry", "profile_notice"]

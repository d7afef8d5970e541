"""The MCP front end: read-only tools (:mod:`eagle_rag.mcp.tools`, :mod:`eagle_rag.mcp.core_tools`)
served over stdio by :mod:`eagle_rag.mcp.server`, in this process or against a server."""

"""The MCP front end: the server (:mod:`eagle_rag.mcp.server`, stdio or HTTP) serves the read-only tool
registry of :mod:`eagle_rag.service.tools`, from this process's engine or through a running server
(:mod:`eagle_rag.service.remote_tools`), as the :class:`~eagle_rag.service.backend.Backend` gives them."""

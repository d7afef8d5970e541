"""The service every front end calls: the HTTP routes, the CLI, the MCP tools, the Python client's
server side, the framework retrievers and the console.

- :mod:`eagle_rag.service.requests`: validation and parsing of a search request (before any store);
- :mod:`eagle_rag.service.searching`: ``search(engine, SearchRequest) -> SearchResponse``;
- :mod:`eagle_rag.service.documents`: get, list and delete documents;
- :mod:`eagle_rag.service.health`: is the index ready to answer;
- :mod:`eagle_rag.service.backend`: the :class:`~eagle_rag.service.backend.Backend` protocol and
  where a command runs: :mod:`~eagle_rag.service.local_backend` (this process's engine) or
  :mod:`~eagle_rag.service.remote_backend` (a server's HTTP API, whose MCP tools are
  :mod:`~eagle_rag.service.remote_tools`).
"""

from eagle_rag.service.documents import (
    delete_document,
    document_to_dict,
    find_document,
    get_document,
)
from eagle_rag.service.requests import parse_mode, require_kb_name
from eagle_rag.service.searching import search, search_many, validate_request

__all__ = ["delete_document", "document_to_dict", "find_document", "get_document", "parse_mode", "search",
           "require_kb_name", "search_many", "validate_request"]

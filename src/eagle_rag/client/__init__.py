"""The Python client of a running server (:mod:`eagle_rag.client.http`) and server discovery through
``<data_dir>/server.json`` (:mod:`eagle_rag.client.server_file`)."""

from eagle_rag.client.http import AsyncEagleClient, EagleClient

__all__ = ["AsyncEagleClient", "EagleClient"]

"""Which stores are shared between processes and which live in one process's data folder.

A PostgreSQL registry is shared by every process that names it; a Milvus server (``milvus.uri``) is
shared too, and so is ``lexical.backend: milvus`` on it. Milvus Lite (``milvus.db``), tantivy
(``lexical/``) and the SQLite registry (``registry.db``) belong to one data folder. Several ``serve``
replicas, each with its own folder, that share the registry but not the stores diverge silently: an
upload to B is ``skipped_unchanged`` on A and never indexed there, a delete through B makes A answer
404 while A's stores still hold the chunks. :func:`mix_refusal` names that mix in one line, and
``eagle-rag serve`` refuses to start with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eagle_rag.stores.availability import redact_url

if TYPE_CHECKING:
    from eagle_rag.settings import Settings


def shares_registry(settings: Settings) -> bool:
    """True when the document registry is a database other processes name too (not the folder's SQLite)."""
    return not settings.registry_url.startswith("sqlite")


def private_stores(settings: Settings) -> list[str]:
    """The stores of ``settings`` that live in the data folder (one process's)."""
    out = []
    if settings.milvus_uri.endswith(".db"):
        out.append("the vector store (Milvus Lite milvus.db)")
    if settings.lexical.backend != "milvus":
        out.append("the lexical index (tantivy lexical/)")
    elif settings.milvus_uri.endswith(".db"):
        out.append("the lexical index (in milvus.db)")
    return out


def parallel_writes(settings: Settings) -> bool:
    """True when every store of ``settings`` is a server (a Milvus server with ``lexical.backend:
    milvus``, a PostgreSQL registry, the token vectors in it): any number of processes may write them
    at once, so a pool of write actors writes. Otherwise a store lives in the data folder, which one
    process owns: the driver is the single writer."""
    return shares_registry(settings) and not private_stores(settings)


def mix_refusal(settings: Settings) -> str | None:
    """One line when a shared registry (PostgreSQL) is configured with a store private to the data folder,
    else None."""
    if not shares_registry(settings):
        return None
    private = private_stores(settings)
    if not private:
        return None
    return (f"the document registry {redact_url(settings.registry_url)} is shared, but "
            f"{' and '.join(private)} live in this process's data folder {settings.data_path}: replicas would "
            "diverge; set milvus.uri to a Milvus server and lexical.backend: milvus, or use the embedded registry "
            "(registry.url empty)")
